/** The peers menu's 'Renombrar', 'Ver configuración' and 'Pausar' / 'Reanudar'. */
import { notifications } from '@mantine/notifications';
import { act, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../../lib/api';
import { renderWithProviders, testUser } from '../../../testing/render';
import { RealtimeProvider } from '../../realtime';
import { FakeWebSocket } from '../../realtime/testing/fake-web-socket';
import * as peersApi from '../api/peers';
import { formatDateTime } from '../peer-format';
import type { Peer } from '../api/peers';
import { PEER_NAME_RULE, PRIVATE_KEY_WARNING } from '../peer-name';
import { testPeer } from '../testing/peer-factory';
import { setScreenWidth } from '../testing/screen-width';
import { PeersPage } from './PeersPage';

vi.mock('../api/peers', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../api/peers')>()),
  fetchPeers: vi.fn(),
  renamePeer: vi.fn(),
  fetchPeerConfigText: vi.fn(),
  setPeerPaused: vi.fn(),
}));
const api = vi.mocked(peersApi);
vi.mock('../api/usage', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../api/usage')>()),
  fetchMonthUsage: vi.fn(async () => []),
  fetchPeerUsage: vi.fn(() => new Promise(() => undefined)),
}));

beforeEach(() => {
  FakeWebSocket.reset();
  vi.stubGlobal('WebSocket', FakeWebSocket);
  window.localStorage.setItem('access_token', 'acc');
  setScreenWidth(1280);
});

afterEach(() => {
  act(() => notifications.clean());
  vi.unstubAllGlobals();
  vi.clearAllMocks();
});

async function renderPeers(peers: Peer[]) {
  api.fetchPeers.mockResolvedValue(peers);
  renderWithProviders(
    <RealtimeProvider>
      <PeersPage />
    </RealtimeProvider>,
    { route: '/dashboard/peers', user: testUser() },
  );
  await screen.findByRole('heading', { name: 'Peers Wireguard' });
  act(() => FakeWebSocket.latest().open());
  return userEvent.setup();
}

async function openMenuItem(actor: ReturnType<typeof userEvent.setup>, peerName: string, item: string) {
  const row = screen.getAllByTestId('peer-row').find((element) => within(element).queryByText(peerName));
  if (!row) throw new Error(`no row for ${peerName}`);
  await actor.click(within(row).getByRole('button', { name: 'Más acciones' }));
  await actor.click(await screen.findByRole('menuitem', { name: item }));
}

describe('renaming a peer', () => {
  it('checks the peer name rule before sending, then shows the new name in the list', async () => {
    const actor = await renderPeers([testPeer()]);
    api.renamePeer.mockResolvedValue(testPeer({ name: 'telefono', version: 99 }));
    await openMenuItem(actor, 'movil', 'Renombrar');
    const dialog = await screen.findByRole('dialog', { name: 'Renombrar movil' });
    const field = within(dialog).getByRole('textbox', { name: /Nuevo nombre/ });
    expect(field).toHaveValue('movil');

    await actor.clear(field);
    await actor.type(field, 'mi teléfono');
    await actor.click(within(dialog).getByRole('button', { name: 'Guardar' }));
    expect(within(dialog).getByText(PEER_NAME_RULE)).toBeInTheDocument();
    expect(api.renamePeer).not.toHaveBeenCalled();

    await actor.clear(field);
    await actor.type(field, 'telefono');
    await actor.click(within(dialog).getByRole('button', { name: 'Guardar' }));
    expect(api.renamePeer).toHaveBeenCalledWith('p1', 'telefono');
    expect(await screen.findByText('Nombre del peer cambiado.')).toBeInTheDocument();
    expect(screen.queryByRole('dialog', { name: 'Renombrar movil' })).not.toBeInTheDocument();
    expect(within(screen.getByTestId('peer-row')).getByText('telefono')).toBeInTheDocument();
  });

  it("shows the server's refusal beside the field and keeps the dialog open", async () => {
    const actor = await renderPeers([testPeer(), testPeer({ id: 'p2', name: 'laptop' })]);
    api.renamePeer.mockRejectedValue(new ApiError(409, 'Ya tiene un peer con ese nombre.', 'peer_name_taken'));
    await openMenuItem(actor, 'movil', 'Renombrar');
    const dialog = await screen.findByRole('dialog', { name: 'Renombrar movil' });
    const field = within(dialog).getByRole('textbox', { name: /Nuevo nombre/ });
    await actor.clear(field);
    await actor.type(field, 'LAPTOP{Enter}');
    expect(await within(dialog).findByText('Ya tiene un peer con ese nombre.')).toBeInTheDocument();
    expect(field).toHaveAttribute('aria-invalid', 'true');
    expect(screen.getAllByTestId('peer-row').map((row) => within(row).queryByText('movil') !== null)).toContain(true);
  });
});

describe('the configuration as text', () => {
  it('shows the file with the private-key warning and copies it', async () => {
    const text = '[Interface]\nPrivateKey = abc=\nAddress = 10.8.0.2/32\n';
    api.fetchPeerConfigText.mockResolvedValue(text);
    const actor = await renderPeers([testPeer()]);
    await openMenuItem(actor, 'movil', 'Ver configuración');
    const dialog = await screen.findByRole('dialog', { name: 'Configuración de movil' });
    const code = await within(dialog).findByLabelText('Configuración de movil');
    expect(code.textContent).toBe(text);
    expect(within(dialog).getByText(PRIVATE_KEY_WARNING)).toBeInTheDocument();
    await actor.click(within(dialog).getByRole('button', { name: 'Copiar configuración' }));
    expect(await navigator.clipboard.readText()).toBe(text);
    expect(within(dialog).getByRole('button', { name: 'Configuración copiada' })).toBeInTheDocument();
  });

  it('refuses an inactive peer as the download does, and says when the file cannot be read', async () => {
    const actor = await renderPeers([testPeer({ active: false }), testPeer({ id: 'p2', name: 'laptop' })]);
    await openMenuItem(actor, 'movil', 'Ver configuración');
    expect(await screen.findByText('No se puede descargar la configuración de un peer inactivo')).toBeInTheDocument();
    expect(api.fetchPeerConfigText).not.toHaveBeenCalled();

    api.fetchPeerConfigText.mockRejectedValue(new ApiError(409, 'El servidor de este peer tiene un error de configuración.'));
    await openMenuItem(actor, 'laptop', 'Ver configuración');
    const dialog = await screen.findByRole('dialog', { name: 'Configuración de laptop' });
    expect(await within(dialog).findByText('El servidor de este peer tiene un error de configuración.')).toBeInTheDocument();
  });
});

describe('pausing a peer', () => {
  it('pauses from the menu, shows the pause in the row, and offers to resume it', async () => {
    const notice = 'El servidor no acepta la conexión de este peer hasta que lo reanude.';
    const since = '2026-11-28T06:00:00Z';
    const message = 'Peer movil en pausa: no tendrá conexión hasta que lo reanude.';
    api.setPeerPaused.mockResolvedValue({ peer: testPeer({ paused: true, paused_since: since, pause_notice: notice, version: 99 }), message });
    const actor = await renderPeers([testPeer()]);
    await openMenuItem(actor, 'movil', 'Pausar');
    expect(api.setPeerPaused).toHaveBeenCalledWith('p1', true);
    expect(await screen.findByText(message)).toBeInTheDocument();
    expect(within(screen.getByTestId('peer-row')).getByText('En pausa')).toBeInTheDocument();
    expect(within(screen.getByTestId('paused-notice')).getByText(notice, { exact: false })).toBeInTheDocument();
    // Since when, in the customer's own time (the server sends a moment, not a clock time in its zone).
    expect(screen.getByTestId('paused-notice')).toHaveTextContent(`En pausa desde el ${formatDateTime(since)}.`);
    // Download and QR stay available while paused.
    expect(within(screen.getByTestId('peer-row')).getByRole('button', { name: 'Descargar configuración' })).not.toHaveAttribute(
      'data-disabled',
    );

    const resumed = testPeer({ paused: false, paused_since: null, pause_notice: null, version: 100 });
    api.setPeerPaused.mockResolvedValue({ peer: resumed, message: 'Peer movil reanudado.' });
    await openMenuItem(actor, 'movil', 'Reanudar');
    expect(api.setPeerPaused).toHaveBeenLastCalledWith('p1', false);
    expect(await screen.findByText('Peer movil reanudado.')).toBeInTheDocument();
    expect(screen.queryByTestId('paused-notice')).not.toBeInTheDocument();
  });
});
