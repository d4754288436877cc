import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import type { CurrentUser } from '../../../lib/current-user';
import { renderWithProviders, testUser } from '../../../testing/render';
import * as settings from '../api/settings';
import { SettingsPage } from './SettingsPage';

vi.mock('../api/settings', () => ({ updateSettings: vi.fn(), removeEmail: vi.fn() }));
const updateSettings = vi.mocked(settings.updateSettings);
const removeEmail = vi.mocked(settings.removeEmail);

function renderSettings(user: CurrentUser = testUser()) {
  const setUser = vi.fn();
  renderWithProviders(<SettingsPage />, { route: '/dashboard/settings', user, setUser });
  return { setUser, actor: userEvent.setup() };
}

function section(title: string): HTMLElement {
  const heading = screen.getByRole('heading', { name: title });
  return heading.closest('.mantine-Card-root') as HTMLElement;
}

describe('settings page', () => {
  it('shows the username read-only', () => {
    renderSettings();
    const field = within(section('Cuenta')).getByLabelText('Usuario');
    expect(field).toHaveValue('ana');
    expect(field).toHaveAttribute('readonly');
  });

  it('hides alias without rooms and email without allow_email', () => {
    renderSettings(testUser({ web_settings: { allow_partys: false, allow_email: false } }));
    expect(screen.queryByLabelText('Alias')).not.toBeInTheDocument();
    expect(screen.queryByLabelText('Email')).not.toBeInTheDocument();
    expect(screen.getByLabelText('Contraseña actual')).toBeInTheDocument();
  });

  it('refuses a blank alias', async () => {
    const { actor } = renderSettings();
    await actor.clear(screen.getByLabelText('Alias'));
    await actor.click(screen.getByRole('button', { name: 'Modificar' }));
    expect(await screen.findByText('El alias no puede estar en blanco')).toBeInTheDocument();
    expect(updateSettings).not.toHaveBeenCalled();
  });

  it('configures a first alias and replaces the current user with the answer', async () => {
    const answer = testUser({ alias: 'nuevo' });
    updateSettings.mockResolvedValue(answer);
    const { actor, setUser } = renderSettings(testUser({ alias: null }));
    await actor.type(screen.getByLabelText('Alias'), 'nuevo');
    await actor.click(screen.getByRole('button', { name: 'Configurar' }));
    expect(await screen.findByText('Alias configurado correctamente.')).toBeInTheDocument();
    expect(updateSettings).toHaveBeenCalledWith({ alias: 'nuevo' });
    expect(setUser).toHaveBeenCalledWith(answer);
  });

  it('says the alias was modified when there was one', async () => {
    updateSettings.mockResolvedValue(testUser({ alias: 'otro' }));
    const { actor } = renderSettings();
    await actor.clear(screen.getByLabelText('Alias'));
    await actor.type(screen.getByLabelText('Alias'), 'otro');
    await actor.click(screen.getByRole('button', { name: 'Modificar' }));
    expect(await screen.findByText('Alias modificado correctamente.')).toBeInTheDocument();
  });

  it('refuses a blank email and the same email', async () => {
    const { actor } = renderSettings();
    const email = screen.getByLabelText('Email');
    await actor.click(screen.getByRole('button', { name: 'Guardar email' }));
    expect(await screen.findByText('El nuevo email no puede ser igual q el anterior')).toBeInTheDocument();
    await actor.clear(email);
    await actor.click(screen.getByRole('button', { name: 'Guardar email' }));
    expect(await screen.findByText('El email no puede estar en blanco')).toBeInTheDocument();
    expect(updateSettings).not.toHaveBeenCalled();
  });

  it('changes and removes the email', async () => {
    updateSettings.mockResolvedValue(testUser({ email: 'nueva@example.com' }));
    removeEmail.mockResolvedValue(testUser({ email: null }));
    const { actor } = renderSettings();
    await actor.clear(screen.getByLabelText('Email'));
    await actor.type(screen.getByLabelText('Email'), 'nueva@example.com');
    await actor.click(screen.getByRole('button', { name: 'Guardar email' }));
    expect(await screen.findByText('Email modificado correctamente.')).toBeInTheDocument();
    expect(updateSettings).toHaveBeenCalledWith({ email: 'nueva@example.com' });

    await actor.click(screen.getByRole('button', { name: 'Eliminar email' }));
    expect(await screen.findByText('Email eliminado correctamente')).toBeInTheDocument();
    expect(removeEmail).toHaveBeenCalled();
  });

  it.each([
    [{ old: '', next: 'nueva12345', confirm: 'nueva12345' }, 'Las contraseñas no pueden estar en blanco.'],
    [{ old: 'vieja12345', next: 'nueva12345', confirm: 'otra123456' }, 'Las contraseñas no coinciden.'],
    [{ old: 'misma12345', next: 'misma12345', confirm: 'misma12345' }, 'La nueva contraseña no puede ser igual a la anterior.'],
  ])('refuses the password change %#: %s', async (input, message) => {
    const { actor } = renderSettings();
    if (input.old) await actor.type(screen.getByLabelText('Contraseña actual'), input.old);
    await actor.type(screen.getByLabelText('Nueva contraseña'), input.next);
    await actor.type(screen.getByLabelText('Confirmar nueva contraseña'), input.confirm);
    await actor.click(screen.getByRole('button', { name: 'Cambiar contraseña' }));
    expect(await screen.findByText(message)).toBeInTheDocument();
    expect(updateSettings).not.toHaveBeenCalled();
  });

  it('changes the password and clears the fields', async () => {
    updateSettings.mockResolvedValue(testUser());
    const { actor } = renderSettings();
    await actor.type(screen.getByLabelText('Contraseña actual'), 'vieja12345');
    await actor.type(screen.getByLabelText('Nueva contraseña'), 'nueva12345');
    await actor.type(screen.getByLabelText('Confirmar nueva contraseña'), 'nueva12345');
    await actor.click(screen.getByRole('button', { name: 'Cambiar contraseña' }));
    expect(await screen.findByText('Contraseña cambiada correctamente.')).toBeInTheDocument();
    expect(updateSettings).toHaveBeenCalledWith({ old_password: 'vieja12345', new_password: 'nueva12345' });
    expect(screen.getByLabelText('Contraseña actual')).toHaveValue('');
  });
});
