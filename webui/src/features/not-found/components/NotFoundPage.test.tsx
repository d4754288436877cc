import { screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { renderWithProviders } from '../../../testing/render';
import { NotFoundPage } from './NotFoundPage';

afterEach(() => window.localStorage.clear());

describe('404 page', () => {
  it('says the page was not found and leads a visitor back to login', () => {
    renderWithProviders(<NotFoundPage />, { route: '/no-existe' });
    expect(screen.getByRole('heading', { name: 'Página no encontrada' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Volver al login' })).toHaveAttribute('href', '/login');
  });

  it('leads a signed-in customer back to the dashboard', () => {
    window.localStorage.setItem('access_token', 'acc');
    renderWithProviders(<NotFoundPage />, { route: '/dashboard/no-existe' });
    expect(screen.getByRole('heading', { name: 'Página no encontrada' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Volver al Dashboard' })).toHaveAttribute('href', '/dashboard/home');
    expect(screen.queryByRole('link', { name: 'Volver al login' })).not.toBeInTheDocument();
  });

  it('leads staff back to the manager panel', () => {
    window.localStorage.setItem('access_token', 'acc');
    renderWithProviders(<NotFoundPage />, { route: '/manager/dashboard/nada' });
    expect(screen.getByRole('link', { name: 'Volver al panel' })).toHaveAttribute('href', '/manager/dashboard');
  });
});
