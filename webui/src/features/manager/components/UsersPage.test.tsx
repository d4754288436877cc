import { notifications } from '@mantine/notifications';
import { act, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeWebSocket } from '../../realtime/testing/fake-web-socket';
import * as manager from '../api/manager';
import { renderManagerPage, SUPPORT } from '../testing/manager-factory';
import { UsersPage } from './UsersPage';

vi.mock('../api/manager', async (importOriginal) => {
  const original = await importOriginal<typeof import('../api/manager')>();
  return {
    ...original,
    managerApi: { ...original.managerApi, users: vi.fn(), user: vi.fn(), setBlocked: vi.fn(), sendPasswordReset: vi.fn(), invoices: vi.fn() },
  };
});
const api = vi.mocked(manager.managerApi);

const ANA: manager.UserRow = {
  id: 'u1',
  username: 'ana',
  email: 'ana@example.test',
  email_verified: true,
  alias: null,
  role: 'customer',
  blocked: false,
  created: '2026-11-20T10:00:00Z',
  last_login: null,
  peers: 1,
};

const PEER: manager.StaffPeer = {
  id: 'p1',
  name: 'movil',
  user_id: 'u1',
  username: 'ana',
  active: true,
  manual_payment: false,
  created: '2026-11-20T10:00:00Z',
  expiration_date: null,
  address: '10.8.0.2',
  server_id: 's1',
  server_name: 'Miami 1',
  processing: false,
  plans_history: [],
  party: { id: 'r1', name: 'amigos' },
};

beforeEach(() => {
  FakeWebSocket.reset();
  vi.stubGlobal('WebSocket', FakeWebSocket);
  vi.spyOn(window, 'confirm').mockReturnValue(true);
  api.invoices.mockResolvedValue({ items: [], total: 0, page: 1, page_size: 25 });
});

afterEach(() => {
  act(() => notifications.clean());
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  vi.clearAllMocks();
});

describe('users page', () => {
  it('searches, opens a customer and blocks them', async () => {
    api.users.mockResolvedValue({ items: [ANA], total: 1, page: 1, page_size: 25 });
    api.user.mockResolvedValue({
      user: ANA,
      peers: [PEER],
      rooms: [{ id: 'r1', name: 'amigos', owner: 'ana', relation: 'owner', members: 2, created: '2026-11-21T05:00:00Z' }],
    });
    api.setBlocked.mockResolvedValue({ ...ANA, blocked: true });
    const actor = userEvent.setup({ delay: null });
    renderManagerPage(<UsersPage />, SUPPORT);
    await actor.type(await screen.findByLabelText('Buscar usuarios'), 'ana');
    await waitFor(() => expect(api.users).toHaveBeenLastCalledWith({ q: 'ana', blocked: null, page: 1 }, expect.anything()));

    await actor.click(await screen.findByRole('button', { name: 'ana' }));
    expect(await screen.findByText('Administrador')).toBeInTheDocument(); // the room ana owns
    expect(screen.getByText(/Sala amigos/)).toBeInTheDocument();
    await actor.click(await screen.findByRole('button', { name: 'Bloquear' }));
    expect(api.setBlocked).toHaveBeenCalledWith('u1', true);
    expect(await screen.findByText('Usuario bloqueado.')).toBeInTheDocument();
  }, 20_000);

  it('sends a password reset link and shows where it went', async () => {
    api.users.mockResolvedValue({ items: [ANA], total: 1, page: 1, page_size: 25 });
    api.user.mockResolvedValue({ user: ANA, peers: [] });
    api.sendPasswordReset.mockResolvedValue({ success: true, message: 'Enlace para restablecer la contraseña enviado a ana@example.test.' });
    const actor = userEvent.setup({ delay: null });
    renderManagerPage(<UsersPage />, SUPPORT);
    await actor.click(await screen.findByRole('button', { name: 'ana' }));
    await actor.click(await screen.findByRole('button', { name: 'Enviar enlace para restablecer contraseña' }));
    expect(await screen.findByText('Enlace para restablecer la contraseña enviado a ana@example.test.')).toBeInTheDocument();
  }, 20_000);
});
