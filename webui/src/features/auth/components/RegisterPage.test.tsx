import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../../lib/api';
import { renderWithProviders, testConfig } from '../../../testing/render';
import * as session from '../api/session';
import { CAPTCHA_MESSAGE, MISMATCH_MESSAGE, REQUIRED_MESSAGE, RegisterPage } from './RegisterPage';

vi.mock('../api/session', () => ({ register: vi.fn() }));
const register = vi.mocked(session.register);

const hcaptchaConfig = testConfig({ captcha: { provider: 'hcaptcha', site_key: 'site-key-1' } });

/** A stand-in for the hCaptcha script: renders a button that "solves" the challenge. */
function installFakeHcaptcha() {
  const resets: unknown[] = [];
  const fake = {
    render: (container: HTMLElement, options: { sitekey: string; callback: (token: string) => void }) => {
      const button = document.createElement('button');
      button.type = 'button';
      button.textContent = `resolver captcha ${options.sitekey}`;
      button.onclick = () => options.callback('captcha-token-1');
      container.appendChild(button);
      return 'widget-1';
    },
    reset: (id: unknown) => resets.push(id),
  };
  (window as unknown as { hcaptcha?: unknown }).hcaptcha = fake;
  return resets;
}

afterEach(() => {
  delete (window as unknown as { hcaptcha?: unknown }).hcaptcha;
});

async function fill(fields: { username?: string; password?: string; confirm?: string; email?: string }) {
  const user = userEvent.setup();
  if (fields.username) await user.type(screen.getByLabelText('Usuario'), fields.username);
  if (fields.password) await user.type(screen.getByLabelText('Contraseña'), fields.password);
  if (fields.confirm) await user.type(screen.getByLabelText('Confirmar contraseña'), fields.confirm);
  if (fields.email) await user.type(screen.getByLabelText('Email (opcional)'), fields.email);
  return user;
}

async function submit(user: ReturnType<typeof userEvent.setup>) {
  await user.click(screen.getByRole('button', { name: 'Registrarse' }));
}

describe('register page', () => {
  it('asks for the captcha first when a provider is configured', async () => {
    installFakeHcaptcha();
    renderWithProviders(<RegisterPage />, { route: '/register', config: hcaptchaConfig });
    const user = await fill({ username: 'ana', password: 'secreto123', confirm: 'secreto123' });
    await submit(user);
    expect((await screen.findAllByText(CAPTCHA_MESSAGE)).length).toBeGreaterThan(0);
    expect(register).not.toHaveBeenCalled();
  });

  it('requires username and password', async () => {
    renderWithProviders(<RegisterPage />, { route: '/register' });
    const user = await fill({ username: 'ana' });
    await submit(user);
    expect((await screen.findAllByText(REQUIRED_MESSAGE)).length).toBeGreaterThan(0);
    expect(register).not.toHaveBeenCalled();
  });

  it('requires matching passwords', async () => {
    renderWithProviders(<RegisterPage />, { route: '/register' });
    const user = await fill({ username: 'ana', password: 'secreto123', confirm: 'secreto124' });
    await submit(user);
    expect((await screen.findAllByText(MISMATCH_MESSAGE)).length).toBeGreaterThan(0);
    expect(register).not.toHaveBeenCalled();
  });

  it('shows no captcha widget and needs no token when the config has no captcha', async () => {
    register.mockResolvedValue({ success: true, message: 'ok' });
    renderWithProviders(<RegisterPage />, { route: '/register' });
    expect(screen.queryByTestId('captcha')).not.toBeInTheDocument();
    const user = await fill({ username: 'ana', password: 'secreto123', confirm: 'secreto123' });
    await submit(user);
    expect(await screen.findByRole('heading', { name: 'Registro Completado' })).toBeInTheDocument();
    expect(register).toHaveBeenCalledWith({ username: 'ana', password: 'secreto123', captcha_token: '' });
    expect(await screen.findByRole('link', { name: 'Iniciar sesión' })).toHaveAttribute('href', '/login');
    expect(screen.queryByText(/email de verificación/)).not.toBeInTheDocument();
  });

  it('sends the solved captcha token and the email, and tells a verification email was sent', async () => {
    installFakeHcaptcha();
    register.mockResolvedValue({ success: true, message: 'ok' });
    renderWithProviders(<RegisterPage />, { route: '/register', config: hcaptchaConfig });
    const user = await fill({ username: 'ana', password: 'secreto123', confirm: 'secreto123', email: 'ana@example.com' });
    await user.click(await screen.findByRole('button', { name: 'resolver captcha site-key-1' }));
    await submit(user);

    expect(await screen.findByText(/Le enviamos un email de verificación a/)).toBeInTheDocument();
    expect(register).toHaveBeenCalledWith({
      username: 'ana',
      password: 'secreto123',
      captcha_token: 'captcha-token-1',
      email: 'ana@example.com',
    });
  });

  it('hides the email field when email is not allowed', () => {
    renderWithProviders(<RegisterPage />, { route: '/register', config: testConfig({ allow_email: false }) });
    expect(screen.queryByLabelText('Email (opcional)')).not.toBeInTheDocument();
  });

  it('shows the server message on failure and resets the captcha for the next attempt', async () => {
    const resets = installFakeHcaptcha();
    register.mockRejectedValue(new ApiError(409, 'El usuario ya existe.', 'conflict'));
    renderWithProviders(<RegisterPage />, { route: '/register', config: hcaptchaConfig });
    const user = await fill({ username: 'ana', password: 'secreto123', confirm: 'secreto123' });
    await user.click(await screen.findByRole('button', { name: 'resolver captcha site-key-1' }));
    await submit(user);

    expect((await screen.findAllByText('El usuario ya existe.')).length).toBeGreaterThan(0);
    expect(resets).toEqual(['widget-1']);
    // The used token is gone: a second try asks for the captcha again.
    await submit(user);
    expect((await screen.findAllByText(CAPTCHA_MESSAGE)).length).toBeGreaterThan(0);
    expect(register).toHaveBeenCalledTimes(1);
  });
});
