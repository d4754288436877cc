/** A compact table of peers as staff see them (owner, server, state, expiry), with optional row actions. */
import { Badge, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import type { StaffPeer } from '../api/manager';
import { dateTime } from '../format';
import { NameWithActions } from './NameWithActions';
import { RowTable } from './RowTable';

export function PeerStateBadges({ peer }: { peer: StaffPeer }) {
  return (
    <>
      <Badge color={peer.active ? 'green' : 'red'} variant="light">
        {peer.active ? 'Activo' : 'Inactivo'}
      </Badge>
      {peer.processing && (
        <Badge color="yellow" variant="light" ml={4}>
          En curso
        </Badge>
      )}
      {peer.manual_payment && (
        <Badge color="grape" variant="light" ml={4}>
          Pago manual
        </Badge>
      )}
    </>
  );
}

/**
 * `compact` keeps the narrow form (client, server and expiry under the name) at every width: the user drawer is a
 * phone's width even on a desktop.
 */
export function PeerList({
  peers,
  actions,
  compact = false,
}: {
  peers: StaffPeer[];
  actions?: (peer: StaffPeer) => ReactNode;
  compact?: boolean;
}) {
  if (peers.length === 0) return <Text c="dimmed">Sin peers.</Text>;
  const expiry = (peer: StaffPeer) => dateTime(peer.expiration_date, 'Indeterminado');
  return (
    <RowTable
      rows={peers}
      rowKey={(peer) => peer.id}
      compact={compact}
      name={{
        header: 'Peer',
        cell: (peer) => (
          <NameWithActions actions={actions?.(peer)}>
            <Text fw={600}>{peer.name}</Text>
            <Text size="xs" c="dimmed">
              {peer.address}
              {peer.party ? ` · Sala ${peer.party.name}` : ''}
            </Text>
          </NameWithActions>
        ),
      }}
      columns={[
        { header: 'Cliente', cell: (peer) => peer.username, detail: (peer) => `Cliente ${peer.username}` },
        { header: 'Servidor', cell: (peer) => peer.server_name, detail: (peer) => peer.server_name },
        { header: 'Estado', cell: (peer) => <PeerStateBadges peer={peer} /> },
        { header: 'Vence', cell: expiry, detail: (peer) => `Vence: ${expiry(peer)}` },
      ]}
    />
  );
}
