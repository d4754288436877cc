/** 'Detalles': creation and expiration dates, live activity, usage history and the plan history (200 px list). */
import { Button, Divider, Group, Modal, ScrollArea, Stack, Switch, Table, Text, TextInput } from '@mantine/core';
import { useState } from 'react';
import type { Peer, PeerStats } from '../api/peers';
import type { MirrorBindingChange } from '../hooks/use-peers';
import { formatDateTime, formatExpiration, formatPrice } from '../peer-format';
import { serverLabel } from '../server-label';
import { PeerActivity } from './PeerActivity';
import { PeerUsage } from './PeerUsage';

/** docs/contract.md#constants: the plan history list is 200 px high. */
export const PLAN_HISTORY_HEIGHT = 200;

function Row({ label, value }: { label: string; value: string }) {
  return (
    <Group justify="space-between" wrap="nowrap">
      <Text size="sm" c="dimmed">
        {label}
      </Text>
      <Text size="sm" ta="right" style={{ minWidth: 0, overflowWrap: 'anywhere' }}>
        {value}
      </Text>
    </Group>
  );
}

interface Props {
  peer: Peer | null;
  stats: PeerStats | undefined;
  onClose: () => void;
  onBindMirror: (peer: Peer, change: MirrorBindingChange) => Promise<void>;
}

/** The mirror link bound to one device (docs/api.md, "Mirror links"): off by default. A device is bound only when
 * the owner types here the code that device shows, so a stranger holding the link is never bound. */
function MirrorBinding({ peer, onBindMirror }: { peer: Peer; onBindMirror: Props['onBindMirror'] }) {
  const [saving, setSaving] = useState(false);
  const [code, setCode] = useState('');
  const change = async (what: MirrorBindingChange) => {
    setSaving(true);
    try {
      await onBindMirror(peer, what);
    } finally {
      setSaving(false);
    }
  };
  const bound = Boolean(peer.mirror_bound);
  return (
    <Stack gap={6} data-testid="mirror-binding">
      <Switch
        checked={Boolean(peer.mirror_binding)}
        disabled={saving || !peer.active}
        onChange={(event) => void change(event.currentTarget.checked ? 'on' : 'off')}
        label="Vincular el mirror link a un dispositivo"
        description="Solo el dispositivo cuyo código de vinculación confirme aquí podrá descargar la configuración con el enlace."
      />
      {peer.mirror_binding && (
        <>
          <Group justify="space-between" wrap="nowrap">
            <Text size="sm" c="dimmed">
              {bound ? 'Vinculado a un dispositivo.' : 'Ningún dispositivo vinculado todavía.'}
            </Text>
            {bound && (
              <Button size="xs" variant="light" disabled={saving} onClick={() => void change('release')}>
                Liberar dispositivo
              </Button>
            )}
          </Group>
          <Group align="end" wrap="nowrap">
            <TextInput
              size="xs"
              label="Código de vinculación"
              description="El que muestra la aplicación en el dispositivo."
              inputMode="numeric"
              maxLength={6}
              value={code}
              onChange={(event) => setCode(event.currentTarget.value.replace(/\D/g, ''))}
            />
            <Button
              size="xs"
              disabled={saving || code.length !== 6}
              onClick={() => void change({ code }).then(() => setCode(''))}
            >
              Vincular
            </Button>
          </Group>
        </>
      )}
    </Stack>
  );
}

export function PeerDetailsDialog({ peer, stats, onClose, onBindMirror }: Props) {
  return (
    <Modal opened={peer !== null} onClose={onClose} title={peer ? `Detalles del peer ${peer.name}` : ''} centered size="lg">
      {peer && (
        <Stack gap="sm">
          <Row label="Fecha de creación" value={formatDateTime(peer.created)} />
          <Row label="Fecha de expiración" value={formatExpiration(peer.expiration_date)} />
          {peer.address && <Row label="Dirección IP privada" value={peer.address} />}
          {peer.server && <Row label="Servidor" value={serverLabel(peer.server)} />}
          {peer.last_outcome && (
            <Row
              label="Última operación"
              value={`${peer.last_outcome.message} (${formatDateTime(peer.last_outcome.at)})`}
            />
          )}
          <PeerActivity stats={stats} />
          <Divider />
          <MirrorBinding peer={peer} onBindMirror={onBindMirror} />
          <Divider />
          <PeerUsage peerId={peer.id} />
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
