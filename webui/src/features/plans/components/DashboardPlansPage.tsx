/** /dashboard/plans: plan cards, the payment-gateway banner and the purchase dialog. */
import { Alert, Button, Stack, Text, Title } from '@mantine/core';
import { IconShieldCheck } from '@tabler/icons-react';
import { useState } from 'react';
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
import { PurchaseDialog } from './PurchaseDialog';


export function DashboardPlansPage() {
  const config = usePublicConfig();
  const { state, reload } = usePlans(true);
  const gateways = enabledGateways(config);
  const canPay = gateways.length > 0;
  const [purchase, setPurchase] = useState<{ plan: Plan; peers: PurchasablePeer[] } | null>(null);
  const [opening, setOpening] = useState<Plan['id'] | null>(null);

  const choose = async (plan: Plan) => {
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
      {state.status === 'loading' && <LoadingState />}
      {state.status === 'error' && (
        <SectionError message={errorMessage(state.error, 'Hubo un error al cargar los datos de los planes')} onRetry={reload} />
      )}
      {state.status === 'success' && state.data.length === 0 && (
        <Stack align="center" py="xl">
          <Text fw={600}>No hay planes disponibles</Text>
          {config.support_url && <Button onClick={openSupport}>Contactar Soporte</Button>}
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
                  <Button fullWidth loading={opening === plan.id} onClick={() => void choose(plan)}>
                    Seleccionar Plan
                  </Button>
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
      {purchase && (
        <PurchaseDialog
          plan={purchase.plan}
          peers={purchase.peers}
          gateways={gateways}
          onClose={() => setPurchase(null)}
        />
      )}
    </Stack>
  );
}
