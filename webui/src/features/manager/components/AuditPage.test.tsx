import { act, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeWebSocket } from '../../realtime/testing/fake-web-socket';
import * as manager from '../api/manager';
import type { AuditEntry } from '../api/manager';
import { renderManagerPage } from '../testing/manager-factory';
import { AuditPage } from './AuditPage';

vi.mock('../api/manager', async (importOriginal) => {
  const original = await importOriginal<typeof import('../api/manager')>();
  return { ...original, managerApi: { ...original.managerApi, audit: vi.fn() } };
});
const api = vi.mocked(manager.managerApi);

function entry(overrides: Partial<AuditEntry> = {}): AuditEntry {
  return {
    id: 'a1',
    created: '2026-11-21T05:00:00Z',
    actor_id: 'u1',
    actor_username: 'jefa',
    actor_role: 'admin',
    action: 'switches.update',
    target_type: 'switches',
    target_id: null,
    summary: 'Modo mantenimiento: sí',
    ip_address: '203.0.113.5',
    ...overrides,
  };
}

beforeEach(() => {
  FakeWebSocket.reset();
  vi.stubGlobal('WebSocket', FakeWebSocket);
  window.localStorage.setItem('access_token', 'acc');
});

afterEach(() => {
  vi.unstubAllGlobals();
  vi.clearAllMocks();
});

describe('audit page', () => {
  it('names each action in Spanish, never by its code, and filters by those names', async () => {
    api.audit.mockResolvedValue({
      items: [entry(), entry({ id: 'a2', action: 'peer.move', actor_role: 'support', actor_username: 'ayuda', summary: 'movil: de Miami 1 a Madrid 1' })],
      total: 2,
      page: 1,
      page_size: 50,
    });
    const actor = userEvent.setup({ delay: null });
    renderManagerPage(<AuditPage />);
    const row = (await screen.findByText('Modo mantenimiento: sí')).closest('tr') as HTMLElement;
    expect(within(row).getByText('Interruptores cambiados')).toBeInTheDocument();
    expect(within(row).getByText('Administrador')).toBeInTheDocument();
    const moved = screen.getByText('movil: de Miami 1 a Madrid 1').closest('tr') as HTMLElement;
    expect(within(moved).getByText('Peer movido de servidor')).toBeInTheDocument();
    expect(within(moved).getByText('Soporte')).toBeInTheDocument();
    expect(screen.queryByText('switches.update')).not.toBeInTheDocument();
    expect(screen.queryByText('peer.move')).not.toBeInTheDocument();

    await actor.click(screen.getByRole('combobox', { name: 'Filtrar por acción' }));
    await actor.click(await screen.findByRole('option', { name: 'Usuario bloqueado' }));
    await act(() => new Promise((resolve) => setTimeout(resolve, 50)));
    expect(api.audit).toHaveBeenLastCalledWith(expect.objectContaining({ action: 'user.block', page: 1 }), expect.anything());
  }, 20_000);
});
