import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../../lib/api';
import { renderWithProviders } from '../../../testing/render';
import * as session from '../api/session';
import { PasswordRecoveryPage } from './PasswordRecoveryPage';
import { PasswordResetPage } from './PasswordResetPage';
import { VerifyEmailPage } from './VerifyEmailPage';

vi.mock('../api/session', () => ({
  requestPasswordRecovery: vi.fn(),
  resetPassword: vi.fn(),
  verifyEmail: vi.fn(),
}));
const requestPasswordRecovery = vi.mocked(session.requestPasswordRecovery);
const resetPassword = vi.mocked(session.resetPassword);
const verifyEmail = vi.mocked(session.verifyEmail);

describe('password recovery page', () => {
  it('shows Email enviado after submitting and returns to the form on retry', async () => {
    requestPasswordRecovery.mockResolvedValue({ success: true, message: 'Si la cuenta existe, le enviamos un enlace.' });
    renderWithProviders(<PasswordRecoveryPage />, { route: '/password-recovery' });
    expect(document.title).toBe('Recuperar Contraseña - VPN Prueba');
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText('Usuario'), 'ana');
    await user.click(await screen.findByRole('button', { name: 'Enviar' }));

    expect(await screen.findByRole('heading', { name: 'Email enviado' })).toBeInTheDocument();
    expect(requestPasswordRecovery).toHaveBeenCalledWith('ana');
    await user.click(await screen.findByRole('button', { name: 'Intentar de nuevo' }));
    expect(await screen.findByLabelText('Usuario')).toHaveValue('');
  });
});

describe('password reset page', () => {
  it('checks the two passwords, then sets the new one with the link token', async () => {
    resetPassword.mockResolvedValue({ success: true, message: 'Contraseña restablecida. Ya puede iniciar sesión.' });
    renderWithProviders(<PasswordResetPage />, { route: '/password-reset?token=tok-1' });
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Cambiar contraseña' }));
    expect((await screen.findAllByText('Las contraseñas no pueden estar en blanco.')).length).toBeGreaterThan(0);

    await user.type(await screen.findByLabelText('Nueva contraseña'), 'nueva12345');
    await user.type(await screen.findByLabelText('Confirmar contraseña'), 'otra123456');
    await user.click(await screen.findByRole('button', { name: 'Cambiar contraseña' }));
    expect((await screen.findAllByText('Las contraseñas no coinciden.')).length).toBeGreaterThan(0);
    expect(resetPassword).not.toHaveBeenCalled();

    await user.clear(await screen.findByLabelText('Confirmar contraseña'));
    await user.type(await screen.findByLabelText('Confirmar contraseña'), 'nueva12345');
    await user.click(await screen.findByRole('button', { name: 'Cambiar contraseña' }));
    expect(await screen.findByText('Contraseña restablecida. Ya puede iniciar sesión.')).toBeInTheDocument();
    expect(resetPassword).toHaveBeenCalledWith('tok-1', 'nueva12345');
  });

  it('shows the server message for a used or expired link', async () => {
    resetPassword.mockRejectedValue(new ApiError(400, 'El enlace ya no es válido.', 'reset_token_invalid'));
    renderWithProviders(<PasswordResetPage />, { route: '/password-reset?token=viejo' });
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText('Nueva contraseña'), 'nueva12345');
    await user.type(await screen.findByLabelText('Confirmar contraseña'), 'nueva12345');
    await user.click(await screen.findByRole('button', { name: 'Cambiar contraseña' }));
    expect((await screen.findAllByText('El enlace ya no es válido.')).length).toBeGreaterThan(0);
  });

  it('explains a link without token', () => {
    renderWithProviders(<PasswordResetPage />, { route: '/password-reset' });
    expect(screen.getByText('El enlace no es válido o ha caducado. Solicite uno nuevo.')).toBeInTheDocument();
    expect(screen.queryByLabelText('Nueva contraseña')).not.toBeInTheDocument();
  });
});

describe('verify email page', () => {
  it('sends the token once and shows the answer', async () => {
    verifyEmail.mockResolvedValue({ success: true, message: 'Email verificado.' });
    renderWithProviders(<VerifyEmailPage />, { route: '/verify-email?token=v-1' });
    expect(await screen.findByText('Email verificado.')).toBeInTheDocument();
    expect(verifyEmail).toHaveBeenCalledTimes(1);
    expect(verifyEmail).toHaveBeenCalledWith('v-1');
  });

  it('shows why a bad link failed', async () => {
    verifyEmail.mockRejectedValue(new ApiError(400, 'El enlace de verificación no es válido.'));
    renderWithProviders(<VerifyEmailPage />, { route: '/verify-email?token=v-2' });
    expect(await screen.findByText('El enlace de verificación no es válido.')).toBeInTheDocument();
  });
});
