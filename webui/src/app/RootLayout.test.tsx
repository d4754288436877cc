import { MantineProvider } from '@mantine/core';
import { render, screen } from '@testing-library/react';
import { RouterProvider, createMemoryRouter } from 'react-router';
import { describe, expect, it } from 'vitest';
import { PublicConfigProvider, type PublicConfigState } from '../lib/public-config';
import { testConfig } from '../testing/render';
import { RootLayout } from './RootLayout';
import { theme } from './theme';

function renderAt(path: string, state: PublicConfigState) {
  const router = createMemoryRouter(
    [
      {
        element: <RootLayout />,
        children: [
          { path: '/', element: <p>landing</p> },
          { path: '/login', element: <p>login</p> },
          { path: '/register', element: <p>registro</p> },
          { path: '/maintenance', element: <p>mantenimiento</p> },
        ],
      },
    ],
    { initialEntries: [path] },
  );
  render(
    <MantineProvider theme={theme} env="test">
      <PublicConfigProvider initialState={state}>
        <RouterProvider router={router} />
      </PublicConfigProvider>
    </MantineProvider>,
  );
  return router;
}

describe('root layout guest gate', () => {
  it('sends everything to /maintenance when the config load answered 503', async () => {
    const router = renderAt('/register', { status: 'maintenance' });
    expect(await screen.findByText('mantenimiento')).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/maintenance');
  });

  it('applies the config switches before showing a page', async () => {
    const router = renderAt('/', { status: 'ready', config: testConfig({ show_landing: false }) });
    expect(await screen.findByText('login')).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/login');
  });

  it('shows the page when the gate lets it through', () => {
    renderAt('/register', { status: 'ready', config: testConfig() });
    expect(screen.getByText('registro')).toBeInTheDocument();
  });

  it('offers a retry when the config cannot be loaded', () => {
    renderAt('/', { status: 'error', message: '' });
    expect(screen.getByText('Hubo un error al cargar los datos.')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Reintentar' })).toBeInTheDocument();
  });
});
