import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../../lib/api';
import { storeLoginTokens, clearTokens } from '../../../lib/tokens';
import { renderWithProviders } from '../../../testing/render';
import * as passes from '../api/guest-passes';
import { ClaimPassPage } from './ClaimPassPage';
import { GuestPassSection } from './GuestPassSection';

vi.mock('../api/guest-passes', () => ({
  fetchGuestPassPlans: vi.fn(),
  fetchGuestPasses: vi.fn(),
  buyGuestPass: vi.fn(),
  fetchPublicGuestPass: vi.fn(),
  claimGuestPass: vi.fn(),
}));
const api = vi.mocked(passes);

const TOKEN = 'abcdefghijklmnopqrstuvwxyz012345';
const dayPass = { id: 'g1', name: 'Pase 24 h', description: '', hours: 24, price: '1.50' };
const base = {
  party_id: 'r1',
  party_name: 'LAN',
  plan_name: 'Pase 24 h',
  hours: 24,
  amount: '1.50',
  created: '2026-11-28T08:00:00Z',
  url: null,
  payment_url: null,
  claim_by: null,
  guest: null,
  ends_at: null,
};

beforeEach(() => clearTokens());
afterEach(() => vi.restoreAllMocks());

describe('Pases de invitado on the owner’s room page', () => {
  it('lists the link to copy of a ready pass and who uses a claimed one', async () => {
    api.fetchGuestPassPlans.mockResolvedValue([dayPass]);
    api.fetchGuestPasses.mockResolvedValue([
      { ...base, id: 'p1', status: 'ready', status_text: 'Listo para compartir', url: `http://localhost/pase/${TOKEN}`, claim_by: '2026-12-05T08:00:00Z' },
      { ...base, id: 'p2', status: 'claimed', status_text: 'En uso', guest: 'Beto', ends_at: '2026-11-29T08:00:00Z' },
    ]);
    renderWithProviders(<GuestPassSection roomId="r1" />, { route: '/dashboard/partys' });
    const rows = await screen.findAllByTestId('guest-pass-row');
    expect(api.fetchGuestPasses).toHaveBeenCalledWith('r1', expect.anything());
    expect(within(rows[0]!).getByText('Listo para compartir')).toBeInTheDocument();
    expect(within(rows[0]!).getByTestId('guest-pass-url')).toHaveTextContent(`/pase/${TOKEN}`);
    expect(within(rows[0]!).getByRole('button', { name: 'Copiar enlace' })).toBeInTheDocument();
    expect(within(rows[1]!).getByText('En uso')).toBeInTheDocument();
    expect(within(rows[1]!).getByText(/Invitado: Beto/)).toBeInTheDocument();
    expect(within(rows[1]!).queryByRole('button', { name: 'Copiar enlace' })).not.toBeInTheDocument();
  });

  it('buys the chosen pass for this room and shows the refusal in Spanish', async () => {
    api.fetchGuestPassPlans.mockResolvedValue([dayPass]);
    api.fetchGuestPasses.mockResolvedValue([]);
    api.buyGuestPass.mockRejectedValue(
      new ApiError(409, 'Ya tiene 10 pases sin reclamar o sin pagar. Espere a que se usen o venzan.', 'guest_pass_limit'),
    );
    renderWithProviders(<GuestPassSection roomId="r1" />, { route: '/dashboard/partys' });
    await userEvent.setup().click(await screen.findByRole('button', { name: 'Comprar pase' }));
    expect(api.buyGuestPass).toHaveBeenCalledWith('r1', 'g1', null);
    expect(await screen.findByText('Ya tiene 10 pases sin reclamar o sin pagar. Espere a que se usen o venzan.')).toBeInTheDocument();
  });

  it('is not shown when staff sell no passes', async () => {
    api.fetchGuestPassPlans.mockResolvedValue([]);
    api.fetchGuestPasses.mockResolvedValue([]);
    renderWithProviders(<GuestPassSection roomId="r1" />, { route: '/dashboard/partys' });
    await vi.waitFor(() => expect(api.fetchGuestPassPlans).toHaveBeenCalled());
    expect(screen.queryByTestId('guest-passes')).not.toBeInTheDocument();
  });
});

describe('the claim page /pase/{token}', () => {
  const seen = { party_name: 'LAN', owner: 'Ana', plan_name: 'Pase 24 h', hours: 24, claim_by: '2026-12-05T08:00:00Z' };

  it('sends a friend without a session to log in and back', async () => {
    api.fetchPublicGuestPass.mockResolvedValue(seen);
    renderWithProviders(<ClaimPassPage />, { route: `/pase/${TOKEN}`, path: '/pase/:token' });
    expect(await screen.findByText('Ana le regala un lugar en su sala:')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Iniciar sesión' })).toHaveAttribute(
      'href',
      `/login?next=${encodeURIComponent(`/pase/${TOKEN}`)}`,
    );
    expect(screen.queryByRole('button', { name: 'Reclamar pase' })).not.toBeInTheDocument();
  });

  it('claims the pass for a logged-in friend', async () => {
    storeLoginTokens('access', 'refresh', false);
    api.fetchPublicGuestPass.mockResolvedValue(seen);
    api.claimGuestPass.mockResolvedValue({
      message: 'Pase reclamado: su peer beto-pc entra en la sala LAN durante 24 horas.',
      peer_id: 'p9',
      party_id: 'r1',
      ends_at: '2026-11-29T08:00:00Z',
    });
    renderWithProviders(<ClaimPassPage />, { route: `/pase/${TOKEN}`, path: '/pase/:token' });
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText('Nombre del peer'), 'beto-pc');
    await user.click(screen.getByRole('button', { name: 'Reclamar pase' }));
    expect(api.claimGuestPass).toHaveBeenCalledWith(TOKEN, 'beto-pc');
    expect(await screen.findByText(/Pase reclamado: su peer beto-pc entra en la sala LAN/)).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Ir a Peers' })).toHaveAttribute('href', '/dashboard/peers');
  });

  it('says in Spanish why a used link no longer works', async () => {
    api.fetchPublicGuestPass.mockRejectedValue(
      new ApiError(410, 'Este pase de invitado ya fue reclamado: cada pase sirve una sola vez.', 'guest_pass_claimed'),
    );
    renderWithProviders(<ClaimPassPage />, { route: `/pase/${TOKEN}`, path: '/pase/:token' });
    expect(await screen.findByText('Este pase de invitado ya fue reclamado: cada pase sirve una sola vez.')).toBeInTheDocument();
    expect(screen.getByText('No se puede usar este pase')).toBeInTheDocument();
  });
});
