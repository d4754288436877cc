/** /pagar/{token}: the page of a payment link, for someone paying a customer's plan without an account (family
 * abroad, a friend). It shows what is paid and for which device, nothing else of the account, and sends the payer to
 * the gateway; back from it (`?status=...&payment=...`) it tells that payment's state. docs/payments.md, "Payment links". */
import { Alert, Button, Card, Center, Container, Loader, SegmentedControl, Stack, Text, Title } from '@mantine/core';
import { IconRefresh } from '@tabler/icons-react';
import { useCallback, useEffect, useState } from 'react';
import { useParams, useSearchParams } from 'react-router';
import { PublicHeader } from '../../../components/PublicHeader';
import { errorMessage } from '../../../lib/api';
import { usePageTitle } from '../../../lib/page-title';
import { fetchPublicPaymentLink, payPublicPaymentLink, type PublicPaymentLink } from '../api/payment-links';
import { formatValidity } from '../validity';
import { formatPrice } from './PlanCard';

type State = { status: 'loading' } | { status: 'error'; message: string } | { status: 'ready'; link: PublicPaymentLink };

function PaymentState({ link, returned, onRefresh }: { link: PublicPaymentLink; returned: string | null; onRefresh: () => void }) {
  const payment = link.payment;
  if (!payment) return null;
  if (payment.status === 'fulfilled' || payment.status === 'paid') {
    return (
      <Alert color="teal" title="Pago recibido">
        Gracias. El plan {link.plan_name} se añadió al peer {link.peer_name}. ({payment.status_text})
      </Alert>
    );
  }
  if (payment.status === 'pending') {
    return (
      <Alert color="blue" title={returned === 'canceled' ? 'Pago no completado' : 'Esperando la confirmación del pago'}>
        <Stack gap="xs" align="flex-start">
          <Text size="sm">
            {returned === 'canceled'
              ? 'La pasarela indica que el pago no se completó. Puede intentarlo de nuevo.'
              : 'Cuando la pasarela confirme el pago, el plan se añadirá al peer. Puede tardar unos minutos.'}
          </Text>
          <Button size="xs" variant="light" leftSection={<IconRefresh size={14} />} onClick={onRefresh}>
            Actualizar
          </Button>
        </Stack>
      </Alert>
    );
  }
  return (
    <Alert color="yellow" title="Pago no completado">
      {payment.status_text}. Puede intentarlo de nuevo.
    </Alert>
  );
}

export function PayForOtherPage() {
  usePageTitle('Pagar un plan');
  const { token = '' } = useParams();
  const [params] = useSearchParams();
  const payment = params.get('payment');
  const returned = params.get('status');
  const [state, setState] = useState<State>({ status: 'loading' });
  const [gateway, setGateway] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);

  const load = useCallback(
    (signal?: AbortSignal) => {
      fetchPublicPaymentLink(token, payment, signal).then(
        (link) => {
          setState({ status: 'ready', link });
          setGateway((current) => current ?? link.gateways[0]?.name ?? null);
        },
        (error: unknown) => {
          if (!signal?.aborted) setState({ status: 'error', message: errorMessage(error, 'No se pudo abrir el enlace de pago') });
        },
      );
    },
    [token, payment],
  );

  useEffect(() => {
    const controller = new AbortController();
    load(controller.signal);
    return () => controller.abort();
  }, [load]);

  const pay = async () => {
    setProblem(null);
    setBusy(true);
    try {
      const answer = await payPublicPaymentLink(token, gateway);
      window.location.assign(answer.payment_url);
    } catch (error) {
      setProblem(errorMessage(error, 'Ocurrió un error al procesar el pago'));
      setBusy(false);
    }
  };

  return (
    <>
      <PublicHeader />
      <Container size="xs" py="xl">
        <Stack gap="lg">
          <Title order={1}>Pagar un plan</Title>
          {state.status === 'loading' && (
            <Center py="xl">
              <Loader aria-label="Cargando el enlace de pago" />
            </Center>
          )}
          {state.status === 'error' && (
            <Alert color="red" title="No se puede pagar con este enlace">
              {state.message}
            </Alert>
          )}
          {state.status === 'ready' && (
            <>
              <PaymentState link={state.link} returned={returned} onRefresh={() => load()} />
              <Card withBorder padding="lg" data-testid="payment-link-card">
                <Stack gap="xs">
                  <Text size="sm" c="dimmed">
                    {state.link.owner ? `${state.link.owner} le pide que pague:` : 'Le piden que pague:'}
                  </Text>
                  <Title order={2}>Plan {state.link.plan_name}</Title>
                  <Text>Para el peer: {state.link.peer_name}</Text>
                  <Text>Validez: {formatValidity(`${state.link.validity_hours}:00:00`)}</Text>
                  {state.link.plan_description && (
                    <Text size="sm" c="dimmed">
                      {state.link.plan_description}
                    </Text>
                  )}
                  <Text fw={700} size="xl">
                    {formatPrice(state.link.amount)}
                  </Text>
                  {state.link.gateways.length === 0 ? (
                    <Alert color="yellow">Los pagos en línea no están disponibles en este momento. Vuelva más tarde.</Alert>
                  ) : (
                    <>
                      {state.link.gateways.length > 1 && (
                        <SegmentedControl
                          aria-label="Pasarela de pago"
                          value={gateway ?? undefined}
                          onChange={setGateway}
                          data={state.link.gateways.map((choice) => ({ value: choice.name, label: choice.label }))}
                        />
                      )}
                      {problem && <Alert color="red">{problem}</Alert>}
                      <Button size="md" loading={busy} onClick={() => void pay()}>
                        Pagar con {state.link.gateways.find((choice) => choice.name === gateway)?.label ?? 'la pasarela'}
                      </Button>
                    </>
                  )}
                  <Text size="xs" c="dimmed">
                    No necesita una cuenta. Solo verá lo que paga. El enlace vence el{' '}
                    {new Date(state.link.expires_at).toLocaleDateString('es', { day: 'numeric', month: 'long', year: 'numeric' })}.
                  </Text>
                </Stack>
              </Card>
            </>
          )}
        </Stack>
      </Container>
    </>
  );
}
