import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../../lib/api';
import { renderWithProviders, testConfig, testUser } from '../../../testing/render';
import * as plans from '../api/plans';
import * as purchase from '../api/purchase';
import * as invoices from '../../payment/api/invoice';
import { RealtimeProvider } from '../../realtime';
import { DashboardPlansPage } from './DashboardPlansPage';

vi.mock('../api/plans', () => ({ fetchPlans: vi.fn() }));
vi.mock('../api/purchase', () => ({ fetchEligiblePeers: vi.fn(), createInvoice: vi.fn() }));
vi.mock('../../payment/api/invoice', () => ({ fetchInvoice: vi.fn() }));

const fetchPlans = vi.mocked(plans.fetchPlans);
const fetchEligiblePeers = vi.mocked(purchase.fetchEligiblePeers);
const createInvoice = vi.mocked(purchase.createInvoice);
const fetchInvoice = vi.mocked(invoices.fetchInvoice);

const yearly = { id: '7', name: 'Anual', description: 'Ahorro', validity: '365 days 00:00:00', price: '50' };

function renderPlans(config = testConfig(), route = '/dashboard/plans') {
  return renderWithProviders(
    <RealtimeProvider>
      <DashboardPlansPage />
    </RealtimeProvider>,
    { route, path: '/dashboard/plans', user: testUser(), config },
  );
}

const monthly = { id: '3', name: 'Mensual', description: 'Un mes', validity: '30 days 00:00:00', price: '5' };
const tablet = { id: 'p9', name: 'tablet', manual_payment: false, plans_history: [{ plan_name: 'Mensual' }] };
const movil = { id: 'p1', name: 'movil', manual_payment: false, plans_history: [] };

const invoice = (status: string) => ({
  remote_id: 'inv-1',
  plan_name: 'Anual',
  peer_name: 'movil',
  amount: '50.00',
  transaction_uuid: 't-1',
  status,
  gateway: 'qvapay',
  created: '2026-11-28T00:00:00Z',
});

beforeEach(() => {
  fetchInvoice.mockResolvedValue(invoice('pending') as never);
});

describe('while the payment window is open', () => {
  async function startPaying() {
    fetchPlans.mockResolvedValue([yearly]);
    fetchEligiblePeers.mockResolvedValue([movil]);
    createInvoice.mockResolvedValue({ payment_url: 'https://pago.example/1', message: '', remote_id: 'inv-1', gateway: 'qvapay' });
    vi.spyOn(window, 'open').mockReturnValue({ location: { href: '' }, close: vi.fn() } as unknown as Window);
    renderPlans();
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Seleccionar Plan' }));
    // The only peer the plan can go to is chosen already: one click to pay.
    expect(await screen.findByDisplayValue('movil')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Proceder al Pago' }));
    expect(createInvoice).toHaveBeenCalledWith({ mode: 'add_plan', plan: '7', peer: 'p1' });
    return user;
  }

  it('says where to pay, then updates itself when the payment lands', async () => {
    fetchInvoice.mockResolvedValueOnce(invoice('pending') as never).mockResolvedValue(invoice('fulfilled') as never);
    await startPaying();
    expect(await screen.findByText('Complete el pago en la ventana de QvaPay')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Abrir de nuevo la ventana de QvaPay' })).toHaveAttribute('href', 'https://pago.example/1');
    expect(await screen.findByText('Pago recibido', {}, { timeout: 8000 })).toBeInTheDocument();
    expect(screen.getByText(/QvaPay confirmó el pago del plan Anual para el peer movil/)).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Ir a Peers' })).toHaveAttribute('href', '/dashboard/peers');
  }, 15_000);

  it('a canceled payment offers trying again, which opens the same plan', async () => {
    fetchInvoice.mockResolvedValue(invoice('canceled') as never);
    const user = await startPaying();
    expect(await screen.findByText(/El pago se canceló en QvaPay; no se le cobró nada/)).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Intentar de nuevo' }));
    expect(await screen.findByRole('button', { name: 'Proceder al Pago' })).toBeInTheDocument();
    expect(screen.queryByText('Pago no completado')).not.toBeInTheDocument();
  });
});

describe('dashboard plans', () => {
  it('names the gateway and buys a plan for a new peer when the user has no eligible peer', async () => {
    fetchPlans.mockResolvedValue([yearly]);
    fetchEligiblePeers.mockResolvedValue([]);
    createInvoice.mockResolvedValue({ payment_url: 'https://pago.example/123', message: '', remote_id: 'inv-1', gateway: 'qvapay' });
    const paymentWindow = { location: { href: '' }, close: vi.fn() };
    const open = vi.spyOn(window, 'open').mockReturnValue(paymentWindow as unknown as Window);
    renderPlans();

    expect(await screen.findByText(/a través de QvaPay/)).toBeInTheDocument();
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Seleccionar Plan' }));
    expect(await screen.findByText('Validez: 1 año', { selector: '.mantine-Modal-body *' })).toBeInTheDocument();
    expect(screen.queryByText('Peer Existente')).not.toBeInTheDocument();

    await user.click(await screen.findByRole('button', { name: 'Proceder al Pago' }));
    expect(
      await screen.findByText('Por favor, seleccione un peer existente o ingrese un nombre para el nuevo peer'),
    ).toBeInTheDocument();
    expect(createInvoice).not.toHaveBeenCalled();

    await user.type(await screen.findByLabelText('Nombre del nuevo peer'), 'portatil');
    await user.click(await screen.findByRole('button', { name: 'Proceder al Pago' }));
    expect(createInvoice).toHaveBeenCalledWith({ mode: 'new_peer', plan: '7', peer: 'portatil' });
    expect(open).toHaveBeenCalledWith('', '_blank');
    await vi.waitFor(() => expect(paymentWindow.location.href).toBe('https://pago.example/123'), { timeout: 10_000 });
  });

  it('adds the plan to the only existing peer, chosen already in the selector', async () => {
    fetchPlans.mockResolvedValue([yearly]);
    fetchEligiblePeers.mockResolvedValue([{ id: '3f2c-movil', name: 'movil', manual_payment: false, plans_history: [] }]);
    createInvoice.mockRejectedValue(new ApiError(409, 'El peer tiene una factura pendiente.'));
    const paymentWindow = { location: { href: '' }, close: vi.fn() };
    vi.spyOn(window, 'open').mockReturnValue(paymentWindow as unknown as Window);
    renderPlans();

    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Seleccionar Plan' }));
    expect(await screen.findByText('Peer Existente')).toBeInTheDocument();
    expect(await screen.findByDisplayValue('movil')).toBeInTheDocument();
    await user.click(await screen.findByRole('button', { name: 'Proceder al Pago' }));

    expect(createInvoice).toHaveBeenCalledWith({ mode: 'add_plan', plan: '7', peer: '3f2c-movil' });
    expect(await screen.findByText('El peer tiene una factura pendiente.')).toBeInTheDocument();
    expect(paymentWindow.close).toHaveBeenCalled();
  });

  it('lets the customer pick the gateway when both are enabled', async () => {
    fetchPlans.mockResolvedValue([yearly]);
    fetchEligiblePeers.mockResolvedValue([]);
    createInvoice.mockResolvedValue({ payment_url: 'https://remesita.example/pay/1', message: '', remote_id: 'inv-1', gateway: 'qvapay' });
    const paymentWindow = { location: { href: '' }, close: vi.fn() };
    vi.spyOn(window, 'open').mockReturnValue(paymentWindow as unknown as Window);
    renderPlans(testConfig({ allow_payments_qvapay: true, allow_payments_remesita: true }));

    expect(await screen.findByText(/a través de QvaPay o Remesita, nuestros proveedores/)).toBeInTheDocument();
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Seleccionar Plan' }));
    expect(await screen.findByText('Pasarela de pago')).toBeInTheDocument();
    await user.click(await screen.findByRole('radio', { name: 'Remesita' }));
    await user.type(await screen.findByLabelText('Nombre del nuevo peer'), 'tablet');
    await user.click(await screen.findByRole('button', { name: 'Proceder al Pago' }));
    expect(createInvoice).toHaveBeenCalledWith({ mode: 'new_peer', plan: '7', peer: 'tablet', gateway: 'remesita' });
    await vi.waitFor(() => expect(paymentWindow.location.href).toBe('https://remesita.example/pay/1'), {
      timeout: 10_000,
    });
  });

  it('shows no gateway choice and names the only one enabled', async () => {
    fetchPlans.mockResolvedValue([yearly]);
    fetchEligiblePeers.mockResolvedValue([]);
    renderPlans(testConfig({ allow_payments_qvapay: false, allow_payments_remesita: true }));
    expect(await screen.findByText(/a través de Remesita, nuestro proveedor de pagos seguro/)).toBeInTheDocument();
    await userEvent.setup().click(await screen.findByRole('button', { name: 'Seleccionar Plan' }));
    expect(await screen.findByText('Proceder al Pago')).toBeInTheDocument();
    expect(screen.queryByText('Pasarela de pago')).not.toBeInTheDocument();
  });

  it('offers Contáctanos instead of buying when no gateway is enabled', async () => {
    fetchPlans.mockResolvedValue([yearly]);
    renderPlans(testConfig({ allow_payments_qvapay: false, allow_payments_remesita: false }));
    expect(await screen.findByRole('button', { name: 'Contáctanos' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Seleccionar Plan' })).not.toBeInTheDocument();
    expect(screen.queryByText(/proveedor de pagos seguro/)).not.toBeInTheDocument();
  });

  it('shows No hay planes disponibles with support when there are no plans', async () => {
    fetchPlans.mockResolvedValue([]);
    renderPlans();
    expect(await screen.findByText('No hay planes disponibles')).toBeInTheDocument();
    expect(await screen.findByRole('button', { name: 'Contactar Soporte' })).toBeInTheDocument();
  });

  it('renew shortcut: opens the purchase dialog on the peer with the plan it last bought', async () => {
    fetchPlans.mockResolvedValue([yearly, monthly]);
    fetchEligiblePeers.mockResolvedValue([movil, tablet]);
    createInvoice.mockResolvedValue({ payment_url: 'https://pago.example/9', message: '', remote_id: 'inv-1', gateway: 'qvapay' });
    vi.spyOn(window, 'open').mockReturnValue({ location: { href: '' }, close: vi.fn() } as unknown as Window);
    renderPlans(testConfig(), '/dashboard/plans?renew=p9');
    const dialog = await screen.findByRole('dialog', { name: 'Adquirir plan' });
    expect(within(dialog).getByText('Mensual')).toBeInTheDocument();
    expect(within(dialog).getByLabelText('Peer', { selector: 'input' })).toHaveValue('tablet');
    expect(await screen.findByText('Renovar el peer tablet')).toBeInTheDocument();
    await userEvent.setup().click(within(dialog).getByRole('button', { name: 'Proceder al Pago' }));
    expect(createInvoice).toHaveBeenCalledWith({ mode: 'add_plan', plan: '3', peer: 'p9' });
  });

  it('renew shortcut without a known plan: asks for one, then the dialog has the peer chosen', async () => {
    fetchPlans.mockResolvedValue([yearly, monthly]);
    fetchEligiblePeers.mockResolvedValue([movil, tablet]);
    renderPlans(testConfig(), '/dashboard/plans?renew=p1');
    expect(await screen.findByText('Renovar el peer movil')).toBeInTheDocument();
    await screen.findAllByRole('button', { name: 'Seleccionar Plan' });
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    await userEvent.setup().click(screen.getAllByRole('button', { name: 'Seleccionar Plan' })[0] as HTMLElement);
    const dialog = await screen.findByRole('dialog', { name: 'Adquirir plan' });
    expect(within(dialog).getByText('Anual')).toBeInTheDocument();
    expect(within(dialog).getByLabelText('Peer', { selector: 'input' })).toHaveValue('movil');
  });

  it('renew shortcut on a peer paid by hand: says to contact support instead', async () => {
    fetchPlans.mockResolvedValue([monthly]);
    fetchEligiblePeers.mockResolvedValue([movil]);
    renderPlans(testConfig(), '/dashboard/plans?renew=manual1');
    expect(await screen.findByText('No se puede renovar este peer aquí')).toBeInTheDocument();
    expect(await screen.findByText(/Contacte con soporte para renovarlo/)).toBeInTheDocument();
  });

  it('without a gateway or a support URL, says payments are off and to come back later', async () => {
    fetchPlans.mockResolvedValue([monthly]);
    renderPlans(testConfig({ allow_payments_qvapay: false, allow_payments_remesita: false, support_url: '' }));
    expect(await screen.findByText('Pagos en línea no disponibles')).toBeInTheDocument();
    expect(await screen.findByText(/Vuelva a consultar esta página más tarde/)).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Seleccionar Plan' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Contáctanos' })).not.toBeInTheDocument();
  });

  it('without a gateway but with support, points to Contáctanos', async () => {
    fetchPlans.mockResolvedValue([monthly]);
    renderPlans(testConfig({ allow_payments_qvapay: false, allow_payments_remesita: false }));
    expect(await screen.findByText(/Pulse Contáctanos en el plan que desee/)).toBeInTheDocument();
    expect(await screen.findByRole('button', { name: 'Contáctanos' })).toBeInTheDocument();
  });

  it('without plans and without support, says to come back later', async () => {
    fetchPlans.mockResolvedValue([]);
    renderPlans(testConfig({ support_url: '' }));
    expect(await screen.findByText('No hay planes disponibles')).toBeInTheDocument();
    expect(await screen.findByText('Vuelva a consultar esta página más tarde.')).toBeInTheDocument();
  });
});
