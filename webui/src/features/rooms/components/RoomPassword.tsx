/** The owner's view of the room password: masked, with a reveal toggle, a copy button, and two ways to change it:
 * choose one (checked by the server: 8 to 64 characters) or regenerate a random one. */
import { ActionIcon, Button, Code, CopyButton, Group, Modal, PasswordInput, Stack, Text, Tooltip } from '@mantine/core';
import { IconCheck, IconCopy, IconEye, IconEyeOff, IconPencil, IconRefresh } from '@tabler/icons-react';
import { useState } from 'react';

interface Props {
  password: string | null | undefined;
  disabled: boolean;
  onRegenerate: () => void;
  /** Resolves to null once set, or to the server's reason for refusing it. */
  onChoose: (password: string) => Promise<string | null>;
}

export function RoomPassword({ password, disabled, onRegenerate, onChoose }: Props) {
  const [visible, setVisible] = useState(false);
  const [choosing, setChoosing] = useState(false);
  const shown = password ? (visible ? password : '•'.repeat(10)) : '—';
  return (
    <Stack gap="xs">
      <Group gap="xs" wrap="wrap">
        <Text size="sm" c="dimmed">
          Contraseña:
        </Text>
        <Code data-testid="room-password">{shown}</Code>
        <Tooltip label={visible ? 'Ocultar contraseña' : 'Mostrar contraseña'} withArrow>
          <ActionIcon
            variant="subtle"
            color="gray"
            aria-label={visible ? 'Ocultar contraseña' : 'Mostrar contraseña'}
            onClick={() => setVisible((value) => !value)}
          >
            {visible ? <IconEyeOff size={16} /> : <IconEye size={16} />}
          </ActionIcon>
        </Tooltip>
        {password && (
          <CopyButton value={password}>
            {({ copied, copy }) => (
              <Tooltip label={copied ? 'Contraseña copiada' : 'Copiar contraseña'} withArrow>
                <ActionIcon
                  variant="subtle"
                  color={copied ? 'teal' : 'gray'}
                  aria-label={copied ? 'Contraseña copiada' : 'Copiar contraseña'}
                  onClick={copy}
                >
                  {copied ? <IconCheck size={16} /> : <IconCopy size={16} />}
                </ActionIcon>
              </Tooltip>
            )}
          </CopyButton>
        )}
      </Group>
      <Group gap="xs" wrap="wrap">
        <Button size="xs" variant="light" leftSection={<IconPencil size={14} />} disabled={disabled} onClick={() => setChoosing(true)}>
          Elegir contraseña
        </Button>
        <Button size="xs" variant="light" leftSection={<IconRefresh size={14} />} disabled={disabled} onClick={onRegenerate}>
          Regenerar contraseña
        </Button>
      </Group>
      {choosing && <ChoosePasswordDialog onChoose={onChoose} onClose={() => setChoosing(false)} />}
    </Stack>
  );
}

function ChoosePasswordDialog({ onChoose, onClose }: { onChoose: Props['onChoose']; onClose: () => void }) {
  const [value, setValue] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const save = async () => {
    setBusy(true);
    const refused = await onChoose(value);
    setBusy(false);
    if (refused === null) onClose();
    else setProblem(refused);
  };
  return (
    <Modal opened onClose={onClose} title="Elegir contraseña de la sala" centered>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void save();
        }}
      >
        <Stack>
          <PasswordInput
            label="Nueva contraseña"
            description="Entre 8 y 64 caracteres. Quien ya está en la sala sigue en ella; los nuevos invitados necesitarán esta."
            value={value}
            onChange={(event) => {
              setValue(event.currentTarget.value);
              setProblem(null);
            }}
            error={problem}
            data-autofocus
          />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose} disabled={busy}>
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
