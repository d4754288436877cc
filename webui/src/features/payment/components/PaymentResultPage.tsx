/** /dashboard/payment: the gateway's return page (status, transaction_uuid, remote_id query parameters). */
import { Alert, Button, Card, Group, Loader, Stack, Table, Text, ThemeIcon, Title } from '@mantine/core';
import { IconCheck, IconClock, IconQuestionMark, IconX } from '@tabler/icons-react';
import { useEffect } from 'react';
import { Link, useSearchParams } from 'react-router';
import { errorMessage } from '../../../lib/api';
import { useRequest } from '../../../lib/use-request';
import { fetchInvoice } from '../api/invoice';

const OUTCOMES = {
  success: { title: 'Pago Exitoso', color: 'green', icon: <IconCheck /> },
  canceled: { title: 'Pago Cancelado', color: 'red', icon: <IconX /> },
  unknown: { title: 'Estado de Pago Desconocido', color: 'gray', icon: <IconQuestionMark /> },
  pending: { title: 'Pago en Proceso', color: 'yellow', icon: <IconClock /> },
  checking: { title: 'Comprobando el pago...', color: 'blue', icon: <IconClock /> },
} as const;

type Outcome = keyof typeof OUTCOMES;

export function paymentOutcome(status: string | null): 'success' | 'canceled' | 'unknown' {
  return status === 'success' || status === 'canceled' ? status : 'unknown';
}

/** The invoice's own status wins over the return URL's (which anyone can edit, and a gateway may send early):
 * docs/webui.md, "Payment result". */
export function invoiceOutcome(status: string | undefined, claimed: Outcome): Outcome {
  if (status === 'fulfilled' || status === 'paid') return 'success';
  if (status === 'canceled' || status === 'expired' || status === 'failed') return 'canceled';
  // Still pending: a customer who canceled at the gateway sees that; anyone else waits for the confirmation.
  if (status === 'pending') return claimed === 'canceled' ? 'canceled' : 'pending';
  return claimed;
}

const PENDING_CHECK_MS = 3000;
const PENDING_CHECKS = 20;

const EXPLANATIONS: Partial<Record<string, string>> = {
  paid: 'El pago fue confirmado y su peer se está preparando; aparecerá en Peers en unos instantes.',
  pending:
    'La pasarela aún no ha confirmado el pago. Si ya pagó, la confirmación puede tardar unos minutos: compruebe de nuevo más tarde.',
  canceled: 'El pago se canceló en la pasarela; no se le cobró nada. Puede volver a los planes e intentarlo de nuevo.',
  expired: 'La factura venció sin que se recibiera el pago. Puede iniciar una compra nueva desde Planes.',
  failed: 'La pasarela no pudo completar el pago. Si se le cobró, contacte con soporte indicando el ID de transacción.',
};

function OutcomeHeader({ outcome }: { outcome: Outcome }) {
  const shown = OUTCOMES[outcome];
  return (
    <>
      <ThemeIcon size={56} radius="xl" color={shown.color}>
        {shown.icon}
      </ThemeIcon>
      <Title order={2}>{shown.title}</Title>
    </>
  );
}

function InvoiceSummary({ remoteId, transaction, claimed }: { remoteId: string; transaction: string | null; claimed: Outcome }) {
  const { state, reload, setData } = useRequest((signal) => fetchInvoice(remoteId, signal));
  const pending = state.status === 'success' && state.data.status === 'pending' && claimed !== 'canceled';
  // A gateway's confirmation can land seconds after the customer does: look again quietly for a while.
  useEffect(() => {
    if (!pending) return;
    const controller = new AbortController();
    let checks = 0;
    const timer = window.setInterval(() => {
      checks += 1;
      if (checks > PENDING_CHECKS) window.clearInterval(timer);
      fetchInvoice(remoteId, controller.signal).then(setData, () => undefined);
    }, PENDING_CHECK_MS);
    return () => {
      window.clearInterval(timer);
      controller.abort();
    };
  }, [pending, remoteId, setData]);
  if (state.status === 'loading') {
    return (
      <>
        <OutcomeHeader outcome="checking" />
        <Loader aria-label="Cargando factura" />
      </>
    );
  }
  if (state.status === 'error') {
    // Without the invoice nothing confirms the payment: never 'Pago Exitoso' beside 'Factura no encontrada'.
    return (
      <>
        <OutcomeHeader outcome={claimed === 'canceled' ? 'canceled' : 'unknown'} />
        <Alert color="red" role="alert" title="Error al obtener los detalles de la factura" w="100%">
          {errorMessage(state.error, 'Hubo un error al intentar cargar los datos de la factura.')}{' '}
          Compruebe en Peers si su compra se aplicó o contacte con soporte con el ID de transacción{' '}
          {transaction || 'No disponible'}.
        </Alert>
      </>
    );
  }
  const outcome = invoiceOutcome(state.data.status, claimed);
  const status = state.data.status;
  const explanation = status && !(status === 'pending' && outcome === 'canceled') ? EXPLANATIONS[status] : undefined;
  const rows: [string, string][] = [
    ['Plan', state.data.plan_name],
    ['Peer', state.data.peer_name],
    ['Monto', `${state.data.amount} USD`],
    // The gateway's return URL carries the id; the invoice knows it too when a gateway leaves it out.
    ['ID de transacción', transaction || state.data.transaction_uuid || 'No disponible'],
  ];
  return (
    <>
      <OutcomeHeader outcome={outcome} />
      {explanation && (
        <Text ta="center" size="sm">
          {explanation}
        </Text>
      )}
      <Table>
        <Table.Tbody>
          {rows.map(([label, value]) => (
            <Table.Tr key={label}>
              <Table.Th>{label}</Table.Th>
              <Table.Td>{value}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      {outcome === 'pending' && (
        <Button variant="light" onClick={reload}>
          Comprobar de nuevo
        </Button>
      )}
    </>
  );
}

/** A canceled payment offers the way back to the plans, where the customer may try again; else home. */
function ResultActions({ canceled }: { canceled: boolean }) {
  if (!canceled) {
    return (
      <Button component={Link} to="/dashboard/home">
        Volver al inicio
      </Button>
    );
  }
  return (
    <Group justify="center">
      <Button component={Link} to="/dashboard/plans">
        Volver a los planes
      </Button>
      <Button component={Link} to="/dashboard/home" variant="default">
        Volver al inicio
      </Button>
    </Group>
  );
}

export function PaymentResultPage() {
  const [params] = useSearchParams();
  const claimed = paymentOutcome(params.get('status'));
  // The URL's "canceled" is enough to offer a retry (the invoice's own status decides the heading).
  const shownCanceled = claimed === 'canceled';
  const remoteId = params.get('remote_id');
  const transaction = params.get('transaction_uuid');

  return (
    <Card withBorder padding="xl" maw={560} mx="auto">
      <Stack align="center" gap="md">
        {remoteId ? (
          <InvoiceSummary key={remoteId} remoteId={remoteId} transaction={transaction} claimed={claimed} />
        ) : (
          <>
            <OutcomeHeader outcome={claimed} />
            <Text c="dimmed">ID de transacción: {transaction || 'No disponible'}</Text>
          </>
        )}
        <ResultActions canceled={shownCanceled} />
      </Stack>
    </Card>
  );
}
