/** 'Pases de invitado' on the owner's room page: buy a time-boxed seat for a friend through the usual payment, then
 * copy the claim link and see who used it (docs/payments.md, "Guest passes"). */
import { Alert, Badge, Button, Card, CopyButton, Group, SegmentedControl, Select, Stack, Text } from '@mantine/core';
import { IconCopy, IconTicket } from '@tabler/icons-react';
import { useState } from 'react';
import { errorMessage } from '../../../lib/api';
import { usePublicConfig } from '../../../lib/public-config';
import { useRequest } from '../../../lib/use-request';
import { buyGuestPass, fetchGuestPassPlans, fetchGuestPasses, type GuestPassView } from '../api/guest-passes';
import { formatDateTime } from '../room-format';

const STATUS_COLOR: Record<string, string> = {
  pending_payment: 'blue',
  ready: 'teal',
  claimed: 'green',
};

function PassRow({ pass }: { pass: GuestPassView }) {
  return (
    <Card withBorder padding="sm" data-testid="guest-pass-row">
      <Group justify="space-between" gap="xs" wrap="wrap">
        <Text fw={600} style={{ overflowWrap: 'anywhere' }}>
          {pass.plan_name} · {pass.hours} h
        </Text>
        <Badge color={STATUS_COLOR[pass.status] ?? 'gray'} variant="light" miw="max-content">
          {pass.status_text}
        </Badge>
      </Group>
      {pass.guest && (
        <Text size="sm" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
          Invitado: {pass.guest}
          {pass.ends_at ? ` · hasta ${formatDateTime(pass.ends_at)}` : ''}
        </Text>
      )}
      {pass.url && (
        <Stack gap={4} mt={4}>
          <Text size="xs" c="dimmed" style={{ overflowWrap: 'anywhere' }} data-testid="guest-pass-url">
            {pass.url}
          </Text>
          <Group gap="xs" wrap="wrap">
            <CopyButton value={pass.url} timeout={2000}>
              {({ copied, copy }) => (
                <Button size="xs" variant="light" color={copied ? 'teal' : undefined} leftSection={<IconCopy size={14} />} onClick={copy}>
                  {copied ? 'Enlace copiado' : 'Copiar enlace'}
                </Button>
              )}
            </CopyButton>
            {pass.claim_by && (
              <Text size="xs" c="dimmed">
                Se puede reclamar hasta el {formatDateTime(pass.claim_by)}.
              </Text>
            )}
          </Group>
        </Stack>
      )}
      {pass.payment_url && (
        <Button component="a" href={pass.payment_url} size="xs" variant="subtle" mt={4} w="fit-content">
          Completar el pago
        </Button>
      )}
    </Card>
  );
}

export function GuestPassSection({ roomId }: { roomId: string }) {
  const config = usePublicConfig();
  const gateways = [
    { value: 'qvapay', label: 'QvaPay', on: config.allow_payments_qvapay },
    { value: 'remesita', label: 'Remesita', on: config.allow_payments_remesita },
  ].filter((gateway) => gateway.on);
  const plans = useRequest((signal) => fetchGuestPassPlans(signal));
  const passes = useRequest((signal) => fetchGuestPasses(roomId, signal));
  const [plan, setPlan] = useState<string | null>(null);
  const [gateway, setGateway] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);

  const choices = plans.state.status === 'success' ? plans.state.data : [];
  const bought = passes.state.status === 'success' ? passes.state.data : [];
  // Nothing until the plans arrive; nothing either when staff sell no passes and none was bought.
  if (plans.state.status === 'loading' || (choices.length === 0 && bought.length === 0)) return null;
  const chosenPlan = plan ?? choices[0]?.id ?? null;
  const chosenGateway = gateway ?? gateways[0]?.value ?? null;

  const buy = async () => {
    if (!chosenPlan) return;
    setProblem(null);
    setBusy(true);
    try {
      const answer = await buyGuestPass(roomId, chosenPlan, gateways.length > 1 ? chosenGateway : null);
      window.location.assign(answer.payment_url);
    } catch (error) {
      setProblem(errorMessage(error, 'No se pudo comprar el pase'));
      setBusy(false);
    }
  };

  return (
    <Card withBorder padding="md" data-testid="guest-passes">
      <Stack gap="sm">
        <Group gap="xs">
          <IconTicket size={18} />
          <Text fw={600}>Pases de invitado</Text>
        </Group>
        <Text size="sm" c="dimmed">
          Regale a un amigo un lugar en esta sala por un tiempo. Cuando el pago se confirme, copie el enlace y envíeselo:
          con su cuenta lo reclama y recibe un peer que solo sirve en esta sala y vence solo.
        </Text>
        {choices.length > 0 && (
          <Group gap="xs" align="flex-end" wrap="wrap">
            <Select
              label="Pase"
              value={chosenPlan}
              onChange={setPlan}
              allowDeselect={false}
              data={choices.map((choice) => ({
                value: choice.id,
                label: `${choice.name} · ${choice.hours} h · ${choice.price} USD`,
              }))}
              w={{ base: '100%', xs: 280 }}
            />
            {gateways.length > 1 && (
              <SegmentedControl aria-label="Pasarela de pago" value={chosenGateway ?? undefined} onChange={setGateway} data={gateways} />
            )}
            <Button loading={busy} disabled={gateways.length === 0} onClick={() => void buy()}>
              Comprar pase
            </Button>
          </Group>
        )}
        {gateways.length === 0 && (
          <Alert color="yellow">Los pagos en línea no están disponibles en este momento.</Alert>
        )}
        {problem && <Alert color="red">{problem}</Alert>}
        {passes.state.status === 'error' && (
          <Alert color="red">{errorMessage(passes.state.error, 'No se pudieron cargar los pases')}</Alert>
        )}
        {bought.length > 0 && (
          <Stack gap="xs">
            {bought.map((pass) => (
              <PassRow key={pass.id} pass={pass} />
            ))}
          </Stack>
        )}
      </Stack>
    </Card>
  );
}
