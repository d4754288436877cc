/** "Dónde juega la sala": the servers the room's members are on (with their location and how many members each
 * holds), the server recommended for the group and why (docs/rooms.md), the owner's "move all my peers there" and,
 * for the other members, a suggestion with each of their peers' change-server action. */
import { Badge, Button, Card, Group, Stack, Text } from '@mantine/core';
import { useEffect, useState } from 'react';
import { Link } from 'react-router';
import { errorMessage } from '../../../lib/api';
import { toast } from '../../../lib/toasts';
import { changeServerPath } from '../../peers/peer-links';
import type { Room } from '../api/rooms';
import { fetchRoomPlacement, moveMyRoomPeers, type RoomPlacement } from '../api/room-servers';

type PlaceServer = RoomPlacement['servers'][number];

function serverLabel(server: { name: string; ubication: string }): string {
  const location = server.ubication.trim();
  return location ? `${server.name} (${location})` : server.name;
}

const peersCount = (n: number) => (n === 1 ? '1 peer' : `${n} peers`);

/** A member's round trip from its server to its device, as the node measured it (docs/rooms.md). */
const rttLabel = (ms: number | null | undefined) => (ms == null ? 'sin medir' : `${ms} ms`);

// Round trips are measured every 30 s or so on the nodes: read the page again now and then while it is open.
const REFRESH_MS = 60_000;

/** One server of the room: its name and location, its members (each with its round trip to this server), and why
 * it cannot take more when it cannot. */
function ServerLine({ server, members }: { server: PlaceServer; members: string[] }) {
  return (
    <Stack gap={2} data-testid="room-server">
      <Group gap={6} wrap="wrap">
        <Text size="sm" fw={600} style={{ overflowWrap: 'anywhere' }}>
          {serverLabel(server)}
        </Text>
        <Badge variant="light" miw="max-content">
          {peersCount(server.members)}
        </Badge>
        {server.recommended && (
          <Badge color="green" variant="light" miw="max-content">
            Recomendado
          </Badge>
        )}
        {!server.online && (
          <Badge color="red" variant="light" miw="max-content">
            Servidor sin conexión
          </Badge>
        )}
        {server.online && !server.accepts_peers && (
          <Badge color="gray" variant="light" miw="max-content">
            No admite más peers
          </Badge>
        )}
      </Group>
      {members.length > 0 && (
        <Text size="xs" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
          {members.join(', ')}
        </Text>
      )}
    </Stack>
  );
}

export function RoomServers({ room, owner }: { room: Room; owner: boolean }) {
  const [placement, setPlacement] = useState<RoomPlacement | null>(null);
  const [sending, setSending] = useState(false);
  // Read again whenever the room changes (a member joined, left or moved: its version grows), and every minute for
  // the members' round trips, which change without the room changing.
  useEffect(() => {
    const controller = new AbortController();
    const read = () => fetchRoomPlacement(room.id, controller.signal).then(setPlacement, () => undefined);
    void read();
    const timer = window.setInterval(read, REFRESH_MS);
    return () => {
      window.clearInterval(timer);
      controller.abort();
    };
  }, [room.id, room.version]);
  if (!placement || placement.members.length === 0) return null;

  const recommended = placement.servers.find((s) => s.recommended) ?? null;
  const held = placement.servers.filter((s) => s.members > 0 || s.recommended);
  const membersOf = (serverId: string) =>
    placement.members.filter((m) => m.server === serverId).map((m) => `${m.name} (${m.user}) · ${rttLabel(m.rtt_ms)}`);
  const mine = placement.members.filter((m) => placement.to_move.includes(m.peer));
  const busy = sending || Boolean(room.processing);

  const moveAll = async () => {
    if (!recommended) return;
    setSending(true);
    try {
      const answer = await moveMyRoomPeers(room.id, recommended.id);
      toast.info(answer.message);
    } catch (error) {
      toast.error(errorMessage(error, 'No se pudieron mover sus peers. Intente de nuevo.'));
    } finally {
      setSending(false);
    }
  };

  return (
    <Card withBorder padding="sm" data-testid="room-servers">
      <Stack gap="xs">
        <Text fw={600}>Dónde juega la sala</Text>
        {held.map((server) => (
          <ServerLine key={server.id} server={server} members={membersOf(server.id)} />
        ))}
        {recommended ? (
          <Stack gap={4} data-testid="room-best-server">
            <Group justify="space-between" gap="xs" wrap="wrap">
              <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
                Servidor recomendado: <b>{serverLabel(recommended)}</b>
              </Text>
              {owner && mine.length > 0 && (
                <Button size="xs" disabled={busy} loading={sending} onClick={moveAll} data-testid="room-move-all">
                  Mover mis peers aquí ({mine.length})
                </Button>
              )}
            </Group>
            <Text size="xs" c="dimmed">
              {placement.reason}
            </Text>
            {!owner && mine.length > 0 && (
              <Stack gap={4} data-testid="room-move-suggestion">
                <Text size="sm">Le sugerimos pasar sus peers a {serverLabel(recommended)}:</Text>
                {mine.map((m) => (
                  <Group key={m.peer} justify="space-between" gap="xs" wrap="wrap">
                    <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
                      {m.name} · en {m.server_name}
                    </Text>
                    <Button size="xs" variant="light" component={Link} to={changeServerPath(m.peer)}>
                      Cambiar servidor
                    </Button>
                  </Group>
                ))}
              </Stack>
            )}
          </Stack>
        ) : (
          <Text size="sm" c="dimmed" data-testid="room-best-server">
            {placement.reason}
          </Text>
        )}
      </Stack>
    </Card>
  );
}
