/** A compact table of peers as staff see them (owner, server, state, expiry), with optional row actions. */
import { Badge, Table, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import type { StaffPeer } from '../api/manager';
import { dateTime } from '../format';
import { NameWithActions } from './NameWithActions';

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

export function PeerList({ peers, actions }: { peers: StaffPeer[]; actions?: (peer: StaffPeer) => ReactNode }) {
  if (peers.length === 0) return <Text c="dimmed">Sin peers.</Text>;
  return (
    <Table.ScrollContainer minWidth={700}>
      <Table striped>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Peer</Table.Th>
            <Table.Th>Cliente</Table.Th>
            <Table.Th>Servidor</Table.Th>
            <Table.Th>Estado</Table.Th>
            <Table.Th>Vence</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {peers.map((peer) => (
            <Table.Tr key={peer.id}>
              <Table.Td>
                <NameWithActions actions={actions?.(peer)}>
                  <Text fw={600}>{peer.name}</Text>
                  <Text size="xs" c="dimmed">
                    {peer.address}
                    {peer.party ? ` · Sala ${peer.party.name}` : ''}
                  </Text>
                </NameWithActions>
              </Table.Td>
              <Table.Td>{peer.username}</Table.Td>
              <Table.Td>{peer.server_name}</Table.Td>
              <Table.Td>
                <PeerStateBadges peer={peer} />
              </Table.Td>
              <Table.Td>{dateTime(peer.expiration_date, 'Indeterminado')}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
