/** The owned (Administrador) and guest (Invitado) rooms in one table, each with a view button. */
import { Button, Card, Group, Stack, Table, Text } from '@mantine/core';
import { useNarrowScreen } from '../../../lib/screen';
import type { Room, RoomLists } from '../api/rooms';
import { formatDateTime, roleText } from '../room-format';
import type { RoomRole } from '../room-lists';
import { ProcessingBadge } from './ProcessingBadge';

export function RoomTable({ lists, onView }: { lists: RoomLists; onView: (room: Room) => void }) {
  const rows: { room: Room; role: RoomRole }[] = [
    ...lists.owned_partys.map((room) => ({ room, role: 'owner' as const })),
    ...lists.guest_partys.map((room) => ({ room, role: 'guest' as const })),
  ];
  const narrow = useNarrowScreen();
  if (narrow) {
    // Below 1024 px each room is a card: name, role and peers on top, date below, 'Ver' beside them.
    return (
      <Stack gap="xs">
        {rows.map(({ room, role }) => (
          <Card key={room.id} withBorder padding="sm" data-testid="room-row">
            <Group justify="space-between" gap="xs" wrap="nowrap" align="flex-start">
              <Stack gap={2} style={{ minWidth: 0 }}>
                <Group gap="xs">
                  <Text fw={600} style={{ overflowWrap: 'anywhere' }}>
                    {room.name}
                  </Text>
                  {room.processing && <ProcessingBadge />}
                </Group>
                <Text size="sm" c="dimmed">
                  {roleText(role)} · {room.peers.length} {room.peers.length === 1 ? 'peer' : 'peers'}
                </Text>
                <Text size="sm" c="dimmed">
                  Creada el {formatDateTime(room.created)}
                </Text>
              </Stack>
              <Button size="xs" variant="light" onClick={() => onView(room)}>
                Ver
              </Button>
            </Group>
          </Card>
        ))}
      </Stack>
    );
  }
  return (
    <Table.ScrollContainer minWidth={640}>
      <Table verticalSpacing="sm" highlightOnHover>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Nombre</Table.Th>
            <Table.Th>Total de peers</Table.Th>
            <Table.Th>Fecha de creación</Table.Th>
            <Table.Th>Rol</Table.Th>
            <Table.Th />
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map(({ room, role }) => (
            <Table.Tr key={room.id} data-testid="room-row">
              <Table.Td>
                <Group gap="xs" wrap="nowrap">
                  <Text fw={600}>{room.name}</Text>
                  {room.processing && <ProcessingBadge />}
                </Group>
              </Table.Td>
              <Table.Td>{room.peers.length}</Table.Td>
              <Table.Td>{formatDateTime(room.created)}</Table.Td>
              <Table.Td>{roleText(role)}</Table.Td>
              <Table.Td>
                <Button size="xs" variant="light" onClick={() => onView(room)}>
                  Ver
                </Button>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
