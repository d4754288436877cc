import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../../lib/api';
import { renderWithProviders, testConfig, testUser } from '../../../testing/render';
import * as home from '../api/home';
import { KNOWN_CLIENT_VERSION } from '../client-version';
import { HomePage } from './HomePage';

vi.mock('../api/home', () => ({ fetchHomeData: vi.fn(), fetchPendingPayments: vi.fn(() => Promise.resolve([])) }));
const fetchHomeData = vi.mocked(home.fetchHomeData);
const fetchPendingPayments = vi.mocked(home.fetchPendingPayments);

const current = { version: KNOWN_CLIENT_VERSION, url: 'https://descargas.example/cliente' };

describe('dashboard home', () => {
  it('shows the update notice for a newer client and opens its URL', async () => {
    fetchHomeData.mockResolvedValue({ announcements: [], release: { version: '99.0.0', url: 'https://descargas.example/99' }, peers: [] });
    const open = vi.spyOn(window, 'open').mockReturnValue(null);
    renderWithProviders(<HomePage />, { user: testUser() });
    expect(await screen.findByText('Nueva versión del cliente disponible')).toBeInTheDocument();
    await userEvent.setup().click(await screen.findByRole('button', { name: 'Descargar' }));
    expect(open).toHaveBeenCalledWith('https://descargas.example/99', '_blank', 'noopener');
  });

  it('shows no notice when the client is current, and a welcome card without announcements', async () => {
    fetchHomeData.mockResolvedValue({ announcements: [], release: current, peers: [] });
    renderWithProviders(<HomePage />, { user: testUser() });
    expect(await screen.findByText('¡Bienvenido!')).toBeInTheDocument();
    expect(screen.queryByText('Nueva versión del cliente disponible')).not.toBeInTheDocument();
    expect(await screen.findByText(/salas privadas/)).toBeInTheDocument();
  });

  it('mentions rooms in the welcome card only when rooms are allowed', async () => {
    fetchHomeData.mockResolvedValue({ announcements: [], release: null, peers: [] });
    renderWithProviders(<HomePage />, {
      user: testUser({ web_settings: { allow_partys: false, allow_email: true } }),
    });
    expect(await screen.findByText('¡Bienvenido!')).toBeInTheDocument();
    expect(screen.queryByText(/salas privadas/)).not.toBeInTheDocument();
  });

  it('lists announcements with Spanish long dates beside the support card', async () => {
    fetchHomeData.mockResolvedValue({
      announcements: [{ id: 'a1', name: 'Nuevo servidor', created: '2026-03-05T12:00:00Z', message: 'Madrid ya está activo.' }],
      release: current,
      peers: [],
    });
    renderWithProviders(<HomePage />, { user: testUser() });
    expect(await screen.findByText('Nuevo servidor')).toBeInTheDocument();
    expect(await screen.findByText('5 de marzo de 2026')).toBeInTheDocument();
    expect(await screen.findByText('Madrid ya está activo.')).toBeInTheDocument();
    expect(screen.queryByText('¡Bienvenido!')).not.toBeInTheDocument();
    expect(await screen.findByRole('button', { name: 'Contactar Soporte' })).toBeInTheDocument();
  });

  it('hides the support button when no support URL is configured', async () => {
    fetchHomeData.mockResolvedValue({ announcements: [], release: null, peers: [] });
    renderWithProviders(<HomePage />, { user: testUser(), config: testConfig({ support_url: '' }) });
    expect(await screen.findByText('Soporte')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Contactar Soporte' })).not.toBeInTheDocument();
    // Without a support URL the card still says where to go.
    expect(await screen.findByText(/El soporte en línea no está disponible/)).toBeInTheDocument();
    expect(await screen.findByRole('link', { name: 'Centro de Ayuda' })).toHaveAttribute('href', '/dashboard/help');
  });

  it('warns about peers that expire within 3 days, with a renew shortcut for each', async () => {
    const inHours = (hours: number) => new Date(Date.now() + hours * 3600_000).toISOString();
    const peer = { active: true, manual_payment: false };
    fetchHomeData.mockResolvedValue({
      announcements: [],
      release: null,
      peers: [
        { ...peer, id: 'p1', name: 'movil', expiration_date: inHours(30) },
        { ...peer, id: 'p2', name: 'tablet', expiration_date: inHours(24 * 10) },
        { ...peer, id: 'p3', name: 'viejo', active: false, expiration_date: inHours(-5) },
        { ...peer, id: 'p4', name: 'router', expiration_date: null },
        { ...peer, id: 'p5', name: 'oficina', manual_payment: true, expiration_date: inHours(60) },
      ],
    });
    renderWithProviders(<HomePage />, { user: testUser() });
    const warning = await screen.findByRole('alert');
    expect(warning).toHaveTextContent('Peers a punto de vencer');
    expect(warning).toHaveTextContent(/El peer movil vence el .* \(quedan 2 días\)/);
    expect(await screen.findByRole('link', { name: 'Renovar movil' })).toHaveAttribute('href', '/dashboard/plans?renew=p1');
    expect(warning).toHaveTextContent(/El peer oficina vence el/);
    expect(warning).toHaveTextContent('Contacte con soporte para renovarlo.');
    expect(screen.queryByRole('link', { name: 'Renovar oficina' })).not.toBeInTheDocument();
    for (const name of ['tablet', 'viejo', 'router']) expect(warning).not.toHaveTextContent(name);
  });

  it('sums up what needs attention in the server\'s words, each with its next step', async () => {
    const peer = { active: true, manual_payment: false, expiration_date: null };
    const notice = 'El servidor Miami 1 (Miami) no responde: este peer no tiene conexión hasta que vuelva.';
    const moving = 'Moviendo a Madrid 1 (Madrid)… su configuración actual sigue funcionando.';
    fetchHomeData.mockResolvedValue({
      announcements: [],
      release: null,
      peers: [
        {
          ...peer,
          id: 'p3',
          name: 'router',
          operation: { kind: 'change_server', server: { id: 's2', name: 'Madrid 1', ubication: 'Madrid' }, since: '2026-11-28T02:00:00Z', message: moving },
        },
        { ...peer, id: 'p2', name: 'tablet', shared_config_warning: true },
        { ...peer, id: 'p1', name: 'movil', server_notice: notice },
        { ...peer, id: 'p4', name: 'quieto' },
      ],
    });
    renderWithProviders(<HomePage />, { user: testUser() });
    const attention = await screen.findByTestId('home-attention');
    expect(attention).toHaveTextContent('Requiere su atención');
    // What needs the customer comes first, what only needs waiting last.
    const items = screen.getAllByTestId('attention-item');
    expect(items.map((item) => item.textContent)).toEqual([
      `movil: ${notice}Cambiar de servidor`,
      expect.stringMatching(/^tablet: se está usando en dos dispositivos a la vez.*Ver en Peers$/),
      `router: ${moving}`,
    ]);
    expect(screen.getByRole('link', { name: 'Cambiar de servidor' })).toHaveAttribute('href', '/dashboard/peers?mover=p1');
    expect(attention).not.toHaveTextContent('quieto');
  });

  it('lists a payment in progress with what it buys and where to complete it', async () => {
    fetchHomeData.mockResolvedValue({ announcements: [], release: null, peers: [] });
    fetchPendingPayments.mockResolvedValueOnce([
      { remote_id: 'r1', plan_name: 'Anual', peer_name: 'tv', gateway_name: 'QvaPay', payment_url: 'https://qvapay.example/pay/r1' },
      { remote_id: 'r2', plan_name: 'Mensual', peer_name: 'movil', gateway_name: 'Remesita', payment_url: null },
    ]);
    renderWithProviders(<HomePage />, { user: testUser() });
    const attention = await screen.findByTestId('home-attention');
    const items = screen.getAllByTestId('attention-item');
    expect(items.map((item) => item.textContent)).toEqual([
      'Pago en curso: plan Anual para tv con QvaPay. Complete el pago en QvaPay; se aplicará en cuanto QvaPay lo confirme.Completar el pago en QvaPay',
      'Pago en curso: plan Mensual para movil con Remesita. Complete el pago en Remesita; se aplicará en cuanto Remesita lo confirme.Ver Facturas',
    ]);
    // The gateway's own page opens again in a new tab, as the purchase opened it; without it, the invoices.
    const reopen = screen.getByRole('link', { name: 'Completar el pago en QvaPay' });
    expect(reopen).toHaveAttribute('href', 'https://qvapay.example/pay/r1');
    expect(reopen).toHaveAttribute('target', '_blank');
    expect(screen.getByRole('link', { name: 'Ver Facturas' })).toHaveAttribute('href', '/dashboard/invoices');
    expect(attention).toHaveTextContent('Requiere su atención');
  });

  it('shows no expiry warning when no peer is about to expire', async () => {
    fetchHomeData.mockResolvedValue({ announcements: [], release: null, peers: [] });
    renderWithProviders(<HomePage />, { user: testUser() });
    expect(await screen.findByText('¡Bienvenido!')).toBeInTheDocument();
    expect(screen.queryByText('Peers a punto de vencer')).not.toBeInTheDocument();
    expect(screen.queryByTestId('home-attention')).not.toBeInTheDocument();
  });

  it('replaces the section with the error panel when loading fails', async () => {
    // Held until the loading state is seen: a request that fails at once can replace it before the check.
    let fail: (error: unknown) => void = () => undefined;
    fetchHomeData.mockReturnValue(new Promise((_, reject) => (fail = reject)));
    renderWithProviders(<HomePage />, { user: testUser() });
    expect(await screen.findByText('Cargando información...')).toBeInTheDocument();
    fail(new ApiError(500, ''));
    expect(await screen.findByText('Error al cargar la sección')).toBeInTheDocument();
    expect(await screen.findByText('Hubo un error al cargar los datos de la sección')).toBeInTheDocument();
  });
});
