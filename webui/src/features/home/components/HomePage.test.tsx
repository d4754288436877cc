import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../../lib/api';
import { renderWithProviders, testConfig, testUser } from '../../../testing/render';
import * as home from '../api/home';
import { KNOWN_CLIENT_VERSION } from '../client-version';
import { HomePage } from './HomePage';

vi.mock('../api/home', () => ({ fetchHomeData: vi.fn() }));
const fetchHomeData = vi.mocked(home.fetchHomeData);

const current = { version: KNOWN_CLIENT_VERSION, url: 'https://descargas.example/cliente' };

describe('dashboard home', () => {
  it('shows the update notice for a newer client and opens its URL', async () => {
    fetchHomeData.mockResolvedValue({ announcements: [], release: { version: '99.0.0', url: 'https://descargas.example/99' } });
    const open = vi.spyOn(window, 'open').mockReturnValue(null);
    renderWithProviders(<HomePage />, { user: testUser() });
    expect(await screen.findByText('Nueva versión del cliente disponible')).toBeInTheDocument();
    await userEvent.setup().click(screen.getByRole('button', { name: 'Descargar' }));
    expect(open).toHaveBeenCalledWith('https://descargas.example/99', '_blank', 'noopener');
  });

  it('shows no notice when the client is current, and a welcome card without announcements', async () => {
    fetchHomeData.mockResolvedValue({ announcements: [], release: current });
    renderWithProviders(<HomePage />, { user: testUser() });
    expect(await screen.findByText('¡Bienvenido!')).toBeInTheDocument();
    expect(screen.queryByText('Nueva versión del cliente disponible')).not.toBeInTheDocument();
    expect(screen.getByText(/salas privadas/)).toBeInTheDocument();
  });

  it('mentions rooms in the welcome card only when rooms are allowed', async () => {
    fetchHomeData.mockResolvedValue({ announcements: [], release: null });
    renderWithProviders(<HomePage />, {
      user: testUser({ web_settings: { allow_partys: false, allow_email: true } }),
    });
    expect(await screen.findByText('¡Bienvenido!')).toBeInTheDocument();
    expect(screen.queryByText(/salas privadas/)).not.toBeInTheDocument();
  });

  it('lists announcements with Spanish long dates beside the support card', async () => {
    fetchHomeData.mockResolvedValue({
      announcements: [{ id: 1, name: 'Nuevo servidor', created: '2026-03-05T12:00:00Z', message: 'Madrid ya está activo.' }],
      release: current,
    });
    renderWithProviders(<HomePage />, { user: testUser() });
    expect(await screen.findByText('Nuevo servidor')).toBeInTheDocument();
    expect(screen.getByText('5 de marzo de 2026')).toBeInTheDocument();
    expect(screen.getByText('Madrid ya está activo.')).toBeInTheDocument();
    expect(screen.queryByText('¡Bienvenido!')).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Contactar Soporte' })).toBeInTheDocument();
  });

  it('hides the support button when no support URL is configured', async () => {
    fetchHomeData.mockResolvedValue({ announcements: [], release: null });
    renderWithProviders(<HomePage />, { user: testUser(), config: testConfig({ support_url: '' }) });
    expect(await screen.findByText('Soporte')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Contactar Soporte' })).not.toBeInTheDocument();
  });

  it('replaces the section with the error panel when loading fails', async () => {
    fetchHomeData.mockRejectedValue(new ApiError(500, ''));
    renderWithProviders(<HomePage />, { user: testUser() });
    expect(screen.getByText('Cargando información...')).toBeInTheDocument();
    expect(await screen.findByText('Error al cargar la sección')).toBeInTheDocument();
    expect(screen.getByText('Hubo un error al cargar los datos de la sección')).toBeInTheDocument();
  });
});
