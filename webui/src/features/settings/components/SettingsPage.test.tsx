import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { useState } from 'react';
import { CurrentUserProvider, type CurrentUser } from '../../../lib/current-user';
import { renderWithProviders, testUser } from '../../../testing/render';
import * as api from '../../../lib/api';
import * as settings from '../api/settings';
import { SettingsPage } from './SettingsPage';

vi.mock('../api/settings', () => ({ updateSettings: vi.fn(), removeEmail: vi.fn(), deleteAccount: vi.fn() }));
vi.mock('../../../lib/api', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../../../lib/api')>()),
  endSession: vi.fn(),
}));
const updateSettings = vi.mocked(settings.updateSettings);
const removeEmail = vi.mocked(settings.removeEmail);
const deleteAccount = vi.mocked(settings.deleteAccount);
const endSession = vi.mocked(api.endSession);

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
    await actor.clear(await screen.findByLabelText('Alias'));
    await actor.click(await screen.findByRole('button', { name: 'Modificar' }));
    expect(await screen.findByText('El alias no puede estar en blanco')).toBeInTheDocument();
    expect(updateSettings).not.toHaveBeenCalled();
  });

  it('configures a first alias and replaces the current user with the answer', async () => {
    const answer = testUser({ alias: 'nuevo' });
    updateSettings.mockResolvedValue(answer);
    const { actor, setUser } = renderSettings(testUser({ alias: null }));
    await actor.type(await screen.findByLabelText('Alias'), 'nuevo');
    await actor.click(await screen.findByRole('button', { name: 'Configurar' }));
    expect(await screen.findByText('Alias configurado correctamente.')).toBeInTheDocument();
    expect(updateSettings).toHaveBeenCalledWith({ alias: 'nuevo' });
    expect(setUser).toHaveBeenCalledWith(answer);
  });

  it('says the alias was modified when there was one', async () => {
    updateSettings.mockResolvedValue(testUser({ alias: 'otro' }));
    const { actor } = renderSettings();
    await actor.clear(await screen.findByLabelText('Alias'));
    await actor.type(await screen.findByLabelText('Alias'), 'otro');
    await actor.click(await screen.findByRole('button', { name: 'Modificar' }));
    expect(await screen.findByText('Alias modificado correctamente.')).toBeInTheDocument();
  });

  it('refuses a blank email and the same email', async () => {
    const { actor } = renderSettings();
    const email = await screen.findByLabelText('Email');
    await actor.click(await screen.findByRole('button', { name: 'Guardar email' }));
    expect(await screen.findByText('El nuevo email no puede ser igual q el anterior')).toBeInTheDocument();
    await actor.clear(email);
    await actor.click(await screen.findByRole('button', { name: 'Guardar email' }));
    expect(await screen.findByText('El email no puede estar en blanco')).toBeInTheDocument();
    expect(updateSettings).not.toHaveBeenCalled();
  });

  it('changes and removes the email', async () => {
    updateSettings.mockResolvedValue(testUser({ email: 'nueva@example.com' }));
    removeEmail.mockResolvedValue(testUser({ email: null }));
    const { actor } = renderSettings();
    await actor.clear(await screen.findByLabelText('Email'));
    await actor.type(await screen.findByLabelText('Email'), 'nueva@example.com');
    await actor.click(await screen.findByRole('button', { name: 'Guardar email' }));
    expect(await screen.findByText('Email modificado correctamente.')).toBeInTheDocument();
    expect(updateSettings).toHaveBeenCalledWith({ email: 'nueva@example.com' });

    await actor.click(await screen.findByRole('button', { name: 'Eliminar email' }));
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
    await actor.type(await screen.findByLabelText('Contraseña actual'), 'vieja12345');
    await actor.type(await screen.findByLabelText('Nueva contraseña'), 'nueva12345');
    await actor.type(await screen.findByLabelText('Confirmar nueva contraseña'), 'nueva12345');
    await actor.click(await screen.findByRole('button', { name: 'Cambiar contraseña' }));
    expect(await screen.findByText('Contraseña cambiada correctamente.')).toBeInTheDocument();
    expect(updateSettings).toHaveBeenCalledWith({ old_password: 'vieja12345', new_password: 'nueva12345' });
    expect(await screen.findByLabelText('Contraseña actual')).toHaveValue('');
  });

  it('shows a verified email as verified', () => {
    renderSettings(testUser({ email: 'ana@example.com', email_verified: true }));
    expect(within(section('Email')).getByText('Verificado')).toBeInTheDocument();
    expect(screen.queryByText('Email sin verificar')).not.toBeInTheDocument();
  });

  it('after a change, says the new address is unverified and that a link was sent to it', async () => {
    updateSettings.mockResolvedValue(testUser({ email: 'nueva@example.com', email_verified: false }));
    // The page's own user state, so the answer replaces the shown user as in the dashboard.
    function Stateful() {
      const [user, setUser] = useState(testUser({ email: 'ana@example.com', email_verified: true }));
      return (
        <CurrentUserProvider value={{ user, setUser }}>
          <SettingsPage />
        </CurrentUserProvider>
      );
    }
    renderWithProviders(<Stateful />, { route: '/dashboard/settings' });
    const actor = userEvent.setup();
    expect(await screen.findByText('Verificado')).toBeInTheDocument();
    await actor.clear(await screen.findByLabelText('Email'));
    await actor.type(await screen.findByLabelText('Email'), 'nueva@example.com');
    await actor.click(await screen.findByRole('button', { name: 'Guardar email' }));
    const status = await screen.findByRole('status');
    expect(status).toHaveTextContent('Email sin verificar');
    expect(status).toHaveTextContent('Le enviamos un enlace de verificación a nueva@example.com');
    expect(screen.queryByText('Verificado')).not.toBeInTheDocument();
  });

  describe('deleting the account', () => {
    async function openDialog(actor: ReturnType<typeof userEvent.setup>): Promise<HTMLElement> {
      await actor.click(within(section('Eliminar cuenta')).getByRole('button', { name: 'Eliminar mi cuenta' }));
      return screen.findByRole('dialog', { name: 'Eliminar cuenta' });
    }

    it('warns what is lost before asking for the password', async () => {
      const { actor } = renderSettings();
      const dialog = await openDialog(actor);
      const warning = within(dialog).getByRole('alert');
      expect(warning).toHaveTextContent('no se puede deshacer');
      expect(warning).toHaveTextContent('Sus peers dejan de funcionar de inmediato y el tiempo que les quede se pierde');
      await actor.click(within(dialog).getByRole('button', { name: 'Cancelar' }));
      expect(deleteAccount).not.toHaveBeenCalled();
    });

    it('asks for the password and keeps the dialog open when it is wrong', async () => {
      deleteAccount.mockRejectedValue(
        new api.ApiError(422, 'La contraseña actual no es correcta.', 'wrong_password', { password: 'Incorrecta.' }),
      );
      const { actor } = renderSettings();
      const dialog = await openDialog(actor);
      await actor.click(within(dialog).getByRole('button', { name: 'Eliminar definitivamente' }));
      expect(await within(dialog).findByText('Escriba su contraseña para confirmar.', { selector: '.mantine-InputWrapper-error' })).toBeInTheDocument();
      expect(deleteAccount).not.toHaveBeenCalled();
      await actor.type(within(dialog).getByLabelText('Contraseña actual'), 'no-es-esta');
      await actor.click(within(dialog).getByRole('button', { name: 'Eliminar definitivamente' }));
      expect(await within(dialog).findByText('La contraseña actual no es correcta.')).toBeInTheDocument();
      expect(deleteAccount).toHaveBeenCalledWith('no-es-esta');
      expect(endSession).not.toHaveBeenCalled();
    });

    it('deletes with the right password and leaves for the login page saying so', async () => {
      deleteAccount.mockResolvedValue({ success: true, message: 'Cuenta eliminada. Gracias por usar el servicio.' });
      const { actor } = renderSettings();
      const dialog = await openDialog(actor);
      await actor.type(within(dialog).getByLabelText('Contraseña actual'), 'mi-clave-1');
      await actor.click(within(dialog).getByRole('button', { name: 'Eliminar definitivamente' }));
      await vi.waitFor(
        () => expect(endSession).toHaveBeenCalledWith('/api/client', 'Cuenta eliminada. Gracias por usar el servicio.'),
        { timeout: 10_000 },
      );
      expect(deleteAccount).toHaveBeenCalledWith('mi-clave-1');
    });
  });
});
