/** 'Detalles': creation and expiration dates, live activity and the plan history (200 px list). */
import { Group, Modal, ScrollArea, Stack, Table, Text } from '@mantine/core';
import type { Peer, PeerStats } from '../api/peers';
import { formatDateTime, formatExpiration, formatPrice } from '../peer-format';
import { PeerActivity } from './PeerActivity';

/** Spec section 9: the plan history list is 200 px high. */
export const PLAN_HISTORY_HEIGHT = 200;

function Row({ label, value }: { label: string; value: string }) {
  return (
    <Group justify="space-between" wrap="nowrap">
      <Text size="sm" c="dimmed">
        {label}
      </Text>
      <Text size="sm">{value}</Text>
    </Group>
  );
}

interface Props {
  peer: Peer | null;
  stats: PeerStats | undefined;
  onClose: () => void;
}

export function PeerDetailsDialog({ peer, stats, onClose }: Props) {
  return (
    <Modal opened={peer !== null} onClose={onClose} title={peer ? `Detalles del peer ${peer.name}` : ''} centered size="lg">
      {peer && (
        <Stack gap="sm">
          <Row label="Fecha de creación" value={formatDateTime(peer.created)} />
          <Row label="Fecha de expiración" value={formatExpiration(peer.expiration_date)} />
          {peer.address && <Row label="Dirección IP privada" value={peer.address} />}
          <PeerActivity stats={stats} />
          <Text fw={600} mt="sm">
            Historial de planes
          </Text>
          <ScrollArea style={{ height: PLAN_HISTORY_HEIGHT }} data-testid="plan-history">
            {peer.plans_history.length === 0 ? (
              <Text size="sm" c="dimmed">
                Este peer aún no tiene planes registrados.
              </Text>
            ) : (
              <Table striped>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Plan</Table.Th>
                    <Table.Th>Precio</Table.Th>
                    <Table.Th>Fecha</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {peer.plans_history.map((entry, index) => (
                    <Table.Tr key={`${entry.created}-${index}`}>
                      <Table.Td>{entry.plan_name}</Table.Td>
                      <Table.Td>{formatPrice(entry.plan_price)}</Table.Td>
                      <Table.Td>{formatDateTime(entry.created)}</Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            )}
          </ScrollArea>
        </Stack>
      )}
    </Modal>
  );
}
