/** One room: owner, creation date, the owner's password controls, and its peers (400 px list) with their server
 * (marked when it is offline), whether they are online now, and their actions. */
import { Accordion, Badge, Button, Card, Group, ScrollArea, Stack, Table, Text, Title } from '@mantine/core';
import '@mantine/core/styles/Accordion.css'; // the room's help panel (also Help's: app/mantine-styles.ts)
import { useMemo, type ReactNode } from 'react';
import { IconArrowLeft, IconPlus, IconTrash } from '@tabler/icons-react';
import { useNarrowScreen } from '../../../lib/screen';
import type { Room, RoomPeer } from '../api/rooms';
import { hearingText } from '../lobby-format';
import { formatDateTime, roleText } from '../room-format';
import type { RoomRole } from '../room-lists';
import { peerActionFor } from '../room-rules';
import { ProcessingBadge } from './ProcessingBadge';
import { RoomPassword } from './RoomPassword';
import { DiscoveryHelp } from '../../../components/DiscoveryHelp';
import { RoomLobby, useElapsed } from './RoomLobby';
import { RoomServers } from './RoomServers';
import { GuestPassSection } from './GuestPassSection';

/**
 * docs/contract.md#constants: the room's peer list is 400 px high. At most, here: a fixed 400 px left a room of two
 * a screen of empty box above the sections under it; past 400 px the list scrolls (recorded in docs/contract.md).
 */
export const ROOM_PEERS_HEIGHT = 400;

export type RoomAction =
  | { kind: 'regenerate_password' }
  | { kind: 'delete' }
  | { kind: 'add_peer' }
  | { kind: 'leave' | 'remove'; peer: RoomPeer };

interface Props {
  room: Room;
  role: RoomRole;
  alias: string | null;
  hasFreePeers: boolean;
  onBack: () => void;
  onAction: (action: RoomAction) => void;
  onChoosePassword: (password: string) => Promise<string | null>;
}

/** The member's server, marked when its agent is not connected (docs/api.md, rooms: `server_online`). A server
 * still applying a change (`server_in_sync: false`) is not marked: every room change does that for a moment. */
function MemberServer({ peer }: { peer: RoomPeer }) {
  if (peer.server_online !== false) return <>{peer.server}</>;
  return (
    <Group gap={6} wrap="wrap">
      <span>{peer.server}</span>
      <Badge
        color="red"
        size="xs"
        variant="light"
        miw="max-content"
        title="El agente de este servidor no está conectado. Los cambios de la sala le llegarán cuando vuelva."
        data-testid="room-peer-server-offline"
      >
        Servidor sin conexión
      </Badge>
    </Group>
  );
}

/** Who is there: a handshake with their server in the last 3 minutes (docs/webui.md, rooms). */
function PresenceBadge({ online }: { online: boolean }) {
  return (
    <Badge color={online ? 'green' : 'gray'} variant="light" miw="max-content" style={{ flexShrink: 0 }} data-testid="room-peer-presence">
      {online ? 'En línea' : 'Desconectado'}
    </Badge>
  );
}

/** Who can hear whom: discovery packets its server received from the member since it joined (docs/webui.md). */
function MemberHearing({ peer, elapsed }: { peer: RoomPeer; elapsed: number }) {
  return (
    <Text size="xs" c="dimmed" data-testid="room-peer-hearing">
      {hearingText(peer, elapsed)}
    </Text>
  );
}

/** Below 1024 px a member is a card: name and presence, then owner and address, then server, then the action, so
 * Estado and Acciones stay on a 360 px phone (as the peers page's cards do). */
function MemberCard({ peer, action, elapsed }: { peer: RoomPeer; action: ReactNode; elapsed: number }) {
  return (
    <Card withBorder padding="sm" data-testid="room-peer-row">
      <Group justify="space-between" gap="xs" wrap="nowrap">
        <Text fw={600} style={{ overflowWrap: 'anywhere' }}>
          {peer.name}
        </Text>
        <PresenceBadge online={peer.online} />
      </Group>
      <Text size="sm" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
        De {peer.user} · {peer.private_ip}
      </Text>
      <MemberHearing peer={peer} elapsed={elapsed} />
      <Group gap={6} justify="space-between" align="center" mt={4} wrap="wrap">
        <Text size="sm" component="div">
          <MemberServer peer={peer} />
        </Text>
        {action}
      </Group>
    </Card>
  );
}

export function RoomDetailView({ room, role, alias, hasFreePeers, onBack, onAction, onChoosePassword }: Props) {
  const owner = role === 'owner';
  const busy = Boolean(room.processing);
  // As the peers page: below 1024 px the members are cards.
  const narrow = useNarrowScreen();
  // Every read or push is a new room object: the lobby's and the members' ages count from its arrival.
  const receivedAt = useMemo(() => (room ? Date.now() : 0), [room]);
  const elapsed = useElapsed(receivedAt);
  const memberAction = (peer: RoomPeer): ReactNode => {
    const action = peerActionFor(role, peer, alias);
    if (action === 'leave') {
      return (
        <Button size="xs" variant="light" disabled={busy} onClick={() => onAction({ kind: 'leave', peer })}>
          Salir
        </Button>
      );
    }
    if (action === 'remove') {
      return (
        <Button size="xs" color="red" variant="light" disabled={busy} onClick={() => onAction({ kind: 'remove', peer })}>
          Expulsar
        </Button>
      );
    }
    return null;
  };
  return (
    <Stack>
      <Group>
        <Button variant="subtle" leftSection={<IconArrowLeft size={16} />} onClick={onBack}>
          Volver a Salas
        </Button>
      </Group>
      <Group gap="sm">
        <Title order={3}>{room.name}</Title>
        <Badge variant="light">{roleText(role)}</Badge>
        {busy && <ProcessingBadge />}
      </Group>
      <Text size="sm">
        <Text span c="dimmed">
          Propietario:{' '}
        </Text>
        {room.user}
      </Text>
      <Text size="sm">
        <Text span c="dimmed">
          Fecha de creación:{' '}
        </Text>
        {formatDateTime(room.created)}
      </Text>
      {owner && (
        <RoomPassword
          password={room.password}
          disabled={busy}
          onRegenerate={() => onAction({ kind: 'regenerate_password' })}
          onChoose={onChoosePassword}
        />
      )}
      <RoomLobby lobby={room.lobby ?? []} narrow={Boolean(narrow)} receivedAt={receivedAt} />
      <RoomServers room={room} owner={owner} />
      <Group justify="space-between">
        <Text fw={600}>Peers de la sala</Text>
        <Group gap="xs">
          {owner && hasFreePeers && (
            <Button size="xs" leftSection={<IconPlus size={14} />} disabled={busy} onClick={() => onAction({ kind: 'add_peer' })}>
              Añadir Peer
            </Button>
          )}
          {owner && (
            <Button
              size="xs"
              color="red"
              variant="light"
              leftSection={<IconTrash size={14} />}
              disabled={busy}
              onClick={() => onAction({ kind: 'delete' })}
            >
              Eliminar Sala
            </Button>
          )}
        </Group>
      </Group>
      <ScrollArea.Autosize style={{ maxHeight: ROOM_PEERS_HEIGHT }} data-testid="room-peers">
        {narrow ? (
          <Stack gap="xs">
            {room.peers.map((peer) => (
              <MemberCard key={peer.id} peer={peer} action={memberAction(peer)} elapsed={elapsed} />
            ))}
          </Stack>
        ) : (
          <Table verticalSpacing="xs" striped>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Peer</Table.Th>
                <Table.Th>Propietario</Table.Th>
                <Table.Th>Servidor</Table.Th>
                <Table.Th>Estado</Table.Th>
                <Table.Th>Acciones</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {room.peers.map((peer) => (
                <Table.Tr key={peer.id} data-testid="room-peer-row">
                  <Table.Td>
                    {/* The private IP is a detail line under the name, so the row fits from 1024 px. */}
                    <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
                      {peer.name}
                    </Text>
                    <Text size="xs" c="dimmed">
                      IP privada: {peer.private_ip}
                    </Text>
                    <MemberHearing peer={peer} elapsed={elapsed} />
                  </Table.Td>
                  <Table.Td>{peer.user}</Table.Td>
                  <Table.Td>
                    <MemberServer peer={peer} />
                  </Table.Td>
                  <Table.Td>
                    <PresenceBadge online={peer.online} />
                  </Table.Td>
                  <Table.Td>{memberAction(peer)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        )}
      </ScrollArea.Autosize>
      {owner && <GuestPassSection roomId={room.id} />}
      <Accordion variant="contained" data-testid="discovery-help-panel">
        <Accordion.Item value="ayuda">
          <Accordion.Control>¿Su partida no llega a los demás?</Accordion.Control>
          <Accordion.Panel>
            <Text size="sm" mb="xs">
              Si junto a su peer dice «ninguno desde que entró» mientras su partida está abierta, sus anuncios no salen
              por el túnel:
            </Text>
            <DiscoveryHelp />
          </Accordion.Panel>
        </Accordion.Item>
      </Accordion>
    </Stack>
  );
}
