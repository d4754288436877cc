import { notifications } from '@mantine/notifications';
import { act, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../../lib/api';
import { renderWithProviders, testUser } from '../../../testing/render';
import * as sessionsApi from '../api/sessions';
import type { SessionView } from '../api/sessions';
import { SessionsPage } from './SessionsPage';

vi.mock('../api/sessions', () => ({ fetchSessions: vi.fn(), closeSession: vi.fn(), closeOtherSessions: vi.fn() }));
const api = vi.mocked(sessionsApi);

afterEach(() => {
  act(() => notifications.clean());
  vi.clearAllMocks();
});

const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const PHONE = 'Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36';

function session(overrides: Partial<SessionView> = {}): SessionView {
  return { id: 's1', device: CHROME, address: '203.0.113.5', created: '2026-11-20T10:00:00Z', last_used: '2026-11-27T10:00:00Z', current: true, ...overrides };
}

function renderSessions() {
  renderWithProviders(<SessionsPage />, { route: '/dashboard/sessions', user: testUser(), otherRoutes: [{ path: '/login', element: <p>login</p> }] });
  return userEvent.setup();
}

describe('Sesiones abiertas', () => {
  it('lists device, address and dates, marks this session, and closes the others after the password', async () => {
    api.fetchSessions.mockResolvedValueOnce([session(), session({ id: 's2', device: PHONE, address: '198.51.100.7', current: false })]);
    const actor = renderSessions();
    const mine = await screen.findByRole('region', { name: 'Sesión: Chrome en Windows' });
    expect(within(mine).getByText('Esta sesión')).toBeInTheDocument();
    expect(within(mine).getByText('Dirección: 203.0.113.5')).toBeInTheDocument();
    const phone = screen.getByRole('region', { name: 'Sesión: Chrome en Android' });
    expect(within(phone).queryByText('Esta sesión')).not.toBeInTheDocument();
    expect(within(phone).getByText(/^Último uso: /)).toBeInTheDocument();

    api.closeOtherSessions.mockRejectedValueOnce(new ApiError(422, 'Contraseña incorrecta.', 'wrong_password', { password: 'Incorrecta.' }));
    await actor.click(screen.getByRole('button', { name: 'Cerrar las demás sesiones' }));
    const dialog = await screen.findByRole('dialog', { name: 'Cerrar las demás sesiones' });
    await actor.click(within(dialog).getByRole('button', { name: 'Cerrar sesiones' }));
    expect(within(dialog).getByText('Escriba su contraseña para confirmar.', { selector: '.mantine-InputWrapper-error' })).toBeInTheDocument();
    expect(api.closeOtherSessions).not.toHaveBeenCalled();

    await actor.type(within(dialog).getByLabelText('Contraseña'), 'mala');
    await actor.click(within(dialog).getByRole('button', { name: 'Cerrar sesiones' }));
    expect(await within(dialog).findByText('Contraseña incorrecta.')).toBeInTheDocument();

    api.closeOtherSessions.mockResolvedValueOnce({ success: true, message: 'Se cerraron las demás sesiones.', closed: 1 });
    api.fetchSessions.mockResolvedValueOnce([session()]);
    await actor.clear(within(dialog).getByLabelText('Contraseña'));
    await actor.type(within(dialog).getByLabelText('Contraseña'), 'buena{Enter}');
    expect(api.closeOtherSessions).toHaveBeenLastCalledWith('buena');
    expect(await screen.findByText('Se cerraron las demás sesiones.')).toBeInTheDocument();
    expect(await screen.findByText('No hay otras sesiones abiertas.')).toBeInTheDocument();
    expect(screen.queryByRole('region', { name: 'Sesión: Chrome en Android' })).not.toBeInTheDocument();
  });

  it("closes another session with the password and this one without (back to login)", async () => {
    api.fetchSessions.mockResolvedValue([session(), session({ id: 's2', device: null, address: null, current: false })]);
    const actor = renderSessions();
    const other = await screen.findByRole('region', { name: 'Sesión: Dispositivo desconocido' });
    expect(within(other).getByText('Dirección: Desconocida')).toBeInTheDocument();
    api.closeSession.mockResolvedValue({ success: true, message: 'Sesión cerrada.' });
    await actor.click(within(other).getByRole('button', { name: 'Cerrar esta sesión' }));
    const dialog = await screen.findByRole('dialog', { name: 'Cerrar la sesión de Dispositivo desconocido' });
    await actor.type(within(dialog).getByLabelText('Contraseña'), 'buena{Enter}');
    expect(api.closeSession).toHaveBeenCalledWith('s2', 'buena');
    expect(await screen.findByText('Sesión cerrada.')).toBeInTheDocument();

    const fetchMock = vi.fn(async () => new Response('{"success":true,"message":"ok"}', { status: 200 }));
    vi.stubGlobal('fetch', fetchMock);
    await actor.click(within(screen.getByRole('region', { name: 'Sesión: Chrome en Windows' })).getByRole('button', { name: 'Cerrar esta sesión' }));
    expect(await screen.findByText('login')).toBeInTheDocument();
    expect(fetchMock).toHaveBeenCalledWith(expect.stringContaining('/api/logout'), expect.anything());
    vi.unstubAllGlobals();
  });
});
