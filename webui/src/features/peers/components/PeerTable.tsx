/** The peers as a table, for screens 768 px and wider. */
import { Group, Loader, Stack, Table, Text } from '@mantine/core';
import type { Peer, PeerStats } from '../api/peers';
import type { MonthUsage } from '../api/usage';
import { roomsText } from '../peer-format';
import { MirrorLink } from './MirrorLink';
import { PeerActions, type PeerMenuAction } from './PeerActions';
import { PeerActivity } from './PeerActivity';
import { PeerExpiry } from './PeerExpiry';
import { PeerMonthUsage } from './PeerMonthUsage';
import { PeerStatusBadge, ServerStatusBadge } from './PeerStatusBadge';
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

/** The peer's name, a small spinner ('Operación en curso') while busy, and its live activity. */
export function PeerName({ peer, busy, stats }: { peer: Peer; busy: boolean; stats: PeerStats | undefined }) {
  return (
    <Stack gap={2} align="flex-start">
      <Group gap={6} wrap="nowrap">
        <Text fw={600}>{peer.name}</Text>
        {busy && <Loader size={12} role="status" aria-label="Operación en curso" />}
      </Group>
      <PeerActivity stats={stats} />
      {peer.shared_config_warning && <SharedConfigWarning />}
    </Stack>
  );
}

export function PeerTable({ peers, stats, usage = {}, showRooms, isBusy, onDownload, onShowQr, onAction }: PeerListProps) {
  return (
    <Table.ScrollContainer minWidth={1160}>
      <Table verticalSpacing="sm" highlightOnHover>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Nombre</Table.Th>
            <Table.Th>Estado</Table.Th>
            <Table.Th>Vencimiento</Table.Th>
            <Table.Th>Usado este mes</Table.Th>
            <Table.Th>Servidor</Table.Th>
            <Table.Th>Estado del servidor</Table.Th>
            <Table.Th>Ubicación</Table.Th>
            {showRooms && <Table.Th>Salas</Table.Th>}
            <Table.Th>Mirror Link</Table.Th>
            <Table.Th>Acciones</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {peers.map((peer) => {
            const busy = isBusy(peer);
            return (
              <Table.Tr key={peer.id} data-testid="peer-row">
                <Table.Td>
                  <PeerName peer={peer} busy={busy} stats={stats[peer.id]} />
                </Table.Td>
                <Table.Td>
                  <PeerStatusBadge active={peer.active} reason={peer.disabled_reason} />
                </Table.Td>
                <Table.Td>
                  <PeerExpiry peer={peer} />
                </Table.Td>
                <Table.Td>
                  <PeerMonthUsage usage={usage[peer.id]} />
                </Table.Td>
                <Table.Td style={{ whiteSpace: 'nowrap' }}>{peer.server?.address ?? '—'}</Table.Td>
                <Table.Td>{peer.server ? <ServerStatusBadge server={peer.server} /> : '—'}</Table.Td>
                <Table.Td>{peer.server?.ubication ?? '—'}</Table.Td>
                {showRooms && <Table.Td>{peer.server ? roomsText(peer.server.allow_partys) : '—'}</Table.Td>}
                <Table.Td>
                  <MirrorLink link={peer.mirror_link} />
                </Table.Td>
                <Table.Td>
                  <PeerActions
                    peer={peer}
                    busy={busy}
                    onDownload={onDownload}
                    onShowQr={onShowQr}
                    onAction={onAction}
                  />
                </Table.Td>
              </Table.Tr>
            );
          })}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
