/**
 * Home's "Requiere su atención": each peer whose server is offline, that two devices share, or that waits for an
 * operation, with the server's own words and the next step, and each payment in progress with where to complete it
 * (docs/webui.md, "States"). Expiring peers have their own warning beside it (ExpiryWarning).
 */
import { Alert, Button, Group, Stack, Text } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';
import { Link } from 'react-router';
import { changeServerPath } from '../../peers/peer-links';
import type { HomePeer, PendingPayment } from '../api/home';

/** A step inside the app (`to`) or the gateway's own payment page (`href`, in a new tab as the purchase opened it). */
type Action = { label: string; to: string } | { label: string; href: string };

interface Item {
  key: string;
  text: string;
  action: Action | null;
}

/** A payment started and not completed: what it buys, and reopening the gateway's page (or Facturas without it). */
function paymentItem(payment: PendingPayment): Item {
  const brand = payment.gateway_name;
  return {
    key: `payment-${payment.remote_id}`,
    text: `Pago en curso: plan ${payment.plan_name} para ${payment.peer_name} con ${brand}. Complete el pago en ${brand}; se aplicará en cuanto ${brand} lo confirme.`,
    action: payment.payment_url
      ? { label: `Completar el pago en ${brand}`, href: payment.payment_url }
      : { label: 'Ver Facturas', to: '/dashboard/invoices' },
  };
}

/** What needs the customer first (an offline server, two devices, a payment to complete), then what only needs
 * waiting (operations). */
export function attentionItems(peers: HomePeer[], payments: PendingPayment[] = []): Item[] {
  const offline: Item[] = [];
  const shared: Item[] = [];
  const running: Item[] = [];
  for (const peer of peers) {
    if (peer.server_notice) {
      offline.push({
        key: `${peer.id}-offline`,
        text: `${peer.name}: ${peer.server_notice}`,
        action: { label: 'Cambiar de servidor', to: changeServerPath(peer.id) },
      });
    }
    if (peer.shared_config_warning) {
      shared.push({
        key: `${peer.id}-devices`,
        text: `${peer.name}: se está usando en dos dispositivos a la vez y los dos se cortan entre sí. Use uno solo, compre un segundo peer o regenere este si no reconoce el otro dispositivo.`,
        action: { label: 'Ver en Peers', to: '/dashboard/peers' },
      });
    }
    if (peer.operation) {
      running.push({ key: `${peer.id}-operation`, text: `${peer.name}: ${peer.operation.message}`, action: null });
    }
  }
  return [...offline, ...shared, ...payments.map(paymentItem), ...running];
}

function ActionButton({ action }: { action: Action }) {
  if ('href' in action) {
    return (
      <Button component="a" href={action.href} target="_blank" rel="noopener" size="xs">
        {action.label}
      </Button>
    );
  }
  return (
    <Button component={Link} to={action.to} size="xs">
      {action.label}
    </Button>
  );
}

export function AttentionList({ peers, payments }: { peers: HomePeer[]; payments?: PendingPayment[] }) {
  const items = attentionItems(peers, payments);
  if (items.length === 0) return null;
  return (
    <Alert color="orange" icon={<IconAlertTriangle />} title="Requiere su atención" data-testid="home-attention">
      <Stack gap="xs">
        {items.map((item) => (
          <Group key={item.key} justify="space-between" wrap="wrap" gap="xs" data-testid="attention-item">
            <Text size="sm" style={{ flex: '1 1 16rem', minWidth: 0, overflowWrap: 'anywhere' }}>
              {item.text}
            </Text>
            {item.action && <ActionButton action={item.action} />}
          </Group>
        ))}
      </Stack>
    </Alert>
  );
}
