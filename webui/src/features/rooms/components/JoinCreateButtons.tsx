/** 'Crear Nueva Sala' and 'Unirse a una sala': always shown; when the customer has no free peer they are disabled,
 * with the reason and the way out beside them (the contract hid them, which left customers without a clue). */
import { Alert, Anchor, Button, Group, Stack, Text } from '@mantine/core';
import { IconDoorEnter, IconInfoCircle, IconPlus } from '@tabler/icons-react';
import { Link } from 'react-router';

export type Blocked = 'no_peers' | 'all_in_rooms';

/** Why the buttons are off, and what to do about it. */
export const BLOCKED_TEXT: Record<Blocked, string> = {
  no_peers: 'Primero debe adquirir un peer para poder crear o unirse a una sala.',
  all_in_rooms:
    'Todos sus peers ya están en una sala, y un peer solo puede estar en una. Para crear otra sala o unirse a otra, saque uno de sus peers de su sala (Ver › Salir) o adquiera un peer nuevo.',
};

interface Props {
  blocked: Blocked | null;
  onCreate: () => void;
  onJoin: () => void;
}

export function JoinCreateButtons({ blocked, onCreate, onJoin }: Props) {
  const reasonId = blocked ? 'rooms-blocked-reason' : undefined;
  return (
    <Stack gap="sm">
      <Group>
        <Button leftSection={<IconPlus size={16} />} onClick={onCreate} disabled={blocked !== null} aria-describedby={reasonId}>
          Crear Nueva Sala
        </Button>
        <Button
          variant="light"
          leftSection={<IconDoorEnter size={16} />}
          onClick={onJoin}
          disabled={blocked !== null}
          aria-describedby={reasonId}
        >
          Unirse a una sala
        </Button>
      </Group>
      {blocked && (
        <Alert color="blue" icon={<IconInfoCircle />} id={reasonId} data-testid="rooms-blocked">
          <Text size="sm">{BLOCKED_TEXT[blocked]}</Text>
          <Anchor component={Link} to="/dashboard/plans" size="sm">
            Adquirir un peer en Planes
          </Anchor>
        </Alert>
      )}
    </Stack>
  );
}
