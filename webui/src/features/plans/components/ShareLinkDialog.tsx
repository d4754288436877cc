/** 'Compartir enlace de pago': a link for this plan on one of the customer's peers, which anyone can pay without an
 * account (family abroad, a friend); the live links, each with 'Copiar' and 'Anular'. docs/payments.md, "Payment links". */
import { Alert, Button, CopyButton, Group, Modal, Select, Stack, Text, TextInput } from '@mantine/core';
import { useEffect, useState } from 'react';
import { errorMessage } from '../../../lib/api';
import { toast } from '../../../lib/toasts';
import { createPaymentLink, fetchPaymentLinks, revokePaymentLink, type PaymentLinkView } from '../api/payment-links';
import type { Plan } from '../api/plans';
import type { PurchasablePeer } from '../api/purchase';
import { formatPrice } from './PlanCard';

export const SHARE_PEER_REQUIRED = 'Seleccione el peer que se pagará con el enlace.';

function expiry(link: PaymentLinkView): string {
  return new Date(link.expires_at).toLocaleDateString('es', { day: 'numeric', month: 'long', year: 'numeric' });
}

function LinkRow({ link, onRevoke }: { link: PaymentLinkView; onRevoke: (link: PaymentLinkView) => void }) {
  return (
    <Stack gap={4} data-testid="payment-link">
      <Text size="sm">
        {link.plan_name} para {link.peer_name} · {formatPrice(link.amount)} · vence el {expiry(link)}
      </Text>
      <Group gap="xs" wrap="nowrap">
        <TextInput value={link.url} readOnly aria-label={`Enlace de pago de ${link.peer_name}`} style={{ flex: 1, minWidth: 0 }} />
        <CopyButton value={link.url} timeout={2000}>
          {({ copied, copy }) => (
            <Button variant="light" color={copied ? 'teal' : undefined} onClick={copy}>
              {copied ? 'Copiado' : 'Copiar'}
            </Button>
          )}
        </CopyButton>
        <Button variant="subtle" color="red" onClick={() => onRevoke(link)}>
          Anular
        </Button>
      </Group>
    </Stack>
  );
}

export function ShareLinkDialog({ plan, peers, onClose }: { plan: Plan; peers: PurchasablePeer[]; onClose: () => void }) {
  const [peerId, setPeerId] = useState<string | null>(peers.length === 1 ? String(peers[0]?.id) : null);
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [links, setLinks] = useState<PaymentLinkView[]>([]);

  useEffect(() => {
    const controller = new AbortController();
    fetchPaymentLinks(controller.signal).then(setLinks, () => undefined);
    return () => controller.abort();
  }, []);

  const create = async () => {
    if (!peerId) {
      setProblem(SHARE_PEER_REQUIRED);
      return;
    }
    setProblem(null);
    setBusy(true);
    try {
      const answer = await createPaymentLink(peerId, String(plan.id));
      setLinks((current) => [answer.data, ...current]);
      toast.success(answer.message);
    } catch (error) {
      setProblem(errorMessage(error, 'No se pudo crear el enlace de pago'));
    } finally {
      setBusy(false);
    }
  };

  const revoke = async (link: PaymentLinkView) => {
    try {
      const answer = await revokePaymentLink(link.id);
      setLinks((current) => current.filter((candidate) => candidate.id !== link.id));
      toast.success(answer.message);
    } catch (error) {
      toast.error(errorMessage(error, 'No se pudo anular el enlace de pago'));
    }
  };

  return (
    <Modal opened onClose={onClose} title="Compartir enlace de pago" centered size="lg">
      <Stack gap="md">
        <Text size="sm">
          Cree un enlace para que otra persona pague el plan {plan.name} ({formatPrice(plan.price)}) por usted, sin
          necesidad de una cuenta. Quien lo abra verá solo el plan, el precio y el nombre del peer. El enlace vence
          en 7 días y puede anularlo cuando quiera.
        </Text>
        {peers.length === 0 ? (
          <Alert color="yellow">Primero necesita un peer que se pague en línea para compartir un enlace de pago.</Alert>
        ) : (
          <Group align="flex-end" wrap="wrap">
            <Select
              label="Peer"
              placeholder="Seleccione un peer"
              data={peers.map((peer) => ({ value: String(peer.id), label: peer.name }))}
              value={peerId}
              onChange={setPeerId}
              error={problem}
              style={{ flex: 1, minWidth: 200 }}
            />
            <Button loading={busy} onClick={() => void create()}>
              Crear enlace
            </Button>
          </Group>
        )}
        {links.length > 0 && (
          <Stack gap="sm">
            <Text fw={600}>Enlaces activos</Text>
            {links.map((link) => (
              <LinkRow key={link.id} link={link} onRevoke={(chosen) => void revoke(chosen)} />
            ))}
          </Stack>
        )}
      </Stack>
    </Modal>
  );
}
