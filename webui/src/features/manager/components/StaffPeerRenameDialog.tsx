/** The manager's 'Renombrar' for a customer's peer (admins): the same peer name rule as the customer's, the
 * server's refusal beside the field; the server records it in the audit log (peer.rename). */
import { Button, Group, Modal, Stack, TextInput } from '@mantine/core';
import { useState } from 'react';
import { errorMessage } from '../../../lib/api';
import { toast } from '../../../lib/toasts';
import { peerNameError } from '../../peers/peer-name';
import { managerApi, type StaffPeer } from '../api/manager';

export function StaffPeerRenameDialog({
  peer,
  onClose,
  onDone,
}: {
  peer: StaffPeer;
  onClose: () => void;
  onDone: (peer: StaffPeer) => void;
}) {
  const [name, setName] = useState(peer.name);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async () => {
    const invalid = peerNameError(name);
    if (invalid) {
      setError(invalid);
      return;
    }
    setBusy(true);
    try {
      const renamed = await managerApi.updatePeer(peer.id, { name: name.trim() });
      toast.success(`Peer renombrado a ${renamed.name}.`);
      onDone(renamed);
    } catch (caught) {
      setError(errorMessage(caught, 'Hubo un error al realizar la operación.'));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal opened onClose={onClose} title={`Renombrar ${peer.name} de ${peer.username}`} closeButtonProps={{ 'aria-label': 'Cerrar' }}>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void submit();
        }}
      >
        <Stack>
          <TextInput
            label="Nuevo nombre"
            description="De 1 a 32 caracteres: letras, números, guion o guion bajo."
            value={name}
            onChange={(event) => {
              setName(event.currentTarget.value);
              setError(null);
            }}
            error={error}
            maxLength={64}
            data-autofocus
            autoComplete="off"
          />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancelar
            </Button>
            <Button type="submit" loading={busy}>
              Guardar
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
