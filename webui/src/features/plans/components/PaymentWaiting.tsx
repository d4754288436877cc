/**
 * The plans page while a payment window is open: "Complete el pago en la ventana de QvaPay" (or Remesita), then,
 * without a reload, what happened. The invoice is read again while the tab is visible (useBusyPolling: at once when
 * a peer push arrives, else every few seconds) and whenever the customer comes back to the tab; a hidden tab asks
 * nothing (data costs money for many customers).
 */
import { Alert, Anchor, Button, Group, Loader, Text } from '@mantine/core';
import { IconCheck, IconX } from '@tabler/icons-react';
import { useCallback, useEffect, useState } from 'react';
import { Link } from 'react-router';
import { fetchInvoice, type InvoiceDetails } from '../../payment/api/invoice';
import { useBusyPolling } from '../../realtime/use-busy-polling';
import { gatewayLabel } from '../gateways';

export interface StartedPayment {
  remoteId: string;
  gateway: string;
  paymentUrl: string;
  planName: string;
}

type Stage = 'waiting' | 'paid' | 'canceled';

/** What an invoice status means to the waiting tab. */
export function stageOf(status: string | undefined): Stage {
  if (status === 'paid' || status === 'fulfilled') return 'paid';
  if (status === 'canceled' || status === 'expired' || status === 'failed') return 'canceled';
  return 'waiting';
}

function usePageVisible(): boolean {
  const [visible, setVisible] = useState(() => document.visibilityState !== 'hidden');
  useEffect(() => {
    const update = () => setVisible(document.visibilityState !== 'hidden');
    document.addEventListener('visibilitychange', update);
    return () => document.removeEventListener('visibilitychange', update);
  }, []);
  return visible;
}

interface Props {
  payment: StartedPayment;
  onRetry: () => void;
  onDismiss: () => void;
}

export function PaymentWaiting({ payment, onRetry, onDismiss }: Props) {
  const [invoice, setInvoice] = useState<InvoiceDetails | null>(null);
  const stage = stageOf(invoice?.status);
  const visible = usePageVisible();
  const check = useCallback(
    () => fetchInvoice(payment.remoteId).then(setInvoice, () => undefined),
    [payment.remoteId],
  );
  useBusyPolling(stage === 'waiting' && visible, ['created_peer', 'updated_peer'], check);
  // Coming back to this tab from the gateway's window: look at once.
  useEffect(() => {
    if (visible && stage === 'waiting') void check();
  }, [visible, stage, check]);

  const label = gatewayLabel(payment.gateway);
  if (stage === 'paid') {
    return (
      <Alert color="green" icon={<IconCheck />} title="Pago recibido" data-testid="payment-waiting" withCloseButton closeButtonLabel="Cerrar" onClose={onDismiss}>
        <Text size="sm">
          {label} confirmó el pago del plan {payment.planName}
          {invoice?.peer_name ? ` para el peer ${invoice.peer_name}` : ''}.{' '}
          {invoice?.status === 'fulfilled' ? 'Ya está listo en Peers.' : 'Su peer se está preparando y aparecerá en Peers en unos instantes.'}
        </Text>
        <Anchor component={Link} to="/dashboard/peers" size="sm">
          Ir a Peers
        </Anchor>
      </Alert>
    );
  }
  if (stage === 'canceled') {
    return (
      <Alert color="red" icon={<IconX />} title="Pago no completado" data-testid="payment-waiting">
        <Text size="sm">
          {invoice?.status === 'expired'
            ? 'La factura venció sin que se recibiera el pago.'
            : invoice?.status === 'failed'
              ? `${label} no pudo completar el pago. Si se le cobró, contacte con soporte.`
              : `El pago se canceló en ${label}; no se le cobró nada.`}{' '}
          Puede intentarlo de nuevo o elegir otro plan.
        </Text>
        <Group gap="xs" mt="xs">
          <Button size="xs" onClick={onRetry}>
            Intentar de nuevo
          </Button>
          <Button size="xs" variant="default" onClick={onDismiss}>
            Elegir otro plan
          </Button>
        </Group>
      </Alert>
    );
  }
  return (
    <Alert color="blue" icon={<Loader size={18} />} title={`Complete el pago en la ventana de ${label}`} data-testid="payment-waiting">
      <Text size="sm">
        Plan {payment.planName}. Esta página se actualizará sola cuando {label} confirme el pago.
      </Text>
      <Group gap="md" mt="xs">
        <Anchor href={payment.paymentUrl} target="_blank" rel="noopener" size="sm">
          Abrir de nuevo la ventana de {label}
        </Anchor>
        <Anchor component="button" type="button" size="sm" onClick={onDismiss}>
          Ocultar este aviso
        </Anchor>
      </Group>
    </Alert>
  );
}
