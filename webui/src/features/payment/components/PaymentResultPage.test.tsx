import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../../lib/api';
import { renderWithProviders, testUser } from '../../../testing/render';
import * as invoice from '../api/invoice';
import type { InvoiceDetails } from '../api/invoice';
import { PaymentResultPage } from './PaymentResultPage';

vi.mock('../api/invoice', () => ({ fetchInvoice: vi.fn() }));
const fetchInvoice = vi.mocked(invoice.fetchInvoice);

function testInvoice(overrides: Partial<InvoiceDetails> = {}): InvoiceDetails {
  return {
    remote_id: '42',
    plan_name: 'Anual',
    peer_name: 'movil',
    amount: '50',
    transaction_uuid: null,
    status: 'fulfilled',
    gateway: 'qvapay',
    created: '2026-11-21T12:00:00Z',
    ...overrides,
  };
}

function renderPayment(query: string) {
  renderWithProviders(<PaymentResultPage />, { route: `/dashboard/payment${query}`, user: testUser() });
}

describe('payment result page', () => {
  it('shows a successful payment with the invoice details', async () => {
    fetchInvoice.mockResolvedValue(testInvoice());
    renderPayment('?status=success&transaction_uuid=tx-9&remote_id=42');
    expect(await screen.findByRole('heading', { name: 'Pago Exitoso' })).toBeInTheDocument();
    expect(await screen.findByText('Anual')).toBeInTheDocument();
    expect(await screen.findByText('movil')).toBeInTheDocument();
    expect(await screen.findByText('50 USD')).toBeInTheDocument();
    expect(await screen.findByText('tx-9')).toBeInTheDocument();
    expect(fetchInvoice).toHaveBeenCalledWith('42', expect.anything());
    expect(await screen.findByRole('link', { name: 'Volver al inicio' })).toHaveAttribute('href', '/dashboard/home');
  });

  it('shows a canceled payment and No disponible without a transaction id', async () => {
    fetchInvoice.mockResolvedValue(testInvoice({ status: 'canceled' }));
    renderPayment('?status=canceled&remote_id=42');
    expect(await screen.findByRole('heading', { name: 'Pago Cancelado' })).toBeInTheDocument();
    expect(await screen.findByText('No disponible')).toBeInTheDocument();
    // The way back to the plans to try again, not only home.
    expect(screen.getByRole('link', { name: 'Volver a los planes' })).toHaveAttribute(
      'href',
      '/dashboard/plans',
    );
  });

  it('takes the transaction id from the invoice when the return URL has none', async () => {
    fetchInvoice.mockResolvedValue(
      testInvoice({ remote_id: 'abc', plan_name: 'Mensual', peer_name: 'tablet', amount: '5.00', transaction_uuid: 'RP12AB' }),
    );
    renderPayment('?status=success&remote_id=abc');
    expect(await screen.findByText('RP12AB')).toBeInTheDocument();
    expect(await screen.findByText('5.00 USD')).toBeInTheDocument();
  });

  it('treats any other status as unknown and loads nothing without remote_id', () => {
    renderPayment('?status=pending');
    expect(screen.getByRole('heading', { name: 'Estado de Pago Desconocido' })).toBeInTheDocument();
    expect(fetchInvoice).not.toHaveBeenCalled();
  });

  it('explains when the invoice cannot be loaded', async () => {
    fetchInvoice.mockRejectedValue(new Error('network'));
    renderPayment('?status=success&remote_id=42');
    expect(await screen.findByText(/Hubo un error al intentar cargar los datos de la factura\./)).toBeInTheDocument();
    expect(screen.queryByRole('heading', { name: 'Pago Exitoso' })).not.toBeInTheDocument();
  });

  it('never shows success beside Factura no encontrada', async () => {
    fetchInvoice.mockRejectedValue(new ApiError(404, 'Factura no encontrada.'));
    renderPayment('?status=success&transaction_uuid=tx-9&remote_id=ajena');
    expect(await screen.findByText(/Factura no encontrada\./)).toBeInTheDocument();
    expect(await screen.findByRole('heading', { name: 'Estado de Pago Desconocido' })).toBeInTheDocument();
    expect(screen.queryByRole('heading', { name: 'Pago Exitoso' })).not.toBeInTheDocument();
    expect(await screen.findByRole('alert')).toHaveTextContent('tx-9');
  });

  it('says the payment is being checked, not that it succeeded, while the invoice loads', () => {
    fetchInvoice.mockReturnValue(new Promise(() => undefined));
    renderPayment('?status=success&remote_id=42');
    expect(screen.getByRole('heading', { name: 'Comprobando el pago...' })).toBeInTheDocument();
    expect(screen.queryByRole('heading', { name: 'Pago Exitoso' })).not.toBeInTheDocument();
  });

  it('believes the invoice over the return URL: a pending invoice is in process, with a way to check again', async () => {
    fetchInvoice
      .mockResolvedValueOnce(testInvoice({ amount: '50.00', status: 'pending' }))
      .mockResolvedValueOnce(testInvoice({ amount: '50.00', status: 'fulfilled' }));
    renderPayment('?status=success&remote_id=42');
    expect(await screen.findByRole('heading', { name: 'Pago en Proceso' })).toBeInTheDocument();
    expect(await screen.findByText(/aún no ha confirmado el pago/)).toBeInTheDocument();
    await userEvent.click(await screen.findByRole('button', { name: 'Comprobar de nuevo' }));
    expect(await screen.findByRole('heading', { name: 'Pago Exitoso' })).toBeInTheDocument();
  });

  it('shows an expired or failed invoice as not paid even when the URL says success', async () => {
    fetchInvoice.mockResolvedValue(testInvoice({ amount: '50.00', status: 'expired' }));
    renderPayment('?status=success&remote_id=42');
    expect(await screen.findByRole('heading', { name: 'Pago Cancelado' })).toBeInTheDocument();
    expect(await screen.findByText(/venció sin que se recibiera el pago/)).toBeInTheDocument();
  });
});
