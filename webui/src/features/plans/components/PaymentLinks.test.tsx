import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../../lib/api';
import { renderWithProviders, testConfig, testUser } from '../../../testing/render';
import * as links from '../api/payment-links';
import * as plans from '../api/plans';
import * as purchase from '../api/purchase';
import { RealtimeProvider } from '../../realtime';
import { DashboardPlansPage } from './DashboardPlansPage';
import { PayForOtherPage } from './PayForOtherPage';

vi.mock('../api/plans', () => ({ fetchPlans: vi.fn() }));
vi.mock('../api/purchase', () => ({ fetchEligiblePeers: vi.fn(), createInvoice: vi.fn() }));
vi.mock('../api/payment-links', () => ({
  createPaymentLink: vi.fn(),
  fetchPaymentLinks: vi.fn(),
  revokePaymentLink: vi.fn(),
  fetchPublicPaymentLink: vi.fn(),
  payPublicPaymentLink: vi.fn(),
}));
const api = vi.mocked(links);

afterEach(() => vi.restoreAllMocks());

const monthly = { id: '3', name: 'Mensual', description: 'Un mes', validity: '30 days 00:00:00', price: '5.00' };
const movil = { id: 'p1', name: 'movil', manual_payment: false, plans_history: [] };
const link = {
  id: 'l1',
  url: 'http://localhost/pagar/abcdefghijklmnopqrstuvwxyz012345',
  peer_id: 'p1',
  peer_name: 'movil',
  plan_id: '3',
  plan_name: 'Mensual',
  amount: '5.00',
  created: '2026-11-28T00:00:00Z',
  expires_at: '2026-12-05T00:00:00Z',
};

describe('Compartir enlace de pago', () => {
  it('makes a link for the chosen peer, shows it to copy, and revokes it', async () => {
    vi.mocked(plans.fetchPlans).mockResolvedValue([monthly]);
    vi.mocked(purchase.fetchEligiblePeers).mockResolvedValue([movil]);
    api.fetchPaymentLinks.mockResolvedValue([]);
    api.createPaymentLink.mockResolvedValue({ message: 'Enlace de pago creado.', data: link });
    api.revokePaymentLink.mockResolvedValue({ message: 'Enlace de pago anulado: ya nadie puede pagar con él.' });
    renderWithProviders(
      <RealtimeProvider>
        <DashboardPlansPage />
      </RealtimeProvider>,
      { route: '/dashboard/plans', user: testUser(), config: testConfig() },
    );
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Compartir enlace de pago' }));
    const dialog = await screen.findByRole('dialog', { name: 'Compartir enlace de pago' });
    await user.click(within(dialog).getByRole('button', { name: 'Crear enlace' }));
    expect(api.createPaymentLink).toHaveBeenCalledWith('p1', '3');
    expect(await within(dialog).findByLabelText('Enlace de pago de movil')).toHaveValue(link.url);
    expect(within(dialog).getByRole('button', { name: 'Copiar' })).toBeInTheDocument();
    await user.click(within(dialog).getByRole('button', { name: 'Anular' }));
    expect(api.revokePaymentLink).toHaveBeenCalledWith('l1');
    expect(await screen.findByText('Enlace de pago anulado: ya nadie puede pagar con él.')).toBeInTheDocument();
    expect(within(dialog).queryByLabelText('Enlace de pago de movil')).not.toBeInTheDocument();
  });

  it('asks for a peer when there are several and none is chosen', async () => {
    vi.mocked(plans.fetchPlans).mockResolvedValue([monthly]);
    vi.mocked(purchase.fetchEligiblePeers).mockResolvedValue([movil, { ...movil, id: 'p2', name: 'pc' }]);
    api.fetchPaymentLinks.mockResolvedValue([]);
    renderWithProviders(
      <RealtimeProvider>
        <DashboardPlansPage />
      </RealtimeProvider>,
      { route: '/dashboard/plans', user: testUser(), config: testConfig() },
    );
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Compartir enlace de pago' }));
    const dialog = await screen.findByRole('dialog', { name: 'Compartir enlace de pago' });
    await user.click(within(dialog).getByRole('button', { name: 'Crear enlace' }));
    expect(await within(dialog).findByText('Seleccione el peer que se pagará con el enlace.')).toBeInTheDocument();
    expect(api.createPaymentLink).not.toHaveBeenCalled();
  });
});

describe('the payer\'s page (/pagar/{token})', () => {
  const publicLink = {
    plan_name: 'Mensual',
    plan_description: 'Un dispositivo',
    validity_hours: 720,
    amount: '5.00',
    peer_name: 'movil',
    owner: 'Ana',
    expires_at: '2026-12-05T00:00:00Z',
    gateways: [
      { name: 'qvapay', label: 'QvaPay' },
      { name: 'remesita', label: 'Remesita' },
    ],
    payment: null,
  };

  function renderPage(route = '/pagar/tok123') {
    return renderWithProviders(<PayForOtherPage />, { route, path: '/pagar/:token' });
  }

  it('shows what is paid and for which peer, then sends the payer to the chosen gateway', async () => {
    api.fetchPublicPaymentLink.mockResolvedValue(publicLink);
    api.payPublicPaymentLink.mockResolvedValue({ payment_url: 'https://pago.example/1', message: '', remote_id: 'r1', gateway: 'remesita' });
    const assign = vi.fn();
    vi.spyOn(window, 'location', 'get').mockReturnValue({ ...window.location, assign });
    renderPage();
    const card = await screen.findByTestId('payment-link-card');
    expect(within(card).getByText('Ana le pide que pague:')).toBeInTheDocument();
    expect(within(card).getByText('Plan Mensual')).toBeInTheDocument();
    expect(within(card).getByText('Para el peer: movil')).toBeInTheDocument();
    expect(within(card).getByText('Validez: 1 mes')).toBeInTheDocument();
    expect(within(card).getByText('$5.00 USD')).toBeInTheDocument();
    const user = userEvent.setup();
    await user.click(within(card).getByText('Remesita'));
    await user.click(within(card).getByRole('button', { name: 'Pagar con Remesita' }));
    expect(api.payPublicPaymentLink).toHaveBeenCalledWith('tok123', 'remesita');
    expect(assign).toHaveBeenCalledWith('https://pago.example/1');
  });

  it('says in the server\'s words why a revoked or expired link cannot be paid', async () => {
    const why = 'Este enlace de pago fue anulado por quien lo compartió. Pídale uno nuevo.';
    api.fetchPublicPaymentLink.mockRejectedValue(new ApiError(410, why, 'payment_link_revoked'));
    renderPage();
    expect(await screen.findByText(why)).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /Pagar con/ })).not.toBeInTheDocument();
  });

  it('back from the gateway, tells that the payment arrived', async () => {
    api.fetchPublicPaymentLink.mockResolvedValue({
      ...publicLink,
      payment: { remote_id: 'r1', status: 'fulfilled', status_text: 'Pagada' },
    });
    renderPage('/pagar/tok123?status=success&payment=r1');
    expect(await screen.findByText('Pago recibido')).toBeInTheDocument();
    expect(api.fetchPublicPaymentLink).toHaveBeenCalledWith('tok123', 'r1', expect.anything());
  });
});
