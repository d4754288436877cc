import { notifications } from '@mantine/notifications';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeWebSocket } from '../../realtime/testing/fake-web-socket';
import * as manager from '../api/manager';
import type { StaffInvoice, StaffInvoiceDetail, StaffUser } from '../api/manager';
import { renderManagerPage, SUPPORT } from '../testing/manager-factory';
import { InvoicesPage } from './InvoicesPage';

vi.mock('../api/manager', async (importOriginal) => {
  const original = await importOriginal<typeof import('../api/manager')>();
  return { ...original, managerApi: { ...original.managerApi, invoices: vi.fn(), invoice: vi.fn(), markPaid: vi.fn() } };
});
const api = vi.mocked(manager.managerApi);

const PROBLEM = 'importe pagado 0.50 USD distinto del de la factura 5.00 USD';

function testInvoice(overrides: Partial<StaffInvoiceDetail> = {}): StaffInvoiceDetail {
  return {
    id: 'i1',
    remote_id: 'r1',
    user_id: 'u1',
    username: 'ana',
    gateway: 'qvapay',
    gateway_label: 'QvaPay',
    mode: 'add_plan',
    status: 'failed',
    plan_name: 'Mensual',
    validity_hours: 720,
    amount: '5.00',
    peer_id: 'p1',
    peer_name: 'movil',
    transaction_id: 'qp-123',
    manual: false,
    problem: PROBLEM,
    created: '2026-11-21T05:00:00Z',
    paid_at: null,
    fulfilled_at: null,
    gateway_record: { payment: { amount: '0.50' } },
    ...overrides,
  };
}

beforeEach(() => {
  FakeWebSocket.reset();
  vi.stubGlobal('WebSocket', FakeWebSocket);
  vi.stubGlobal('confirm', vi.fn(() => { throw new Error('window.confirm used'); }));
  window.localStorage.setItem('access_token', 'acc');
});

afterEach(() => {
  act(() => notifications.clean());
  vi.unstubAllGlobals();
  vi.clearAllMocks();
});

async function openInvoice(invoice: StaffInvoice, staff?: StaffUser) {
  api.invoices.mockResolvedValue({ items: [invoice], total: 1, page: 1, page_size: 25 });
  api.invoice.mockResolvedValue(invoice);
  const actor = userEvent.setup({ delay: null });
  renderManagerPage(<InvoicesPage />, staff);
  const row = (await screen.findByText('ana')).closest('tr') as HTMLElement;
  await actor.click(within(row).getByRole('button', { name: 'Ver la factura de ana' }));
  return { actor, drawer: await screen.findByRole('dialog') };
}

describe('invoices page', () => {
  it('settles a failed invoice only with the admin reason', async () => {
    const settled = testInvoice({ status: 'fulfilled', manual: true, problem: null, transaction_id: 'manual-i1' });
    api.markPaid.mockResolvedValue(settled);
    const { actor, drawer } = await openInvoice(testInvoice());
    expect(await within(drawer).findByText(PROBLEM)).toBeInTheDocument();
    expect(within(drawer).getByText(/La pasarela marcó esta factura como fallida/)).toBeInTheDocument();
    const button = within(drawer).getByRole('button', { name: 'Marcar como pagada' });
    expect(button).toBeDisabled();

    await actor.type(within(drawer).getByLabelText(/^Motivo del pago manual/), 'resto por transferencia 77');
    expect(button).toBeEnabled();
    await actor.click(button);
    const confirm = await screen.findByRole('dialog', { name: 'Marcar como pagada' });
    expect(api.markPaid).not.toHaveBeenCalled();
    await actor.click(within(confirm).getByRole('button', { name: 'Marcar como pagada' }));
    expect(api.markPaid).toHaveBeenCalledWith('i1', 'resto por transferencia 77');
    expect(await screen.findByText('Pago manual registrado.')).toBeInTheDocument();
    expect(within(drawer).getByText('Pago manual')).toBeInTheDocument();
    expect(within(drawer).queryByRole('button', { name: 'Marcar como pagada' })).not.toBeInTheDocument();
  }, 20_000);

  it('settles an expired invoice with an optional note', async () => {
    api.markPaid.mockResolvedValue(testInvoice({ status: 'fulfilled', manual: true, problem: null }));
    const { actor, drawer } = await openInvoice(testInvoice({ status: 'expired', problem: null }));
    expect(within(drawer).queryByText(/La pasarela marcó/)).not.toBeInTheDocument();
    await actor.click(within(drawer).getByRole('button', { name: 'Marcar como pagada' }));
    const confirm = await screen.findByRole('dialog', { name: 'Marcar como pagada' });
    await actor.click(within(confirm).getByRole('button', { name: 'Cancelar' }));
    expect(api.markPaid).not.toHaveBeenCalled();
    await actor.click(within(drawer).getByRole('button', { name: 'Marcar como pagada' }));
    await actor.click(within(await screen.findByRole('dialog', { name: 'Marcar como pagada' })).getByRole('button', { name: 'Marcar como pagada' }));
    expect(api.markPaid).toHaveBeenCalledWith('i1', '');
  }, 20_000);

  it('offers no manual payment to support', async () => {
    const { drawer } = await openInvoice(testInvoice(), SUPPORT);
    expect(await within(drawer).findByText(PROBLEM)).toBeInTheDocument();
    expect(within(drawer).queryByRole('button', { name: 'Marcar como pagada' })).not.toBeInTheDocument();
  }, 20_000);

  it('refetches the list and the open invoice when the socket reopens: a payment that landed meanwhile shows', async () => {
    const random = vi.spyOn(Math, 'random').mockReturnValue(0); // the shortest reconnect delay: 2.5 s
    const { drawer } = await openInvoice(testInvoice({ status: 'pending', problem: null }));
    act(() => FakeWebSocket.latest().open());
    const row = screen.getAllByText('ana')[0]?.closest('tr') as HTMLElement;
    expect(within(row).getByText('Pendiente')).toBeInTheDocument();
    const paid = testInvoice({ status: 'fulfilled', problem: null, paid_at: '2026-11-21T05:10:00Z' });
    api.invoices.mockResolvedValue({ items: [paid], total: 1, page: 1, page_size: 25 });
    api.invoice.mockResolvedValue(paid);
    act(() => FakeWebSocket.latest().serverClose());
    await waitFor(() => expect(FakeWebSocket.instances.length).toBeGreaterThan(1), { timeout: 8000 });
    expect(within(row).getByText('Pendiente')).toBeInTheDocument(); // nothing is fetched until it reopens
    act(() => FakeWebSocket.latest().open());
    expect(await within(row).findByText('Completada')).toBeInTheDocument();
    expect(await within(drawer).findByText('Completada')).toBeInTheDocument();
    expect(within(drawer).queryByRole('button', { name: 'Marcar como pagada' })).not.toBeInTheDocument();
    random.mockRestore();
  }, 20_000);
});
