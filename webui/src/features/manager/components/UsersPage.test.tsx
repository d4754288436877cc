import { notifications } from '@mantine/notifications';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeWebSocket } from '../../realtime/testing/fake-web-socket';
import * as manager from '../api/manager';
import { ADMIN, renderManagerPage, SUPPORT } from '../testing/manager-factory';
import { UsersPage } from './UsersPage';

vi.mock('../api/manager', async (importOriginal) => {
  const original = await importOriginal<typeof import('../api/manager')>();
  return {
    ...original,
    managerApi: { ...original.managerApi, users: vi.fn(), user: vi.fn(), setBlocked: vi.fn(), sendPasswordReset: vi.fn(), invoices: vi.fn(), deleteUser: vi.fn() },
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
  deleted: false,
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
  // Confirmations are Mantine dialogs: the browser's own confirm() must never show.
  vi.stubGlobal('confirm', vi.fn(() => { throw new Error('window.confirm used'); }));
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
    // The room ana owns: its relation and size in the detail line under its name (the drawer is a phone's width).
    expect(await screen.findByText(/^Administrador · 2 peers · Creada el/)).toBeInTheDocument();
    expect(await screen.findByText(/Sala amigos/)).toBeInTheDocument();
    await actor.click(await screen.findByRole('button', { name: 'Bloquear' }));
    const confirm = await screen.findByRole('dialog', { name: 'Bloquear usuario' });
    expect(within(confirm).getByText('¿Bloquear a ana? Se cerrarán todas sus sesiones.')).toBeInTheDocument();
    expect(api.setBlocked).not.toHaveBeenCalled();
    await actor.click(within(confirm).getByRole('button', { name: 'Bloquear' }));
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

  it('lets only admins delete an account, after saying what is lost', async () => {
    const deleted = { ...ANA, username: '#eliminado-u1', email: null, deleted: true };
    api.users.mockResolvedValue({ items: [ANA], total: 1, page: 1, page_size: 25 });
    api.user.mockResolvedValueOnce({ user: ANA, peers: [PEER] }).mockResolvedValue({ user: deleted, peers: [] });
    api.deleteUser.mockResolvedValue(deleted);
    const actor = userEvent.setup({ delay: null });
    renderManagerPage(<UsersPage />, ADMIN);
    await actor.click(await screen.findByRole('button', { name: 'ana' }));
    await actor.click(await screen.findByRole('button', { name: 'Eliminar cuenta' }));
    const confirm = await screen.findByRole('dialog', { name: 'Eliminar cuenta' });
    expect(confirm).toHaveTextContent('sus peers dejan de funcionar');
    expect(api.deleteUser).not.toHaveBeenCalled();
    await actor.click(within(confirm).getByRole('button', { name: 'Eliminar cuenta' }));
    expect(api.deleteUser).toHaveBeenCalledWith('u1');
    expect(await screen.findByText('Cuenta eliminada.')).toBeInTheDocument();
    expect((await screen.findAllByText('Eliminada')).length).toBeGreaterThan(0);
  }, 20_000);

  it('shows support no delete button', async () => {
    api.users.mockResolvedValue({ items: [ANA], total: 1, page: 1, page_size: 25 });
    api.user.mockResolvedValue({ user: ANA, peers: [] });
    const actor = userEvent.setup({ delay: null });
    renderManagerPage(<UsersPage />, SUPPORT);
    await actor.click(await screen.findByRole('button', { name: 'ana' }));
    expect(await screen.findByRole('button', { name: 'Bloquear' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Eliminar cuenta' })).not.toBeInTheDocument();
  }, 20_000);
});
