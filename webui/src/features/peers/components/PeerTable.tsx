/**
 * The peers as a table, for screens 1024 px and wider (narrower ones get `PeerCards`). It fits the page at every
 * width: each peer's actions sit beside its name, the server's name, location, status and rooms share one
 * column, and a warning about the peer (two devices, its server offline) is a full-width row under it rather than text squeezed into
 * a cell (docs/webui.md, "Every screen fits").
 */
import { Group, Stack, Table, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import type { Peer, PeerStats } from '../api/peers';
import type { MonthUsage } from '../api/usage';
import { roomsText } from '../peer-format';
import { MirrorLink } from './MirrorLink';
import { PeerActions, type PeerMenuAction } from './PeerActions';
import { PausedNotice } from './PausedNotice';
import { PeerActivity } from './PeerActivity';
import { PeerExpiry } from './PeerExpiry';
import { PeerMonthUsage } from './PeerMonthUsage';
import { PeerOperationLine } from './PeerOperationLine';
import { PeerStatusBadge, ServerStatusBadge } from './PeerStatusBadge';
import { ServerOfflineNotice } from './ServerOfflineNotice';
import { SharedConfigWarning } from './SharedConfigWarning';

export interface PeerListProps {
  peers: Peer[];
  stats: Record<string, PeerStats>;
  /** This month's traffic per peer id ('Usado este mes'); missing while loading. */
  usage?: Record<string, MonthUsage>;
  showRooms: boolean;
  isBusy: (peer: Peer) => boolean;
  onDownload: (peer: Peer) => Promise<void>;
  onShowQr: (peer: Peer) => void;
  onAction: (action: PeerMenuAction, peer: Peer) => void;
}

/** Names may be 32 characters without a space: they break anywhere rather than widen their column. */
export const BREAK_ANYWHERE = { overflowWrap: 'anywhere' } as const;

/** The peer's name with its actions right beside it, and while busy what runs on it, in the server's words. */
export function PeerHeading({ peer, busy, actions }: { peer: Peer; busy: boolean; actions: ReactNode }) {
  return (
    <Stack gap={4}>
      <Group gap="xs" wrap="nowrap" align="flex-start" justify="space-between">
        <Text fw={600} style={{ ...BREAK_ANYWHERE, minWidth: 0 }}>
          {peer.name}
        </Text>
        {actions}
      </Group>
      {busy && <PeerOperationLine peer={peer} />}
    </Stack>
  );
}

/** The peer's full-width notices, under it: its server is offline, two devices share its configuration. */
export function PeerNotices({ peer, busy, onAction }: Pick<PeerListProps, 'onAction'> & { peer: Peer; busy: boolean }) {
  const offline = Boolean(peer.server_notice);
  if (!offline && !peer.shared_config_warning && !peer.pause_notice) return null;
  return (
    <Stack gap="xs">
      {peer.pause_notice && <PausedNotice peerName={peer.name} notice={peer.pause_notice} since={peer.paused_since} />}
      {offline && <ServerOfflineNotice peer={peer} busy={busy} onChangeServer={(p) => onAction('change_server', p)} />}
      {peer.shared_config_warning && <SharedConfigWarning peerName={peer.name} />}
    </Stack>
  );
}

/** The server's name, then its location, status and whether it allows rooms, on the line below. */
export function PeerServer({ peer, showRooms }: { peer: Peer; showRooms: boolean }) {
  if (!peer.server) return <Text size="sm">—</Text>;
  return (
    <Stack gap={4} align="flex-start">
      <Text size="sm" style={BREAK_ANYWHERE}>
        {peer.server.name}
      </Text>
      <Group gap={6}>
        {peer.server.ubication && (
          <Text size="sm" c="dimmed">
            {peer.server.ubication}
          </Text>
        )}
        <ServerStatusBadge server={peer.server} />
      </Group>
      {showRooms && (
        <Text size="xs" c="dimmed">
          Salas: <Text span size="xs">{roomsText(peer.server.allow_partys)}</Text>
        </Text>
      )}
    </Stack>
  );
}

export function PeerTable({ peers, stats, usage = {}, showRooms, isBusy, onDownload, onShowQr, onAction }: PeerListProps) {
  const columns = 5;
  return (
    <Table verticalSpacing="sm" layout="fixed">
      <Table.Thead>
        <Table.Tr>
          <Table.Th w="32%">Nombre</Table.Th>
          <Table.Th w="13%">Estado</Table.Th>
          <Table.Th w="20%">Vencimiento</Table.Th>
          <Table.Th w="14%">Usado este mes</Table.Th>
          <Table.Th w="21%">Servidor</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {peers.map((peer) => {
          const busy = isBusy(peer);
          const warned = peer.shared_config_warning || Boolean(peer.server_notice) || Boolean(peer.pause_notice);
          // A warned peer's two rows read as one: no line between them.
          const joined = warned ? { borderBottom: 'none' } : undefined;
          return [
            <Table.Tr key={peer.id} data-testid="peer-row">
              <Table.Td style={joined}>
                <Stack gap={4}>
                  <PeerHeading
                    peer={peer}
                    busy={busy}
                    actions={
                      <PeerActions peer={peer} busy={busy} onDownload={onDownload} onShowQr={onShowQr} onAction={onAction} />
                    }
                  />
                  <PeerActivity stats={stats[peer.id]} />
                  <MirrorLink link={peer.mirror_link} />
                </Stack>
              </Table.Td>
              <Table.Td style={joined}>
                <PeerStatusBadge active={peer.active} reason={peer.disabled_reason} paused={peer.paused} />
              </Table.Td>
              <Table.Td style={joined}>
                <PeerExpiry peer={peer} />
              </Table.Td>
              <Table.Td style={joined}>
                <PeerMonthUsage usage={usage[peer.id]} />
              </Table.Td>
              <Table.Td style={joined}>
                <PeerServer peer={peer} showRooms={showRooms} />
              </Table.Td>
            </Table.Tr>,
            warned && (
              <Table.Tr key={`${peer.id}-warning`} data-testid="peer-warning-row">
                <Table.Td colSpan={columns} pt={0}>
                  <PeerNotices peer={peer} busy={busy} onAction={onAction} />
                </Table.Td>
              </Table.Tr>
            ),
          ];
        })}
      </Table.Tbody>
    </Table>
  );
}
