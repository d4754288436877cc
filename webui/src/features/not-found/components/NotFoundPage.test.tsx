import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderWithProviders } from '../../../testing/render';
import { NotFoundPage } from './NotFoundPage';

describe('404 page', () => {
  it('says the page was not found and leads back to login', () => {
    renderWithProviders(<NotFoundPage />, { route: '/no-existe' });
    expect(screen.getByRole('heading', { name: 'Página no encontrada' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Volver al login' })).toHaveAttribute('href', '/login');
  });
});
