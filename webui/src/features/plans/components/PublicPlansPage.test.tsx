import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../../lib/api';
import { renderWithProviders, testConfig } from '../../../testing/render';
import * as plans from '../api/plans';
import { PublicPlansPage } from './PublicPlansPage';

vi.mock('../api/plans', () => ({ fetchPlans: vi.fn() }));
const fetchPlans = vi.mocked(plans.fetchPlans);

const monthly = { id: '1', name: 'Mensual', description: 'Un dispositivo. Todos los servidores', validity: '30 days 00:00:00', price: '5' };

describe('public plans page', () => {
  it('loads the plans without a session and links each purchase to registration', async () => {
    fetchPlans.mockResolvedValue([monthly]);
    renderWithProviders(<PublicPlansPage />, { route: '/plans' });
    expect(await screen.findByRole('heading', { name: 'Mensual' })).toBeInTheDocument();
    expect(fetchPlans).toHaveBeenCalledWith(false, expect.anything());
    expect(await screen.findByText('Validez: 1 mes')).toBeInTheDocument();
    expect(await screen.findByText('$5 USD')).toBeInTheDocument();
    expect(await screen.findByText('Todos los servidores')).toBeInTheDocument();
    expect(await screen.findByRole('link', { name: 'Adquirir Plan' })).toHaveAttribute('href', '/register');
    expect(await screen.findByRole('link', { name: 'Iniciar sesión' })).toHaveAttribute('href', '/login');
    expect(await screen.findByRole('link', { name: 'Registrarse' })).toHaveAttribute('href', '/register');
  });

  it('hides the register button when registration is off', async () => {
    fetchPlans.mockResolvedValue([monthly]);
    renderWithProviders(<PublicPlansPage />, { route: '/plans', config: testConfig({ allow_registration: false }) });
    await screen.findByRole('heading', { name: 'Mensual' });
    expect(screen.queryByRole('link', { name: 'Registrarse' })).not.toBeInTheDocument();
  });

  it('shows the empty state with a refresh that loads again', async () => {
    fetchPlans.mockResolvedValueOnce([]).mockResolvedValueOnce([monthly]);
    renderWithProviders(<PublicPlansPage />, { route: '/plans' });
    expect(await screen.findByText('Planes Temporalmente No Disponibles')).toBeInTheDocument();
    await userEvent.setup().click(screen.getAllByRole('button', { name: 'Actualizar' })[1]!);
    expect(await screen.findByRole('heading', { name: 'Mensual' })).toBeInTheDocument();
  });

  it('shows the error with a retry', async () => {
    fetchPlans.mockRejectedValueOnce(new ApiError(0, '')).mockResolvedValueOnce([monthly]);
    renderWithProviders(<PublicPlansPage />, { route: '/plans' });
    expect(
      await screen.findByText('Hubo un problema al cargar los planes. Por favor, intente de nuevo más tarde.'),
    ).toBeInTheDocument();
    await userEvent.setup().click(await screen.findByRole('button', { name: 'Reintentar' }));
    expect(await screen.findByRole('heading', { name: 'Mensual' })).toBeInTheDocument();
  });
});
