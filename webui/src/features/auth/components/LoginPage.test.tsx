import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RootLayout } from '../../../app/RootLayout';
import { ApiError } from '../../../lib/api';
import { renderWithProviders, testConfig } from '../../../testing/render';
import * as session from '../api/session';
import { FRESH_CONFIG_MS, LOGIN_REQUIRED_MESSAGE, LoginPage } from './LoginPage';
import { LOGIN_CAPTCHA_MESSAGE } from './login-captcha';

vi.mock('../api/session', () => ({
  login: vi.fn(),
  fetchStatus: vi.fn(),
}));

const login = vi.mocked(session.login);
const fetchStatus = vi.mocked(session.fetchStatus);

const dashboard = { path: '/dashboard/home', element: <p>panel del cliente</p> };

function renderLogin(config = testConfig()) {
  return renderWithProviders(<LoginPage />, { route: '/login', config, otherRoutes: [dashboard] });
}

async function fillAndSubmit(username: string, password: string, remember = false) {
  const user = userEvent.setup();
  if (username) await user.type(screen.getByLabelText('Usuario'), username);
  if (password) await user.type(screen.getByLabelText('Contraseña'), password);
  if (remember) await user.click(screen.getByLabelText('Recordarme'));
  await user.click(screen.getByRole('button', { name: 'Iniciar sesión' }));
}

beforeEach(() => {
  fetchStatus.mockResolvedValue({ maintenance: false });
});

/** A stand-in for the hCaptcha script: a button that "solves" the challenge with a new token each time. */
function installFakeHcaptcha() {
  const resets: unknown[] = [];
  let solved = 0;
  (window as unknown as { hcaptcha?: unknown }).hcaptcha = {
    render: (container: HTMLElement, options: { sitekey: string; callback: (token: string) => void }) => {
      const button = document.createElement('button');
      button.type = 'button';
      button.textContent = `resolver captcha ${options.sitekey}`;
      button.onclick = () => options.callback(`captcha-token-${++solved}`);
      container.appendChild(button);
      return 'widget-1';
    },
    reset: (id: unknown) => resets.push(id),
  };
  return resets;
}

afterEach(() => {
  delete (window as unknown as { hcaptcha?: unknown }).hcaptcha;
  vi.clearAllMocks();
});

const captchaConfig = testConfig({ captcha: { provider: 'hcaptcha', site_key: 'site-key-1' } });
const CAPTCHA_REQUIRED = new ApiError(422, 'Por favor, complete el captcha.', 'captcha_required');

describe('login page', () => {
  it('requires both fields before calling the server', async () => {
    renderLogin();
    await fillAndSubmit('ana', '');
    expect((await screen.findAllByText(LOGIN_REQUIRED_MESSAGE)).length).toBeGreaterThan(0);
    expect(login).not.toHaveBeenCalled();
  });

  it('shows Procesando... while busy and the server message on failure', async () => {
    let fail: (error: unknown) => void = () => undefined;
    login.mockReturnValue(new Promise((_, reject) => (fail = reject)));
    renderLogin();

    await fillAndSubmit('ana', 'mala');
    const busyButton = await screen.findByRole('button', { name: 'Procesando...' });
    expect(busyButton).toBeDisabled();

    fail(new ApiError(401, 'Usuario o contraseña incorrectos.', 'invalid_credentials'));
    expect((await screen.findAllByText('Usuario o contraseña incorrectos.')).length).toBeGreaterThan(0);
    expect(await screen.findByRole('button', { name: 'Iniciar sesión' })).toBeEnabled();
    expect(window.localStorage.getItem('access_token')).toBeNull();
  });

  it("falls back to the contract's text when the server is unreachable", async () => {
    login.mockRejectedValue(new ApiError(0, ''));
    renderLogin();
    await fillAndSubmit('ana', 'secreto123');
    expect(
      (await screen.findAllByText('Error al iniciar sesión. Por favor, intente de nuevo.')).length,
    ).toBeGreaterThan(0);
  });

  it('with Recordarme stores both tokens and opens the dashboard home', async () => {
    login.mockResolvedValue({ access: 'acc', refresh: 'ref', message: 'Bienvenido', success: true });
    renderLogin();
    await fillAndSubmit('ana', 'secreto123', true);

    expect(await screen.findByText('panel del cliente')).toBeInTheDocument();
    expect(login).toHaveBeenCalledWith({ username: 'ana', password: 'secreto123', remember: true });
    expect(window.localStorage.getItem('access_token')).toBe('acc');
    expect(window.localStorage.getItem('refresh_token')).toBe('ref');
  });

  it('without Recordarme keeps the refresh token out of localStorage', async () => {
    login.mockResolvedValue({ access: 'acc', refresh: 'ref', message: '', success: true });
    renderLogin();
    await fillAndSubmit('ana', 'secreto123');
    expect(await screen.findByText('panel del cliente')).toBeInTheDocument();
    expect(window.localStorage.getItem('refresh_token')).toBeNull();
  });

  it('shows the password with the toggle', async () => {
    renderLogin();
    const field = await screen.findByLabelText('Contraseña');
    expect(field).toHaveAttribute('type', 'password');
    await userEvent.setup().click(await screen.findByLabelText('Mostrar u ocultar contraseña'));
    expect(field).toHaveAttribute('type', 'text');
  });

  it('shows recovery, register and home links only when the switches allow them', () => {
    const { unmount } = renderLogin();
    expect(screen.getByRole('link', { name: '¿Olvidó su contraseña?' })).toHaveAttribute('href', '/password-recovery');
    expect(screen.getByRole('link', { name: 'Crear una cuenta' })).toHaveAttribute('href', '/register');
    expect(screen.getByRole('link', { name: 'Volver al inicio' })).toHaveAttribute('href', '/');
    unmount();

    renderLogin(testConfig({ allow_email: false, allow_registration: false, show_landing: false }));
    expect(screen.queryByRole('link', { name: '¿Olvidó su contraseña?' })).not.toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'Crear una cuenta' })).not.toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'Volver al inicio' })).not.toBeInTheDocument();
  });

  it('sends the visitor to /maintenance when the status check reports maintenance', async () => {
    fetchStatus.mockResolvedValue({ maintenance: true });
    const { router } = renderWithProviders(<></>, {
      route: '/login',
      config: testConfig({ show_landing: false }),
      routes: [
        {
          element: <RootLayout />,
          children: [
            { path: '/login', element: <LoginPage /> },
            { path: '/maintenance', element: <p>en mantenimiento</p> },
          ],
        },
      ],
    });
    expect(await screen.findByText('en mantenimiento')).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/maintenance');
  });

  it('skips the status check when the public configuration was read a moment ago', async () => {
    renderWithProviders(<LoginPage />, { route: '/login', configReadAt: Date.now() - 2_000 });
    expect(await screen.findByRole('button', { name: 'Iniciar sesión' })).toBeInTheDocument();
    expect(fetchStatus).not.toHaveBeenCalled();
  });

  it('runs the status check when the public configuration is older than a minute', async () => {
    renderWithProviders(<LoginPage />, { route: '/login', configReadAt: Date.now() - FRESH_CONFIG_MS - 1_000 });
    await waitFor(() => expect(fetchStatus).toHaveBeenCalledTimes(1));
  });

  it('sends the visitor to /maintenance when the status check answers 503', async () => {
    fetchStatus.mockRejectedValue(new ApiError(503, 'El servicio está en mantenimiento. Intente más tarde.'));
    const { router } = renderWithProviders(<></>, {
      route: '/login',
      config: testConfig({ show_landing: false }),
      routes: [
        {
          element: <RootLayout />,
          children: [
            { path: '/login', element: <LoginPage /> },
            { path: '/maintenance', element: <p>en mantenimiento</p> },
          ],
        },
      ],
    });
    await waitFor(() => expect(router.state.location.pathname).toBe('/maintenance'));
  });

  it('shows the captcha once the server asks for it, and sends the solved token with the next try', async () => {
    const resets = installFakeHcaptcha();
    login.mockRejectedValueOnce(CAPTCHA_REQUIRED);
    login.mockResolvedValueOnce({ access: 'acc', refresh: 'ref', message: '', success: true });
    renderLogin(captchaConfig);
    expect(screen.queryByTestId('captcha')).not.toBeInTheDocument(); // nothing to solve before the server asks

    await fillAndSubmit('ana', 'secreto123');
    expect((await screen.findAllByText(LOGIN_CAPTCHA_MESSAGE)).length).toBeGreaterThan(0);
    expect(login).toHaveBeenLastCalledWith({ username: 'ana', password: 'secreto123', remember: false });
    const user = userEvent.setup();
    const solve = await screen.findByRole('button', { name: 'resolver captcha site-key-1' });

    // Sending without solving it stays in the form.
    await user.click(await screen.findByRole('button', { name: 'Iniciar sesión' }));
    expect(login).toHaveBeenCalledTimes(1);

    await user.click(solve);
    await user.click(await screen.findByRole('button', { name: 'Iniciar sesión' }));
    expect(await screen.findByText('panel del cliente')).toBeInTheDocument();
    expect(login).toHaveBeenLastCalledWith({
      username: 'ana',
      password: 'secreto123',
      remember: false,
      captcha_token: 'captcha-token-1',
    });
    expect(resets).toEqual([]); // the widget was shown fresh: nothing to reset before the solved try
  });

  it('gives a new challenge after a refused token, and needs it solved again', async () => {
    const resets = installFakeHcaptcha();
    login.mockRejectedValueOnce(CAPTCHA_REQUIRED);
    login.mockRejectedValueOnce(
      new ApiError(422, 'La verificación del captcha falló. Intente de nuevo.', 'captcha_failed'),
    );
    renderLogin(captchaConfig);
    await fillAndSubmit('ana', 'secreto123');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'resolver captcha site-key-1' }));
    await user.click(await screen.findByRole('button', { name: 'Iniciar sesión' }));
    expect(
      (await screen.findAllByText('La verificación del captcha falló. Intente de nuevo.')).length,
    ).toBeGreaterThan(0);
    expect(resets).toEqual(['widget-1']); // single-use token: the challenge starts over
    await user.click(await screen.findByRole('button', { name: 'Iniciar sesión' }));
    expect((await screen.findAllByText(LOGIN_CAPTCHA_MESSAGE)).length).toBeGreaterThan(0);
    expect(login).toHaveBeenCalledTimes(2);
  });

  it('without a captcha configured shows no widget even if the server asks', async () => {
    login.mockRejectedValue(CAPTCHA_REQUIRED);
    renderLogin();
    await fillAndSubmit('ana', 'secreto123');
    expect((await screen.findAllByText('Por favor, complete el captcha.')).length).toBeGreaterThan(0);
    expect(screen.queryByTestId('captcha')).not.toBeInTheDocument();
  });
});
