import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../lib/api';
import * as currentUser from '../../lib/current-user';
import { renderWithProviders, testUser } from '../../testing/render';
import { DashboardLayout } from './DashboardLayout';
import * as logoutModule from './logout';

vi.mock('../../lib/current-user', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../../lib/current-user')>()),
  verifySession: vi.fn(),
}));
vi.mock('./logout', () => ({ logout: vi.fn() }));

const verifySession = vi.mocked(currentUser.verifySession);
const logout = vi.mocked(logoutModule.logout);

function Boom(): never {
  throw new Error('fallo de render');
}

function renderDashboard(route = '/dashboard/home') {
  return renderWithProviders(<></>, {
    route,
    routes: [
      {
        path: '/dashboard',
        element: <DashboardLayout />,
        children: [
          { path: 'home', element: <p>contenido de home</p> },
          { path: 'broken', element: <Boom /> },
        ],
      },
      { path: '/login', element: <p>pantalla de login</p> },
      { path: '/maintenance', element: <p>en mantenimiento</p> },
    ],
  });
}

function signIn() {
  window.localStorage.setItem('access_token', 'acc');
  window.localStorage.setItem('refresh_token', 'ref');
}

describe('dashboard shell', () => {
  it('goes to login without any token', async () => {
    renderDashboard();
    expect(await screen.findByText('pantalla de login')).toBeInTheDocument();
    expect(verifySession).not.toHaveBeenCalled();
  });

  it('shows Verificando acceso while the session is checked, then greets the user', async () => {
    signIn();
    let accept: (user: currentUser.CurrentUser) => void = () => undefined;
    verifySession.mockReturnValue(new Promise((resolve) => (accept = resolve)));
    renderDashboard();
    expect(await screen.findByText('Verificando acceso')).toBeInTheDocument();

    accept(testUser({ username: 'marta' }));
    expect(await screen.findByText('contenido de home')).toBeInTheDocument();
    expect(await screen.findByText(/^Bienvenido/)).toBeInTheDocument();
    expect(await screen.findByText('marta')).toBeInTheDocument();
  });

  it('shows Salas in the navigation only when rooms are allowed', async () => {
    signIn();
    verifySession.mockResolvedValue(testUser());
    const { unmount } = renderDashboard();
    const navigation = await screen.findByRole('navigation', { name: 'Navegación' });
    expect(navigation).toHaveTextContent(/Home.*Peers.*Salas.*Planes.*Facturas.*Ayuda/);
    unmount();

    signIn();
    verifySession.mockResolvedValue(testUser({ web_settings: { allow_partys: false, allow_email: true } }));
    renderDashboard();
    const narrow = await screen.findByRole('navigation', { name: 'Navegación' });
    expect(narrow).toHaveTextContent(/Home.*Peers.*Planes.*Facturas.*Ayuda/);
    expect(screen.queryByRole('link', { name: 'Salas' })).not.toBeInTheDocument();
  });

  it('sends an invalid session to login and a 503 to maintenance', async () => {
    signIn();
    verifySession.mockRejectedValue(new ApiError(401, ''));
    const { unmount } = renderDashboard();
    expect(await screen.findByText('pantalla de login')).toBeInTheDocument();
    expect(window.localStorage.getItem('access_token')).toBeNull();
    unmount();

    signIn();
    verifySession.mockRejectedValue(new ApiError(503, 'El servicio está en mantenimiento. Intente más tarde.'));
    renderDashboard();
    expect(await screen.findByText('en mantenimiento')).toBeInTheDocument();
  });

  it('logs out to the login page even when the server call fails', async () => {
    signIn();
    verifySession.mockResolvedValue(testUser());
    logout.mockImplementation(async () => {
      window.localStorage.clear();
      return false;
    });
    renderDashboard();
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: /menú de usuario/i }));
    expect(await screen.findByRole('menuitem', { name: 'Configuración de cuenta' })).toHaveAttribute(
      'href',
      '/dashboard/settings',
    );
    await user.click(await screen.findByRole('menuitem', { name: 'Cerrar sesión' }));
    expect(await screen.findByText('pantalla de login')).toBeInTheDocument();
    expect(await screen.findByText('Hubo un error al intentar cerrar la sesión.')).toBeInTheDocument();
  });

  it('catches a failing section with Oops! Algo salió mal and offers retry and back-to-start', async () => {
    signIn();
    verifySession.mockResolvedValue(testUser());
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    renderDashboard('/dashboard/broken');
    expect(await screen.findByText('Oops! Algo salió mal')).toBeInTheDocument();
    expect(await screen.findByRole('button', { name: 'Reintentar' })).toBeInTheDocument();
    expect(await screen.findByRole('link', { name: 'Volver al inicio' })).toHaveAttribute('href', '/dashboard/home');
    // The header stays usable around the failed section.
    await waitFor(() => expect(screen.getByText(/^Bienvenido/)).toBeInTheDocument());
  });
});
