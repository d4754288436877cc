/** What customers see of their own service (docs/webui.md): the two-devices warning, the mirror link's device
 * binding in 'Detalles', and the servers' load with 'Recomendado' in 'Cambiar Servidor'. */
import { notifications } from '@mantine/notifications';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { renderWithProviders, testUser } from '../../../testing/render';
import { RealtimeProvider } from '../../realtime';
import { FakeWebSocket } from '../../realtime/testing/fake-web-socket';
import * as peersApi from '../api/peers';
import type { Peer } from '../api/peers';
import { testPeer, testServer } from '../testing/peer-factory';
import { setScreenWidth } from '../testing/screen-width';
import { loadText } from './ChangeServerView';
import { PeersPage } from './PeersPage';
import { SHARED_CONFIG_TITLE } from './SharedConfigWarning';

vi.mock('../api/peers', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../api/peers')>()),
  fetchPeers: vi.fn(),
  fetchAvailableServers: vi.fn(),
  setMirrorBinding: vi.fn(),
  releaseMirrorDevice: vi.fn(),
  confirmMirrorDevice: vi.fn(),
}));
const api = vi.mocked(peersApi);

beforeEach(() => {
  FakeWebSocket.reset();
  vi.stubGlobal('WebSocket', FakeWebSocket);
  window.localStorage.setItem('access_token', 'acc');
  setScreenWidth(1024);
});

afterEach(() => {
  act(() => notifications.clean());
  vi.unstubAllGlobals();
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
  const socket = FakeWebSocket.latest();
  act(() => socket.open());
  return { push: (message: unknown) => act(() => socket.receive(message)), actor: userEvent.setup() };
}

async function chooseMenuItem(actor: ReturnType<typeof userEvent.setup>, item: string) {
  await actor.click(screen.getAllByRole('button', { name: 'Más acciones' })[0]!);
  await actor.click(await screen.findByRole('menuitem', { name: item }));
}

describe('two devices on one peer', () => {
  it('shows no warning on a peer used by one device', async () => {
    await renderPeers([testPeer()]);
    expect(screen.queryByTestId('shared-config-warning')).not.toBeInTheDocument();
  });

  it('warns with what to do when the push says two devices take turns, and clears after new keys', async () => {
    const { push } = await renderPeers([testPeer()]);
    push({ type: 'updated_peer', data: testPeer({ shared_config_warning: true, version: 2 }) });
    const warning = await screen.findByTestId('shared-config-warning');
    expect(within(warning).getByText(SHARED_CONFIG_TITLE)).toBeInTheDocument();
    expect(within(warning).getByRole('link', { name: 'compre un segundo peer' })).toHaveAttribute('href', '/dashboard/plans');
    expect(warning).toHaveTextContent('Regenerar Peer');
    push({ type: 'updated_peer', data: testPeer({ shared_config_warning: false, version: 3 }) });
    await waitFor(() => expect(screen.queryByTestId('shared-config-warning')).not.toBeInTheDocument());
  });

  it('shows the warning as a full-width row under the peer in the table', async () => {
    await renderPeers([testPeer({ shared_config_warning: true })]);
    const warningRow = await screen.findByTestId('peer-warning-row');
    expect(warningRow).toContainElement(await screen.findByTestId('shared-config-warning'));
    expect(within(warningRow).getByRole('cell')).toHaveAttribute('colspan', '5');
    expect(screen.getByTestId('peer-row')).not.toContainElement(screen.getByTestId('shared-config-warning'));
  });

  it('shows the warning on the narrow cards too', async () => {
    setScreenWidth(400);
    await renderPeers([testPeer({ shared_config_warning: true })]);
    expect(await screen.findByTestId('peer-card')).toContainElement(await screen.findByTestId('shared-config-warning'));
  });
});

describe('mirror link bound to a device', () => {
  it('turns the binding on, shows the bound device and releases it', async () => {
    const { actor } = await renderPeers([testPeer()]);
    api.setMirrorBinding.mockResolvedValue({
      peer: testPeer({ mirror_binding: true, mirror_bound: false, version: 2 }),
      message: 'Vinculación activada: el dispositivo que use el enlace mirror le mostrará un código de vinculación; escríbalo aquí para vincularlo.',
    });
    await chooseMenuItem(actor, 'Detalles');
    const dialog = await screen.findByRole('dialog', { name: 'Detalles del peer movil' });
    const toggle = within(dialog).getByRole('switch');
    expect(within(dialog).getByText('Vincular el mirror link a un dispositivo')).toBeInTheDocument();
    expect(toggle).not.toBeChecked();
    await actor.click(toggle);
    expect(api.setMirrorBinding).toHaveBeenCalledWith('p1', true);
    await waitFor(() => expect(toggle).toBeChecked());
    expect(within(dialog).getByText('Ningún dispositivo vinculado todavía.')).toBeInTheDocument();
    expect(await screen.findByText(/Vinculación activada/)).toBeInTheDocument();
  });

  it('frees the bound device from the details', async () => {
    const { actor } = await renderPeers([testPeer({ mirror_binding: true, mirror_bound: true })]);
    api.releaseMirrorDevice.mockResolvedValue({ peer: testPeer({ mirror_binding: true, mirror_bound: false, version: 2 }) });
    await chooseMenuItem(actor, 'Detalles');
    const dialog = await screen.findByRole('dialog', { name: 'Detalles del peer movil' });
    expect(within(dialog).getByText('Vinculado a un dispositivo.')).toBeInTheDocument();
    await actor.click(within(dialog).getByRole('button', { name: 'Liberar dispositivo' }));
    expect(api.releaseMirrorDevice).toHaveBeenCalledWith('p1');
    expect(await within(dialog).findByText('Ningún dispositivo vinculado todavía.')).toBeInTheDocument();
  });

  it('binds the device whose code the owner types', async () => {
    const { actor } = await renderPeers([testPeer({ mirror_binding: true, mirror_bound: false })]);
    api.confirmMirrorDevice.mockResolvedValue({
      peer: testPeer({ mirror_binding: true, mirror_bound: false, version: 2 }),
      message: 'Código aceptado: el dispositivo que lo muestra quedará vinculado en su próxima consulta.',
    });
    await chooseMenuItem(actor, 'Detalles');
    const dialog = await screen.findByRole('dialog', { name: 'Detalles del peer movil' });
    const bind = within(dialog).getByRole('button', { name: 'Vincular' });
    expect(bind).toBeDisabled();
    await actor.type(within(dialog).getByLabelText(/Código de vinculación/), '12a3456');
    expect(bind).toBeEnabled();
    await actor.click(bind);
    expect(api.confirmMirrorDevice).toHaveBeenCalledWith('p1', '123456');
    expect(await screen.findByText(/Código aceptado/)).toBeInTheDocument();
  });

  it('tells the customer in Spanish when the change is refused', async () => {
    const { actor } = await renderPeers([testPeer()]);
    api.setMirrorBinding.mockRejectedValue(new Error('network'));
    await chooseMenuItem(actor, 'Detalles');
    const dialog = await screen.findByRole('dialog', { name: 'Detalles del peer movil' });
    await actor.click(within(dialog).getByRole('switch'));
    expect(await screen.findByText(/Hubo un error al cambiar la vinculación del mirror link del peer movil/)).toBeInTheDocument();
    expect(within(dialog).getByRole('switch')).not.toBeChecked();
  });
});

describe('servers for a move', () => {
  it('shows each server load and marks the recommended one', async () => {
    const { actor } = await renderPeers([testPeer()]);
    api.fetchAvailableServers.mockResolvedValue([
      testServer({ id: 's2', address: 'vpn2.example.org', peers: 40, connected_peers: 12 }),
      testServer({ id: 's3', address: 'vpn3.example.org', peers: 1, connected_peers: 1, recommended: true }),
      testServer({ id: 's4', address: 'vpn4.example.org', peers: 0, online: false }),
    ]);
    await chooseMenuItem(actor, 'Cambiar Servidor');
    const rows = await screen.findAllByTestId('server-row');
    expect(await screen.findByRole('columnheader', { name: 'Carga' })).toBeInTheDocument();
    expect(rows.map((row) => row.textContent)).toEqual([
      expect.stringContaining('40 peers · 12 conectados'),
      expect.stringContaining('1 peer · 1 conectado'),
      expect.stringContaining('0 peers'),
    ]);
    expect(within(rows[1]!).getByText('Recomendado')).toBeInTheDocument();
    expect(screen.getAllByTestId('recommended')).toHaveLength(1);
    expect(rows[2]).not.toHaveTextContent('conectados');
  });

  it('says nothing of connected peers for an offline server', () => {
    expect(loadText(testServer({ online: false, peers: 3, connected_peers: 9 }))).toBe('3 peers');
    expect(loadText(testServer({}))).toBe('0 peers · 0 conectados');
  });
});
