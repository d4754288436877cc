/** Purchase dialog: plan summary, 'Peer Existente' or 'Nuevo Peer', and 'Proceder al Pago' to the gateway. */
import { Alert, Button, Group, Modal, SegmentedControl, Select, Stack, Text, TextInput } from '@mantine/core';
import { useState } from 'react';
import { errorMessage } from '../../../lib/api';
import { toast } from '../../../lib/toasts';
import type { Plan } from '../api/plans';
import { createInvoice, type PurchasablePeer, type PurchaseMode } from '../api/purchase';
import type { Gateway } from '../gateways';
import { formatValidity } from '../validity';
import { formatPrice } from './PlanCard';
import type { StartedPayment } from './PaymentWaiting';

export const PEER_REQUIRED_MESSAGE = 'Por favor, seleccione un peer existente o ingrese un nombre para el nuevo peer';

interface Props {
  plan: Plan;
  peers: PurchasablePeer[];
  /** The enabled gateways; with more than one the customer picks (docs/webui.md). */
  gateways: Gateway[];
  /** The renew shortcut's peer: chosen already under 'Peer Existente'. */
  renewPeerId?: string | null;
  onClose: () => void;
  /** The payment window opened: the page shows the waiting state (PaymentWaiting). */
  onStarted: (payment: StartedPayment) => void;
}

export function PurchaseDialog({ plan, peers, gateways, renewPeerId, onClose, onStarted }: Props) {
  const hasPeers = peers.length > 0;
  // The purchase mode defaults to a new peer when the user has no eligible peer (docs/contract.md#purchase).
  const [mode, setMode] = useState<PurchaseMode>(hasPeers ? 'add_plan' : 'new_peer');
  // The selector works with strings; the chosen peer's id is sent as the server gave it.
  // The renewed peer, or the only one there is: nothing to choose then.
  const [peerId, setPeerId] = useState<string | null>(() => {
    if (peers.some((peer) => String(peer.id) === renewPeerId)) return renewPeerId ?? null;
    return peers.length === 1 ? String(peers[0]?.id) : null;
  });
  const [peerName, setPeerName] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [gateway, setGateway] = useState(gateways[0]?.id);

  const pay = async () => {
    const chosen = peers.find((candidate) => String(candidate.id) === peerId);
    const peer = mode === 'add_plan' ? (chosen?.id ?? null) : peerName.trim() || null;
    if (peer === null) {
      setProblem(PEER_REQUIRED_MESSAGE);
      return;
    }
    setProblem(null);
    setBusy(true);
    // Open the window inside the click so popup blockers allow it; it gets the gateway URL once known.
    const paymentWindow = window.open('', '_blank');
    try {
      const choice = gateways.length > 1 && gateway ? { gateway } : {};
      const answer = await createInvoice({ mode, plan: plan.id, peer, ...choice });
      if (paymentWindow) paymentWindow.location.href = answer.payment_url;
      else window.open(answer.payment_url, '_blank', 'noopener');
      onStarted({
        remoteId: answer.remote_id,
        gateway: answer.gateway,
        paymentUrl: answer.payment_url,
        planName: plan.name,
      });
    } catch (error) {
      paymentWindow?.close();
      toast.error(errorMessage(error, 'Ocurrió un error al procesar el pago'));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal opened onClose={onClose} title="Adquirir plan" centered>
      <Stack gap="md">
        <Stack gap={2}>
          <Text fw={700}>{plan.name}</Text>
          <Text size="sm">Precio: {formatPrice(plan.price)}</Text>
          <Text size="sm">Validez: {formatValidity(plan.validity)}</Text>
        </Stack>
        {hasPeers && (
          <SegmentedControl
            value={mode}
            onChange={(value) => {
              setMode(value as PurchaseMode);
              setProblem(null);
            }}
            data={[
              { value: 'add_plan', label: 'Peer Existente' },
              { value: 'new_peer', label: 'Nuevo Peer' },
            ]}
          />
        )}
        {mode === 'add_plan' ? (
          <Select
            label="Peer"
            placeholder="Seleccione un peer"
            data={peers.map((peer) => ({ value: String(peer.id), label: peer.name }))}
            value={peerId}
            onChange={setPeerId}
            comboboxProps={{ withinPortal: false }}
          />
        ) : (
          <TextInput
            label="Nombre del nuevo peer"
            value={peerName}
            onChange={(event) => setPeerName(event.currentTarget.value)}
          />
        )}
        {gateways.length > 1 && (
          <Stack gap={4}>
            <Text size="sm" fw={500}>
              Pasarela de pago
            </Text>
            <SegmentedControl
              aria-label="Pasarela de pago"
              value={gateway}
              onChange={(value) => setGateway(value as Gateway['id'])}
              data={gateways.map((option) => ({ value: option.id, label: option.label }))}
            />
          </Stack>
        )}
        {problem && (
          <Alert color="red" role="alert">
            {problem}
          </Alert>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose} disabled={busy}>
            Cancelar
          </Button>
          <Button onClick={() => void pay()} loading={busy}>
            Proceder al Pago
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
