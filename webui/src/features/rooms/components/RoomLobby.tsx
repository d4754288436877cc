/** "Partidas en la sala": the games and services the room's members announce, live (docs/webui.md, rooms), and
 * the help for a host whose game never reaches the tunnel. Below 1024 px the entries are cards. */
import { ActionIcon, Alert, Anchor, Badge, Card, Group, Stack, Table, Text, Tooltip } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconCheck, IconCopy } from '@tabler/icons-react';
import { useEffect, useMemo, useState } from 'react';
import { Link } from 'react-router';
import { toast } from '../../../lib/toasts';
import type { LobbyGame } from '../api/rooms';
import { agoText, entryTitle, gameName, joinAddress, LOBBY_EXPIRY_SECONDS, playersText } from '../lobby-format';

const COPY_CONFIRMATION_MS = 2000;

/** Seconds since `since` (ms), ticking once a second while the room is on screen. */
export function useElapsed(since: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  return Math.max(0, Math.floor((now - since) / 1000));
}

/** `table`: one line, never broken (the table's columns share the room the names leave; an address cut as
 * '10.61.0.15:255' over '65' reads as another port). A card's may wrap: a phone has no room to spare. */
function CopyAddress({ address, table = false }: { address: string; table?: boolean }) {
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    if (!copied) return;
    const timer = setTimeout(() => setCopied(false), COPY_CONFIRMATION_MS);
    return () => clearTimeout(timer);
  }, [copied]);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(address);
    } catch {
      // No clipboard outside secure contexts (plain http on a LAN address) or without permission.
      toast.error('No se pudo copiar la dirección. Cópiela manualmente.');
      return;
    }
    setCopied(true);
    notifications.show({ message: `Dirección ${address} copiada.`, color: 'green', autoClose: COPY_CONFIRMATION_MS });
  };
  return (
    <Group gap={4} wrap="nowrap">
      <Text
        size="sm"
        ff="monospace"
        style={table ? { whiteSpace: 'nowrap' } : { overflowWrap: 'anywhere' }}
        data-testid="lobby-address"
      >
        {address}
      </Text>
      <Tooltip label={copied ? 'Copiada' : 'Copiar dirección'} withArrow>
        <ActionIcon
          variant="subtle"
          color={copied ? 'teal' : 'gray'}
          aria-label={copied ? 'Dirección copiada' : `Copiar dirección ${address}`}
          onClick={() => void copy()}
        >
          {copied ? <IconCheck size={16} /> : <IconCopy size={16} />}
        </ActionIcon>
      </Tooltip>
    </Group>
  );
}

function GameBadge({ entry }: { entry: LobbyGame }) {
  return (
    <Badge variant="light" color={entry.game === 'other' ? 'gray' : 'blue'} miw="max-content">
      {gameName(entry.game)}
    </Badge>
  );
}

function EntryCard({ entry, elapsed }: { entry: LobbyGame; elapsed: number }) {
  const players = playersText(entry);
  return (
    <Card withBorder padding="sm" data-testid="lobby-entry" data-game={entry.game}>
      <Group justify="space-between" gap="xs" wrap="nowrap" align="flex-start">
        <Text fw={600} style={{ overflowWrap: 'anywhere' }}>
          {entryTitle(entry)}
        </Text>
        <GameBadge entry={entry} />
      </Group>
      {entry.detail && (
        <Text size="sm" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
          {entry.detail}
        </Text>
      )}
      <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
        De {entry.user} · {entry.peer_name}
      </Text>
      <CopyAddress address={joinAddress(entry)} />
      <Text size="xs" c="dimmed">
        {players ? `${players} · ` : ''}visto {agoText(entry.seen_seconds_ago + elapsed)}
      </Text>
    </Card>
  );
}

function EntryRow({ entry, elapsed }: { entry: LobbyGame; elapsed: number }) {
  return (
    <Table.Tr data-testid="lobby-entry" data-game={entry.game}>
      <Table.Td>
        <GameBadge entry={entry} />
      </Table.Td>
      <Table.Td>
        <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
          {entryTitle(entry)}
        </Text>
        {entry.detail && (
          <Text size="xs" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
            {entry.detail}
          </Text>
        )}
      </Table.Td>
      <Table.Td>
        <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
          {entry.user}
        </Text>
        <Text size="xs" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
          {entry.peer_name}
        </Text>
      </Table.Td>
      <Table.Td>
        <CopyAddress address={joinAddress(entry)} table />
      </Table.Td>
      {/* A few words each ('3/8 jugadores', 'ahora mismo'): on one line, so the names take what is left. */}
      <Table.Td style={{ whiteSpace: 'nowrap' }}>{playersText(entry) ?? '—'}</Table.Td>
      <Table.Td style={{ whiteSpace: 'nowrap' }}>{agoText(entry.seen_seconds_ago + elapsed)}</Table.Td>
    </Table.Tr>
  );
}

export function RoomLobby({ lobby, narrow, receivedAt }: { lobby: LobbyGame[]; narrow: boolean; receivedAt: number }) {
  const elapsed = useElapsed(receivedAt);
  const live = useMemo(
    () => lobby.filter((entry) => entry.seen_seconds_ago + elapsed <= LOBBY_EXPIRY_SECONDS),
    [lobby, elapsed],
  );
  return (
    <Stack gap="xs" data-testid="room-lobby">
      <Text fw={600}>Partidas en la sala</Text>
      {live.length === 0 ? (
        <Alert variant="light" color="gray" data-testid="lobby-empty">
          Nadie anuncia una partida ahora. Cuando un miembro abra una partida en LAN (o comparta un servicio) aparecerá
          aquí, con la dirección para unirse.{' '}
          <Anchor component={Link} to="/dashboard/help" size="sm">
            ¿Su partida no aparece?
          </Anchor>
        </Alert>
      ) : narrow ? (
        <Stack gap="xs">
          {live.map((entry) => (
            <EntryCard key={entry.id} entry={entry} elapsed={elapsed} />
          ))}
        </Stack>
      ) : (
        <Table verticalSpacing="xs" striped>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Juego</Table.Th>
              <Table.Th>Nombre</Table.Th>
              <Table.Th>Anfitrión</Table.Th>
              <Table.Th>Dirección</Table.Th>
              <Table.Th>Jugadores</Table.Th>
              <Table.Th>Visto</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {live.map((entry) => (
              <EntryRow key={entry.id} entry={entry} elapsed={elapsed} />
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Stack>
  );
}
