/** The form of both 'Renombrar' dialogs, the customer's and the staff's: the peer name rule checked before sending,
 * the server's refusal (the rule, a name already taken) under the field. */
import { Button, Group, Stack, TextInput } from '@mantine/core';
import { useState } from 'react';
import { errorMessage } from '../../../lib/api';
import { peerNameError } from '../peer-name';

interface Props {
  initial: string;
  /** Sends the name; a refusal it throws is shown under the field and the form stays open. */
  save: (name: string) => Promise<void>;
  onCancel: () => void;
}

export function PeerNameForm({ initial, save, onCancel }: Props) {
  const [name, setName] = useState(initial);
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
      await save(name.trim());
    } catch (caught) {
      setError(errorMessage(caught, 'Hubo un error al realizar la operación.'));
    } finally {
      setBusy(false);
    }
  };
  return (
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
          <Button variant="default" onClick={onCancel}>
            Cancelar
          </Button>
          <Button type="submit" loading={busy}>
            Guardar
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
