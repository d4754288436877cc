import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Route, Routes } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import { renderWithProviders, testUser } from '../../../testing/render';
import * as invoicesApi from '../api/invoices';
import type { InvoiceListItem } from '../api/invoices';
import { InvoicesPage } from './InvoicesPage';
import { ReceiptPage } from './ReceiptPage';

vi.mock('../api/invoices', () => ({ fetchInvoices: vi.fn() }));
const api = vi.mocked(invoicesApi);

function invoice(overrides: Partial<InvoiceListItem> = {}): InvoiceListItem {
  return {
    remote_id: 'inv-1',
    plan_name: 'Mensual',
    peer_name: 'movil',
    amount: '5.00',
    gateway: 'qvapay',
    gateway_name: 'QvaPay',
    status: 'fulfilled',
    status_text: 'Pagada',
    receipt: true,
    transaction_uuid: 'qp-123',
    created: '2026-11-20T10:00:00Z',
    paid_at: '2026-11-20T10:05:00Z',
    ...overrides,
  };
}

function renderInvoices() {
  return renderWithProviders(
    <Routes>
      <Route path="invoices" element={<InvoicesPage />} />
      <Route path="invoices/:remoteId" element={<ReceiptPage />} />
    </Routes>,
    { route: '/dashboard/invoices', path: '/dashboard/*', user: testUser() },
  );
}

describe('Facturas', () => {
  it("lists the invoices with the server's words and offers a receipt only for paid ones", async () => {
    api.fetchInvoices.mockResolvedValue([
      invoice({ remote_id: 'inv-2', status: 'pending', status_text: 'Pendiente de pago', receipt: false, paid_at: null, gateway: 'remesita', gateway_name: 'Remesita' }),
      invoice(),
    ]);
    renderInvoices();
    const cards = await screen.findAllByRole('region', { name: /^Factura de Mensual/ });
    expect(cards).toHaveLength(2);
    expect(within(cards[0]!).getByText('Pendiente de pago')).toBeInTheDocument();
    expect(within(cards[0]!).getByText('Peer: movil · Pasarela: Remesita')).toBeInTheDocument();
    expect(within(cards[0]!).queryByRole('link', { name: /Ver recibo/ })).not.toBeInTheDocument();
    expect(within(cards[1]!).getByText('Mensual · $5.00 USD')).toBeInTheDocument();
    expect(within(cards[1]!).getByText('Pagada')).toBeInTheDocument();

    await userEvent.setup().click(within(cards[1]!).getByRole('link', { name: /Ver recibo/ }));
    expect(await screen.findByRole('heading', { name: 'Recibo de pago' })).toBeInTheDocument();
    const receipt = screen.getByRole('table');
    for (const [label, value] of [['Número', 'inv-1'], ['Cliente', 'ana'], ['Plan', 'Mensual'], ['Peer', 'movil'],
      ['Pasarela de pago', 'QvaPay'], ['Transacción', 'qp-123']]) {
      expect(within(within(receipt).getByRole('row', { name: new RegExp(`^${label}`) })).getByText(value!)).toBeInTheDocument();
    }
    expect(screen.getByText('$5.00 USD')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Imprimir' })).toBeInTheDocument();
  });

  it('says when there is nothing yet, and shows no receipt for an unpaid or unknown invoice', async () => {
    api.fetchInvoices.mockResolvedValue([]);
    renderInvoices();
    expect(await screen.findByText('Aún no tiene facturas. Aparecerán aquí cuando adquiera un plan.')).toBeInTheDocument();

    api.fetchInvoices.mockResolvedValue([invoice({ status: 'canceled', status_text: 'Cancelada', receipt: false })]);
    renderWithProviders(<ReceiptPage />, { route: '/dashboard/invoices/inv-1', path: '/dashboard/invoices/:remoteId', user: testUser() });
    expect(await screen.findByText('Esta factura no tiene recibo porque no consta como pagada (Cancelada).')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Imprimir' })).not.toBeInTheDocument();
  });
});
