/** /manager/dashboard/invoices: filter by status and gateway, read the gateway's record, mark a manual payment. */
import { Badge, Button, Code, Drawer, Group, ScrollArea, Select, Stack, Text, TextInput, Title } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useState } from 'react';
import { useConfirmation } from '../../../components/ConfirmDialog';
import { LoadingState } from '../../../components/LoadingState';
import { SectionError } from '../../../components/SectionError';
import { errorMessage } from '../../../lib/api';
import { useManagerTitle } from '../manager-title';
import { useRequest } from '../../../lib/use-request';
import { useSocketOpened } from '../../realtime';
import { managerApi, type StaffInvoice } from '../api/manager';
import { dateTime } from '../format';
import { useAction } from '../hooks/use-action';
import { useKeyedRequest } from '../hooks/use-keyed-request';
import { useStaff } from '../staff';
import { NameWithActions } from './NameWithActions';
import { RowTable } from './RowTable';
import { Paginator } from './Paginator';

export const INVOICE_STATUS: Record<string, { label: string; color: string }> = {
  pending: { label: 'Pendiente', color: 'yellow' },
  paid: { label: 'Pagada', color: 'blue' },
  fulfilled: { label: 'Completada', color: 'green' },
  canceled: { label: 'Cancelada', color: 'gray' },
  expired: { label: 'Vencida', color: 'gray' },
  failed: { label: 'Fallida', color: 'red' },
};
// What an admin may settle by hand (docs/api.md): a failed or canceled invoice overrides the gateway's last word,
// so it needs the admin's reason (the server answers 422 note_required without one).
const CREDITABLE = ['pending', 'expired', 'canceled', 'failed'];
const REASON_REQUIRED = ['failed', 'canceled'];

export function InvoiceStatusBadge({ status }: { status: string }) {
  const known = INVOICE_STATUS[status];
  return <Badge color={known?.color ?? 'gray'}>{known?.label ?? status}</Badge>;
}

function ManualPaymentForm({
  status,
  note,
  onNote,
  busy,
  onSubmit,
  refused,
}: {
  status: string;
  note: string;
  onNote: (note: string) => void;
  busy: boolean;
  onSubmit: () => void;
  refused?: string;
}) {
  const needsReason = REASON_REQUIRED.includes(status);
  const missing = needsReason && note.trim() === '';
  return (
    <Stack gap="xs">
      {needsReason && (
        <Text size="sm" c="orange">
          {status === 'failed' ? 'La pasarela marcó esta factura como fallida.' : 'La pasarela marcó este pago como cancelado.'} Márquela como pagada solo si comprobó que el
          dinero llegó, e indique cómo.
        </Text>
      )}
      <TextInput
        label={needsReason ? 'Motivo del pago manual' : 'Nota del pago manual'}
        placeholder="p. ej. transferencia 1234"
        required={needsReason}
        maxLength={200}
        value={note}
        error={refused}
        onChange={(e) => onNote(e.currentTarget.value)}
      />
      <Button loading={busy} disabled={missing} onClick={onSubmit}>
        Marcar como pagada
      </Button>
    </Stack>
  );
}

function InvoiceDrawer({ id, onClose, onChanged }: { id: string; onClose: () => void; onChanged: (invoice: StaffInvoice) => void }) {
  const { isAdmin } = useStaff();
  const { state, reload, setData, refresh } = useRequest((signal) => managerApi.invoice(id, signal));
  useSocketOpened(refresh); // a payment may have landed while the socket was down (docs/webui.md, live socket)
  const [note, setNote] = useState('');
  const [busy, act, refused, clearRefused] = useAction();
  const invoice = state.status === 'success' ? state.data : null;
  const confirmation = useConfirmation();
  const markPaid = () => {
    if (!invoice) return;
    confirmation.ask({
      title: 'Marcar como pagada',
      message: `¿Marcar como pagada la factura de ${invoice.amount} USD de ${invoice.username}?`,
      confirmLabel: 'Marcar como pagada',
      onConfirm: async () => {
        const next = await act(() => managerApi.markPaid(invoice.id, note), 'Pago manual registrado.');
        if (next) {
          setData(next);
          onChanged(next);
        }
      },
    });
  };
  return (
    <Drawer opened onClose={onClose} position="right" size="lg" title="Factura">
      {confirmation.dialog}
      {state.status === 'loading' && <LoadingState />}
      {state.status === 'error' && <SectionError message={errorMessage(state.error, 'Hubo un error al cargar los datos.')} onRetry={reload} />}
      {invoice && (
        <Stack>
          <Group>
            <InvoiceStatusBadge status={invoice.status} />
            {invoice.manual && <Badge color="grape">Pago manual</Badge>}
          </Group>
          <Text>
            <b>{invoice.username}</b> · {invoice.plan_name} · {invoice.amount} USD · {invoice.gateway_label}
          </Text>
          <Text size="sm">
            {invoice.mode === 'guest_pass'
              ? 'Pase de invitado para una sala'
              : `${invoice.mode === 'new_peer' ? 'Peer nuevo' : 'Añadir plan'}: ${invoice.peer_name}`}
          </Text>
          <Text size="sm">Creada: {dateTime(invoice.created)} · Pagada: {dateTime(invoice.paid_at, '—')}</Text>
          <Text size="sm">Referencia: {invoice.remote_id} · Transacción: {invoice.transaction_id ?? '—'}</Text>
          {invoice.problem && <Text c="red">{invoice.problem}</Text>}
          <Title order={5}>Registro de la pasarela</Title>
          <ScrollArea.Autosize mah={300}>
            <Code block>{JSON.stringify(invoice.gateway_record ?? null, null, 2)}</Code>
          </ScrollArea.Autosize>
          {isAdmin && CREDITABLE.includes(invoice.status) && (
            <ManualPaymentForm
              status={invoice.status}
              note={note}
              onNote={(next) => {
                clearRefused('note');
                setNote(next);
              }}
              busy={busy}
              onSubmit={markPaid}
              refused={refused.note}
            />
          )}
        </Stack>
      )}
    </Drawer>
  );
}

export function InvoicesPage() {
  useManagerTitle('Facturas');
  const [search, setSearch] = useState('');
  const [q] = useDebouncedValue(search, 300);
  const [status, setStatus] = useState<string | null>(null);
  const [gateway, setGateway] = useState<string | null>(null);
  const [page, setPage] = useState(1);
  const [openId, setOpenId] = useState<string | null>(null);
  const { state, reload, setData, refresh } = useKeyedRequest(`${q}|${status}|${gateway}|${page}`, (signal) =>
    managerApi.invoices({ q, status: status ?? '', gateway: gateway ?? '', page }, signal),
  );
  useSocketOpened(refresh);
  const replace = (invoice: StaffInvoice) => {
    if (state.status === 'success') setData({ ...state.data, items: state.data.items.map((i) => (i.id === invoice.id ? invoice : i)) });
  };
  return (
    <Stack>
      <Title order={2}>Facturas</Title>
      <Group>
        <TextInput aria-label="Buscar facturas" placeholder="Cliente, peer o referencia" value={search} onChange={(e) => { setSearch(e.currentTarget.value); setPage(1); }} />
        <Select
          aria-label="Estado"
          placeholder="Estado"
          clearable
          data={Object.entries(INVOICE_STATUS).map(([value, { label }]) => ({ value, label }))}
          value={status}
          onChange={(v) => { setStatus(v); setPage(1); }}
        />
        <Select
          aria-label="Pasarela"
          placeholder="Pasarela"
          clearable
          data={[{ value: 'qvapay', label: 'QvaPay' }, { value: 'remesita', label: 'Remesita' }]}
          value={gateway}
          onChange={(v) => { setGateway(v); setPage(1); }}
        />
      </Group>
      {state.status === 'loading' && <LoadingState />}
      {state.status === 'error' && <SectionError message={errorMessage(state.error, 'Hubo un error al cargar los datos.')} onRetry={reload} />}
      {state.status === 'success' && (
        <>
          {state.data.items.length === 0 ? (
            <Text c="dimmed">Sin facturas.</Text>
          ) : (
            <RowTable
              rows={state.data.items}
              rowKey={(invoice) => invoice.id}
              name={{
                header: 'Cliente',
                cell: (invoice) => (
                  <NameWithActions
                    actions={
                      <Button size="xs" variant="light" onClick={() => setOpenId(invoice.id)} aria-label={`Ver la factura de ${invoice.username}`}>
                        Ver
                      </Button>
                    }
                  >
                    <Text fw={600}>{invoice.username}</Text>
                    <Text size="xs" c="dimmed">
                      {dateTime(invoice.created)}
                    </Text>
                  </NameWithActions>
                ),
              }}
              columns={[
                {
                  header: 'Plan',
                  cell: (invoice) => `${invoice.plan_name} · ${invoice.peer_name}`,
                  detail: (invoice) => `${invoice.plan_name} · ${invoice.peer_name}`,
                },
                { header: 'Importe', cell: (invoice) => `${invoice.amount} USD`, detail: (invoice) => `${invoice.amount} USD` },
                { header: 'Pasarela', cell: (invoice) => invoice.gateway_label, detail: (invoice) => invoice.gateway_label },
                { header: 'Estado', cell: (invoice) => <InvoiceStatusBadge status={invoice.status} /> },
              ]}
            />
          )}
          <Paginator total={state.data.total} page={page} pageSize={state.data.page_size} onChange={setPage} />
        </>
      )}
      {openId && <InvoiceDrawer id={openId} onClose={() => setOpenId(null)} onChanged={replace} />}
    </Stack>
  );
}
