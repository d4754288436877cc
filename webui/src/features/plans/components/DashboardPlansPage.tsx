/** /dashboard/plans: plan cards, the payment-gateway banner and the purchase dialog. */
import { Alert, Button, Stack, Text, Title } from '@mantine/core';
import { IconInfoCircle, IconShieldCheck } from '@tabler/icons-react';
import { useEffect, useRef, useState } from 'react';
import { useSearchParams } from 'react-router';
import { LoadingState } from '../../../components/LoadingState';
import { SectionError } from '../../../components/SectionError';
import { errorMessage } from '../../../lib/api';
import { usePublicConfig } from '../../../lib/public-config';
import { toast } from '../../../lib/toasts';
import type { Plan } from '../api/plans';
import { usePlans } from '../hooks/usePlans';
import { fetchEligiblePeers, type PurchasablePeer } from '../api/purchase';
import { enabledGateways } from '../gateways';
import { PlanCard } from './PlanCard';
import { PlanGrid } from './PlanGrid';
import { PaymentWaiting, type StartedPayment } from './PaymentWaiting';
import { PurchaseDialog } from './PurchaseDialog';
import { ShareLinkDialog } from './ShareLinkDialog';


/** The plan a renewal offers first: the one the peer last bought, if still sold, or the only plan. */
export function renewalPlan(plans: Plan[], peer: PurchasablePeer): Plan | null {
  const last = peer.plans_history?.at(-1)?.plan_name;
  return plans.find((plan) => plan.name === last) ?? (plans.length === 1 ? (plans[0] ?? null) : null);
}

type Renewal = { status: 'loading' } | { status: 'ready'; peer: PurchasablePeer; peers: PurchasablePeer[] } | { status: 'unavailable' };

/** `?renew={peer id}` (the peers list's Renovar and the reminder emails): the purchase dialog opens on that peer. */
function useRenewal(renewId: string | null): Renewal | null {
  const [renewal, setRenewal] = useState<Renewal | null>(renewId ? { status: 'loading' } : null);
  useEffect(() => {
    if (!renewId) {
      setRenewal(null);
      return;
    }
    const controller = new AbortController();
    setRenewal({ status: 'loading' });
    fetchEligiblePeers(controller.signal)
      .then((peers) => {
        const peer = peers.find((candidate) => String(candidate.id) === renewId);
        setRenewal(peer ? { status: 'ready', peer, peers } : { status: 'unavailable' });
      })
      .catch(() => {
        if (!controller.signal.aborted) setRenewal({ status: 'unavailable' });
      });
    return () => controller.abort();
  }, [renewId]);
  return renewal;
}

export function DashboardPlansPage() {
  const config = usePublicConfig();
  const { state, reload } = usePlans(true);
  const gateways = enabledGateways(config);
  const canPay = gateways.length > 0;
  const [params, setParams] = useSearchParams();
  const renewal = useRenewal(params.get('renew'));
  const [purchase, setPurchase] = useState<{ plan: Plan; peers: PurchasablePeer[]; renewPeerId?: string } | null>(null);
  const [opening, setOpening] = useState<Plan['id'] | null>(null);
  const [sharing, setSharing] = useState<{ plan: Plan; peers: PurchasablePeer[] } | null>(null);
  const [started, setStarted] = useState<StartedPayment | null>(null);
  const renewing = renewal?.status === 'ready' ? renewal.peer : null;
  const plans = state.status === 'success' ? state.data : null;

  // Opens the dialog by itself once, when the renewed peer's plan is known; otherwise the banner asks for a plan.
  const autoOpened = useRef<string | null>(null);
  useEffect(() => {
    if (!canPay || !plans || renewal?.status !== 'ready') return;
    const id = String(renewal.peer.id);
    if (autoOpened.current === id) return;
    autoOpened.current = id;
    const plan = renewalPlan(plans, renewal.peer);
    if (plan) setPurchase({ plan, peers: renewal.peers, renewPeerId: id });
  }, [canPay, plans, renewal]);

  const choose = async (plan: Plan) => {
    if (renewal?.status === 'ready') {
      setPurchase({ plan, peers: renewal.peers, renewPeerId: String(renewal.peer.id) });
      return;
    }
    setOpening(plan.id);
    try {
      setPurchase({ plan, peers: await fetchEligiblePeers() });
    } catch (error) {
      toast.error(errorMessage(error, 'Hubo un error al cargar los datos de los peers'));
      setPurchase({ plan, peers: [] });
    } finally {
      setOpening(null);
    }
  };
  const share = async (plan: Plan) => {
    try {
      setSharing({ plan, peers: await fetchEligiblePeers() });
    } catch (error) {
      toast.error(errorMessage(error, 'Hubo un error al cargar los datos de los peers'));
    }
  };
  const stopRenewing = () => {
    setParams((current) => {
      const next = new URLSearchParams(current);
      next.delete('renew');
      return next;
    });
  };

  const openSupport = () => window.open(config.support_url, '_blank', 'noopener');

  return (
    <Stack gap="lg">
      <Title order={2}>Planes</Title>
      {canPay && (
        <Alert color="teal" icon={<IconShieldCheck />} title="Pago seguro">
          Los pagos se procesan de forma segura a través de {gateways.map((g) => g.label).join(' o ')},{' '}
          {gateways.length === 1 ? 'nuestro proveedor de pagos seguro.' : 'nuestros proveedores de pagos seguros.'}
        </Alert>
      )}
      {!canPay && (
        <Alert color="yellow" icon={<IconInfoCircle />} title="Pagos en línea no disponibles">
          {config.support_url
            ? 'Los pagos en línea no están disponibles en este momento. Pulse Contáctanos en el plan que desee y nuestro equipo de soporte le ayudará a adquirirlo.'
            : 'Los pagos en línea no están disponibles en este momento. Vuelva a consultar esta página más tarde.'}
        </Alert>
      )}
      {started && (
        <PaymentWaiting
          key={started.remoteId}
          payment={started}
          onDismiss={() => setStarted(null)}
          onRetry={() => {
            const plan = plans?.find((candidate) => candidate.name === started.planName);
            setStarted(null);
            if (plan) void choose(plan);
          }}
        />
      )}
      {renewing && (
        <Alert color="blue" title={`Renovar el peer ${renewing.name}`} withCloseButton closeButtonLabel="Cancelar renovación" onClose={stopRenewing}>
          Elija el plan con el que desea renovarlo; el tiempo se suma a la fecha de vencimiento actual.
        </Alert>
      )}
      {renewal?.status === 'unavailable' && (
        <Alert color="yellow" title="No se puede renovar este peer aquí" withCloseButton closeButtonLabel="Cerrar" onClose={stopRenewing}>
          El peer no existe o se paga de forma manual.{' '}
          {config.support_url ? 'Contacte con soporte para renovarlo.' : 'Consulte con el equipo de soporte para renovarlo.'}
        </Alert>
      )}
      {state.status === 'loading' && <LoadingState />}
      {state.status === 'error' && (
        <SectionError message={errorMessage(state.error, 'Hubo un error al cargar los datos de los planes')} onRetry={reload} />
      )}
      {state.status === 'success' && state.data.length === 0 && (
        <Stack align="center" py="xl">
          <Text fw={600}>No hay planes disponibles</Text>
          {config.support_url ? (
            <Button onClick={openSupport}>Contactar Soporte</Button>
          ) : (
            <Text c="dimmed" size="sm">
              Vuelva a consultar esta página más tarde.
            </Text>
          )}
        </Stack>
      )}
      {state.status === 'success' && state.data.length > 0 && (
        <PlanGrid count={state.data.length}>
          {state.data.map((plan) => (
            <PlanCard
              key={plan.id}
              plan={plan}
              action={
                canPay ? (
                  <Stack gap="xs">
                    <Button fullWidth loading={opening === plan.id} onClick={() => void choose(plan)}>
                      Seleccionar Plan
                    </Button>
                    <Button fullWidth variant="subtle" onClick={() => void share(plan)}>
                      Compartir enlace de pago
                    </Button>
                  </Stack>
                ) : (
                  config.support_url && (
                    <Button fullWidth variant="light" onClick={openSupport}>
                      Contáctanos
                    </Button>
                  )
                )
              }
            />
          ))}
        </PlanGrid>
      )}
      {sharing && <ShareLinkDialog plan={sharing.plan} peers={sharing.peers} onClose={() => setSharing(null)} />}
      {purchase && (
        <PurchaseDialog
          plan={purchase.plan}
          peers={purchase.peers}
          gateways={gateways}
          renewPeerId={purchase.renewPeerId}
          onClose={() => setPurchase(null)}
          onStarted={(payment) => {
            setPurchase(null);
            setStarted(payment);
          }}
        />
      )}
    </Stack>
  );
}
