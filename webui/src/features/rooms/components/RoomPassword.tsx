/** The owner's view of the room password: masked, with a reveal toggle and a regenerate button. */
import { ActionIcon, Button, Code, Group, Text, Tooltip } from '@mantine/core';
import { IconEye, IconEyeOff, IconRefresh } from '@tabler/icons-react';
import { useState } from 'react';

interface Props {
  password: string | null | undefined;
  disabled: boolean;
  onRegenerate: () => void;
}

export function RoomPassword({ password, disabled, onRegenerate }: Props) {
  const [visible, setVisible] = useState(false);
  const shown = password ? (visible ? password : '•'.repeat(10)) : '—';
  return (
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
      <Button size="xs" variant="light" leftSection={<IconRefresh size={14} />} disabled={disabled} onClick={onRegenerate}>
        Regenerar contraseña
      </Button>
    </Group>
  );
}
