import { notifications } from '@mantine/notifications';
import { act, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../../lib/api';
import { getAccessToken } from '../../../lib/tokens';
import { renderWithProviders } from '../../../testing/render';
import * as manager from '../api/manager';
import { ManagerLoginPage } from './ManagerLoginPage';

vi.mock('../api/manager', async (importOriginal) => {
  const original = await importOriginal<typeof import('../api/manager')>();
  return { ...original, managerApi: { ...original.managerApi, login: vi.fn() } };
});
const api = vi.mocked(manager.managerApi);

afterEach(() => {
  act(() => notifications.clean());
  window.localStorage.clear();
  vi.clearAllMocks();
});

function renderLogin() {
  return renderWithProviders(<ManagerLoginPage />, {
    route: '/manager/login',
    otherRoutes: [{ path: '/manager/dashboard', element: <p>Panel</p> }],
  });
}

describe('manager login', () => {
  it('signs staff in with the admin audience and opens the panel', async () => {
    api.login.mockResolvedValue({ access: 'acc', refresh: 'ref', message: 'Sesión iniciada correctamente.' });
    const actor = userEvent.setup({ delay: null });
    renderLogin();
    await actor.type(await screen.findByLabelText('Usuario'), 'jefa');
    await actor.type(await screen.findByLabelText('Contraseña'), 'clave-larga');
    await actor.click(await screen.findByRole('button', { name: 'Iniciar sesión' }));
    expect(api.login).toHaveBeenCalledWith({ username: 'jefa', password: 'clave-larga', remember: false });
    expect(await screen.findByText('Panel')).toBeInTheDocument();
    expect(getAccessToken()).toBe('acc');
  }, 20_000);

  it('shows the server message for a customer account or a wrong password', async () => {
    api.login.mockRejectedValue(new ApiError(401, 'Usuario o contraseña incorrectos.', 'invalid_credentials'));
    const actor = userEvent.setup({ delay: null });
    renderLogin();
    await actor.type(await screen.findByLabelText('Usuario'), 'ana');
    await actor.type(await screen.findByLabelText('Contraseña'), 'x');
    await actor.click(await screen.findByRole('button', { name: 'Iniciar sesión' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Usuario o contraseña incorrectos.');
    expect(getAccessToken()).toBeNull();
  }, 20_000);

  it('asks for both fields before calling the server', async () => {
    renderLogin();
    await userEvent.setup({ delay: null }).click(await screen.findByRole('button', { name: 'Iniciar sesión' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('El usuario y la contraseña son obligatorios.');
    expect(api.login).not.toHaveBeenCalled();
  }, 20_000);
});
