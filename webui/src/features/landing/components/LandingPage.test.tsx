import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderWithProviders } from '../../../testing/render';
import { LandingPage, WIREGUARD_INSTALL_URL } from './LandingPage';

describe('landing page', () => {
  it('links to plans, login and registration, the WireGuard download and the Cuba block', () => {
    renderWithProviders(<LandingPage />);
    expect(document.title).toBe('Bienvenido - VPN Prueba');
    expect(screen.getByRole('link', { name: 'Planes' })).toHaveAttribute('href', '/plans');
    expect(screen.getByRole('link', { name: 'Iniciar sesión' })).toHaveAttribute('href', '/login');
    expect(screen.getByRole('link', { name: 'Comienza ahora' })).toHaveAttribute('href', '/register');
    const download = screen.getByRole('link', { name: /Descargar el cliente WireGuard/ });
    expect(download).toHaveAttribute('href', WIREGUARD_INSTALL_URL);
    expect(WIREGUARD_INSTALL_URL).toBe('https://www.wireguard.com/install/');
    expect(screen.getByText(/métodos de pago adaptados a Cuba/)).toBeInTheDocument();
    for (const pitch of ['Seguridad', 'Privacidad', 'Velocidad']) expect(screen.getByText(pitch)).toBeInTheDocument();
  });
});
