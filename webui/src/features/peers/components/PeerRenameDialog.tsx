/** 'Renombrar': a new name for the peer, under the peer name rule; a refusal shows beside the field. */
import { Button, Group, Modal, Stack, TextInput } from '@mantine/core';
import { useEffect, useState } from 'react';
import { ApiError, errorMessage } from '../../../lib/api';
import { toast } from '../../../lib/toasts';
import type { Peer } from '../api/peers';
import { peerNameError } from '../peer-name';

interface Props {
  peer: Peer | null;
  onRename: (peer: Peer, name: string) => Promise<void>;
  onClose: () => void;
}

export function PeerRenameDialog({ peer, onRename, onClose }: Props) {
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    setName(peer?.name ?? '');
    setError(null);
  }, [peer?.id]); // eslint-disable-line react-hooks/exhaustive-deps -- a new peer starts from its name; a push does not reset typing

  const submit = async () => {
    if (!peer) return;
    const invalid = peerNameError(name);
    if (invalid) {
      setError(invalid);
      return;
    }
    setBusy(true);
    try {
      await onRename(peer, name);
      toast.success('Nombre del peer cambiado.');
      onClose();
    } catch (caught) {
      // The rule and a name already taken belong to the field; anything else too, since the dialog stays open.
      setError(caught instanceof ApiError ? errorMessage(caught, 'Hubo un error al realizar la operación.') : 'Hubo un error al realizar la operación.');
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal opened={peer !== null} onClose={onClose} title={peer ? `Renombrar ${peer.name}` : ''} closeButtonProps={{ 'aria-label': 'Cerrar' }} centered>
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
