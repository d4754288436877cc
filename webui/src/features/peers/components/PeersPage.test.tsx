import { notifications } from '@mantine/notifications';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../../lib/api';
import type { CurrentUser } from '../../../lib/current-user';
import { renderWithProviders, testUser } from '../../../testing/render';
import { RealtimeProvider } from '../../realtime';
import { FakeWebSocket } from '../../realtime/testing/fake-web-socket';
import * as peersApi from '../api/peers';
import type { Peer } from '../api/peers';
import { testPeer, testServer } from '../testing/peer-factory';
import { setScreenWidth } from '../testing/screen-width';
import { OWN_SERVER_OFFLINE, PeersPage } from './PeersPage';

vi.mock('../api/peers', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../api/peers')>()),
  fetchPeers: vi.fn(),
  regenerateMirrorLink: vi.fn(),
  regeneratePeer: vi.fn(),
  changeServer: vi.fn(),
  downloadPeerConfig: vi.fn(),
  fetchAvailableServers: vi.fn(),
}));
const api = vi.mocked(peersApi);
// The month's usage has its own tests (PeerUsage.test.tsx): here it answers with nothing.
vi.mock('../api/usage', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../api/usage')>()),
  fetchMonthUsage: vi.fn(async () => []),
  fetchPeerUsage: vi.fn(() => new Promise(() => undefined)),
}));

beforeEach(() => {
  FakeWebSocket.reset();
  vi.stubGlobal('WebSocket', FakeWebSocket);
  window.localStorage.setItem('access_token', 'acc');
  setScreenWidth(1024);
});

afterEach(() => {
  // The toast store outlives a render: empty it so one test's toasts never satisfy the next.
  act(() => notifications.clean());
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

async function renderPeers(peers: Peer[], user: CurrentUser = testUser()) {
  api.fetchPeers.mockResolvedValue(peers);
  const result = renderWithProviders(
    <RealtimeProvider>
      <PeersPage />
    </RealtimeProvider>,
    { route: '/dashboard/peers', user },
  );
  await screen.findByRole('heading', { name: 'Peers Wireguard' });
  const socket = FakeWebSocket.latest();
  act(() => socket.open());
  const push = (message: unknown) => act(() => socket.receive(message));
  return { ...result, push, actor: userEvent.setup() };
}

const rows = () => screen.queryAllByTestId('peer-row');
const row = (name: string) => {
  const found = rows().find((element) => within(element).queryByText(name));
  if (!found) throw new Error(`no row for ${name}`);
  return found;
};

const GENERATING = 'Generando claves nuevas para movil en Miami 1 (Miami)… su configuración actual sigue funcionando hasta que terminen.';
const MOVING = 'Moviendo a Madrid 1 (Madrid)… su configuración actual sigue funcionando.';

/** The server's running operation, as the peer view carries it (docs/api.md, "Peer operations"). */
function running(kind: 'regenerate' | 'change_server', message: string): Peer['operation'] {
  const server = kind === 'regenerate' ? { id: 's1', name: 'Miami 1', ubication: 'Miami' } : { id: 's2', name: 'Madrid 1', ubication: 'Madrid' };
  return { kind, server, since: '2026-11-28T02:00:00Z', message };
}

function outcome(kind: 'regenerate' | 'change_server', ok: boolean, message: string): Peer['last_outcome'] {
  return { kind, ok, message, at: '2026-11-28T02:01:00Z' };
}

/** A waiting action: marked disabled, and described by the operation's text (its tooltip says the same). */
function expectWaiting(button: HTMLElement, why: string) {
  expect(button).toHaveAttribute('aria-disabled', 'true');
  expect(button).toHaveAccessibleDescription(why);
}

async function chooseMenuItem(actor: ReturnType<typeof userEvent.setup>, peerName: string, item: string) {
  await actor.click(within(row(peerName)).getByRole('button', { name: 'Más acciones' }));
  await actor.click(await screen.findByRole('menuitem', { name: item }));
}

describe('peers list', () => {
  it("shows a table on wide screens with everything of the contract's columns, the actions beside the name", async () => {
    await renderPeers([testPeer(), testPeer({ id: 'p2', name: 'portatil', active: false })]);
    const headers = screen.getAllByRole('columnheader').map((header) => header.textContent);
    // The server's name (never its address), status, location and rooms share one column, the mirror link and the actions sit
    // under and beside the name: the table fits from 1024 px (docs/webui.md, "Every screen fits").
    expect(headers).toEqual(['Nombre', 'Estado', 'Vencimiento', 'Usado este mes', 'Servidor']);
    const first = row('movil');
    const nameCell = within(first).getAllByRole('cell')[0]!;
    expect(within(nameCell).getByText('movil')).toBeInTheDocument();
    expect(within(nameCell).getByRole('button', { name: 'Descargar configuración' })).toBeInTheDocument();
    expect(within(nameCell).getByRole('button', { name: 'Más acciones' })).toBeInTheDocument();
    expect(within(nameCell).getByRole('button', { name: 'Copiar mirror link' })).toBeInTheDocument();
    // The peer and its server are both 'Activo'.
    expect(within(first).getAllByText('Activo')).toHaveLength(2);
    expect(within(first).getByText('Miami 1')).toBeInTheDocument();
    expect(within(first).queryByText('vpn1.example.org')).not.toBeInTheDocument();
    expect(within(first).getByText('Miami')).toBeInTheDocument();
    expect(within(first).getByText('Sí')).toBeInTheDocument();
    expect(within(first).getByText('http://127.0.0.1:8000/mirror/token-p1')).toBeInTheDocument();
    expect(within(row('portatil')).getByText('Deshabilitado')).toBeInTheDocument();
    expect(screen.queryAllByTestId('peer-card')).toHaveLength(0);
  });

  it('says why a disabled peer is so: staff disabled it, or its plan ran out', async () => {
    await renderPeers([
      testPeer({ id: 'p1', name: 'movil', active: false, disabled_reason: 'admin' }),
      testPeer({ id: 'p2', name: 'portatil', active: false, disabled_reason: 'expired' }),
    ]);
    expect(
      within(row('movil')).getByText('Deshabilitado por un administrador. Contacte con soporte.'),
    ).toBeInTheDocument();
    expect(within(row('portatil')).getByText('Plan vencido. Renuévelo para reactivarlo.')).toBeInTheDocument();
  });

  it('shows cards instead of the table under 1024 px', async () => {
    setScreenWidth(1023);
    await renderPeers([testPeer(), testPeer({ id: 'p2', name: 'portatil' })]);
    expect(screen.getAllByTestId('peer-card')).toHaveLength(2);
    expect(screen.queryByRole('table')).not.toBeInTheDocument();
  });

  it('keeps the table at exactly 1024 px', async () => {
    setScreenWidth(1024);
    await renderPeers([testPeer()]);
    expect(rows()).toHaveLength(1);
    expect(screen.queryAllByTestId('peer-card')).toHaveLength(0);
  });

  it("leaves out whether the server allows rooms when rooms are not allowed", async () => {
    await renderPeers([testPeer()], testUser({ web_settings: { allow_partys: false, allow_email: true } }));
    expect(within(row('movil')).getByText('Miami 1')).toBeInTheDocument();
    expect(screen.queryByText(/Salas:/)).not.toBeInTheDocument();
  });

  it('replaces the page with the section error when the list fails to load', async () => {
    api.fetchPeers.mockRejectedValue(new ApiError(500, ''));
    renderWithProviders(
      <RealtimeProvider>
        <PeersPage />
      </RealtimeProvider>,
      { route: '/dashboard/peers', user: testUser() },
    );
    expect(await screen.findByText('Error al cargar la sección')).toBeInTheDocument();
    expect(await screen.findByText('Hubo un error al cargar los datos de los peers')).toBeInTheDocument();
  });

  it('offers the plans when there is no peer yet', async () => {
    await renderPeers([]);
    expect(await screen.findByRole('link', { name: 'Ver planes' })).toHaveAttribute('href', '/dashboard/plans');
  });
});

describe('mirror link', () => {
  it('copies the link and confirms it for 2 s', async () => {
    const { actor } = await renderPeers([testPeer()]);
    await actor.click(within(row('movil')).getByRole('button', { name: 'Copiar mirror link' }));

    // Checked first: the confirmation lasts 2 s, which the steps below may take on a loaded machine.
    expect(await within(row('movil')).findByRole('button', { name: 'Mirror link copiado' })).toBeInTheDocument();
    expect(await navigator.clipboard.readText()).toBe('http://127.0.0.1:8000/mirror/token-p1');
    expect(await screen.findByText('Mirror link copiado en el portapapeles.')).toBeInTheDocument();

    await waitFor(
      () => expect(within(row('movil')).getByRole('button', { name: 'Copiar mirror link' })).toBeInTheDocument(),
      { timeout: 2600 },
    );
  });

  it('regenerates the link after confirmation and shows the new one', async () => {
    api.regenerateMirrorLink.mockResolvedValue({
      peer: testPeer({ mirror_link: 'http://127.0.0.1:8000/mirror/nuevo' }),
      message: 'Mirror Link regenerado correctamente.',
    });
    const { actor } = await renderPeers([testPeer()]);
    await chooseMenuItem(actor, 'movil', 'Regenerar Mirror Link');
    const dialog = await screen.findByRole('dialog', { name: 'Regenerar Mirror Link' });
    expect(within(dialog).getByRole('button', { name: 'Cancelar' })).toBeInTheDocument();
    await actor.click(within(dialog).getByRole('button', { name: 'Regenerar' }));

    expect(await screen.findByText('Mirror Link regenerado correctamente.')).toBeInTheDocument();
    expect(within(row('movil')).getByText('http://127.0.0.1:8000/mirror/nuevo')).toBeInTheDocument();
    expect(api.regenerateMirrorLink).toHaveBeenCalledWith('p1');
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
  });

  it('names the peer when regenerating the link fails, and refuses an inactive peer', async () => {
    api.regenerateMirrorLink.mockRejectedValue(new ApiError(0, ''));
    const { actor } = await renderPeers([testPeer(), testPeer({ id: 'p2', name: 'viejo', active: false })]);
    await chooseMenuItem(actor, 'movil', 'Regenerar Mirror Link');
    await actor.click(await screen.findByRole('button', { name: 'Regenerar' }));
    expect(
      await screen.findByText('Hubo un error al intentar regenerar el mirror link del peer movil'),
    ).toBeInTheDocument();

    await chooseMenuItem(actor, 'viejo', 'Regenerar Mirror Link');
    expect(await screen.findByText('Peer no activo')).toBeInTheDocument();
    expect(screen.queryByRole('dialog', { name: 'Regenerar Mirror Link' })).not.toBeInTheDocument();
    expect(api.regenerateMirrorLink).toHaveBeenCalledTimes(1);
  });
});

describe('download', () => {
  it('saves the configuration as {peer name}.conf', async () => {
    const blob = new Blob(['[Interface]\n'], { type: 'text/plain' });
    api.downloadPeerConfig.mockResolvedValue(blob);
    const createObjectURL = vi.fn(() => 'blob:config');
    vi.stubGlobal('URL', Object.assign(URL, { createObjectURL, revokeObjectURL: vi.fn() }));
    const saved: string[] = [];
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      saved.push(`${this.download} ${this.href}`);
    });

    const { actor } = await renderPeers([testPeer()]);
    await actor.click(within(row('movil')).getByRole('button', { name: 'Descargar configuración' }));
    await waitFor(() => expect(saved).toEqual(['movil.conf blob:config']));
    expect(createObjectURL).toHaveBeenCalledWith(blob);
  });

  it('refuses an inactive peer and shows the server message or the fallback on failure', async () => {
    const { actor } = await renderPeers([testPeer(), testPeer({ id: 'p2', name: 'viejo', active: false })]);
    await actor.click(within(row('viejo')).getByRole('button', { name: 'Descargar configuración' }));
    expect(await screen.findByText('No se puede descargar la configuración de un peer inactivo')).toBeInTheDocument();
    expect(api.downloadPeerConfig).not.toHaveBeenCalled();

    api.downloadPeerConfig.mockRejectedValue(new ApiError(500, ''));
    await actor.click(within(row('movil')).getByRole('button', { name: 'Descargar configuración' }));
    expect(await screen.findByText('Error al descargar la configuración')).toBeInTheDocument();
  });
});

describe('asynchronous operations', () => {
  it('regenerates a peer: Procesando..., loading toast, controls off until updated_peer arrives', async () => {
    let accept: (value: Awaited<ReturnType<typeof peersApi.regeneratePeer>>) => void = () => undefined;
    api.regeneratePeer.mockReturnValue(new Promise((resolve) => (accept = resolve)));
    const { actor, push } = await renderPeers([testPeer()]);

    await chooseMenuItem(actor, 'movil', 'Regenerar Peer');
    const dialog = await screen.findByRole('dialog', { name: 'Regenerar Peer' });
    await actor.click(within(dialog).getByRole('button', { name: 'Regenerar' }));
    expect(within(dialog).getByRole('button', { name: 'Procesando...' })).toBeDisabled();

    act(() => accept({ success: true, message: GENERATING, data: testPeer({ processing: true, operation: running('regenerate', GENERATING) }) }));
    // The server's words, in the toast and under the peer's name; the actions wait and say why.
    await waitFor(() => expect(screen.getAllByText(GENERATING)).toHaveLength(2)); // the toast and the peer's line
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    const actions = () => within(row('movil'));
    expect(actions().getByTestId('peer-operation')).toHaveTextContent(GENERATING);
    expectWaiting(actions().getByRole('button', { name: 'Descargar configuración' }), GENERATING);
    expectWaiting(actions().getByRole('button', { name: 'Más acciones' }), GENERATING);

    const told = 'Peer movil regenerado correctamente.';
    push({ type: 'updated_peer', data: testPeer({ processing: false, address: '10.8.0.9', last_outcome: outcome('regenerate', true, told) }) });
    expect(actions().getByRole('button', { name: 'Descargar configuración' })).not.toHaveAttribute('aria-disabled');
    expect(actions().queryByTestId('peer-operation')).not.toBeInTheDocument();
    expect(await screen.findByText(told)).toBeInTheDocument();
  });

  it('finishes cleanly when the push outcome beats the HTTP answer', async () => {
    let accept: (value: Awaited<ReturnType<typeof peersApi.regeneratePeer>>) => void = () => undefined;
    api.regeneratePeer.mockReturnValue(new Promise((resolve) => (accept = resolve)));
    const { actor, push } = await renderPeers([testPeer()]);
    await chooseMenuItem(actor, 'movil', 'Regenerar Peer');
    await actor.click(await screen.findByRole('button', { name: 'Regenerar' }));

    push({ type: 'updated_peer', data: testPeer({ processing: false }) });
    act(() => accept({ success: true, message: GENERATING, data: testPeer({ processing: true }) }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(within(row('movil')).getByRole('button', { name: 'Descargar configuración' })).not.toHaveAttribute('aria-disabled');
    expect(screen.queryByText(GENERATING)).not.toBeInTheDocument();
  });

  it('ends the operation on an error push: toast, busy state and dialogs reset', async () => {
    api.regeneratePeer.mockResolvedValue({ success: true, data: testPeer({ processing: true }) });
    const { actor, push } = await renderPeers([testPeer(), testPeer({ id: 'p2', name: 'portatil' })]);
    await chooseMenuItem(actor, 'movil', 'Regenerar Peer');
    await actor.click(await screen.findByRole('button', { name: 'Regenerar' }));
    await waitFor(() => expect(within(row('movil')).getByRole('button', { name: 'Más acciones' })).toHaveAttribute('aria-disabled', 'true'));

    await chooseMenuItem(actor, 'portatil', 'Detalles');
    expect(await screen.findByRole('dialog', { name: 'Detalles del peer portatil' })).toBeInTheDocument();

    push({ type: 'error', message: 'El servidor no respondió a tiempo.', data: { peer_id: 'p1' } });
    expect(await screen.findByText('El servidor no respondió a tiempo.')).toBeInTheDocument();
    expect(within(row('movil')).getByRole('button', { name: 'Más acciones' })).not.toHaveAttribute('aria-disabled');
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
  });

  it('shows the fallback text when the regenerate call fails', async () => {
    api.regeneratePeer.mockRejectedValue(new ApiError(500, ''));
    const { actor } = await renderPeers([testPeer()]);
    await chooseMenuItem(actor, 'movil', 'Regenerar Peer');
    await actor.click(await screen.findByRole('button', { name: 'Regenerar' }));
    expect(await screen.findByText('Hubo un error al intentar regenerar el peer movil')).toBeInTheDocument();
    expect(within(row('movil')).getByRole('button', { name: 'Más acciones' })).not.toHaveAttribute('aria-disabled');
  });

  it('refuses to regenerate an inactive peer', async () => {
    const { actor } = await renderPeers([testPeer({ active: false })]);
    await chooseMenuItem(actor, 'movil', 'Regenerar Peer');
    // Refused before any confirmation: no dialog asks about something that cannot happen.
    expect(await screen.findByText('Peer no activo')).toBeInTheDocument();
    expect(screen.queryByRole('dialog', { name: 'Regenerar Peer' })).not.toBeInTheDocument();
    expect(api.regeneratePeer).not.toHaveBeenCalled();
  });

  it('refuses to regenerate a peer whose server is offline, before the confirmation', async () => {
    const { actor } = await renderPeers([testPeer({ server: { ...testPeer().server!, online: false } })]);
    await chooseMenuItem(actor, 'movil', 'Regenerar Peer');
    expect(await screen.findByText(OWN_SERVER_OFFLINE)).toBeInTheDocument();
    expect(screen.queryByRole('dialog', { name: 'Regenerar Peer' })).not.toBeInTheDocument();
    expect(api.regeneratePeer).not.toHaveBeenCalled();
  });
});

describe('push messages on the peer list', () => {
  it('adds on created_peer, merges on updated_peer and removes on deleted_peer', async () => {
    const { push } = await renderPeers([testPeer()]);
    push({ type: 'created_peer', message: 'Peer tablet creado correctamente.', data: testPeer({ id: 'p2', name: 'tablet' }) });
    expect(rows()).toHaveLength(2);
    expect(await screen.findByText('Peer tablet creado correctamente.')).toBeInTheDocument();
    expect(within(row('tablet')).getByText('Miami 1')).toBeInTheDocument();

    push({
      type: 'updated_peer',
      data: testPeer({
        id: 'p2',
        name: 'tablet',
        active: false,
        server: { id: 's3', name: 'Lima 1', address: 'vpn3.example.org', active: false, ubication: 'Lima', allow_partys: false },
      }),
    });
    expect(rows()).toHaveLength(2);
    const tablet = row('tablet');
    expect(within(tablet).getByText('Deshabilitado')).toBeInTheDocument();
    expect(within(tablet).getByText('Lima 1')).toBeInTheDocument();
    expect(within(tablet).getByText('Inactivo')).toBeInTheDocument();

    push({ type: 'deleted_peer', data: { id: 'p1' } });
    expect(rows()).toHaveLength(1);
    expect(screen.queryByText('movil')).not.toBeInTheDocument();
  });

  it('updates an open details dialog with updated_peer', async () => {
    const { actor, push } = await renderPeers([testPeer()]);
    await chooseMenuItem(actor, 'movil', 'Detalles');
    const dialog = await screen.findByRole('dialog', { name: 'Detalles del peer movil' });
    expect(within(dialog).getByText(/21 de diciembre de 2026/)).toBeInTheDocument();

    push({ type: 'updated_peer', data: testPeer({ expiration_date: null }) });
    expect(within(dialog).getByText('Indeterminado')).toBeInTheDocument();
  });

  it('shows the latest handshake and traffic from peer_stats', async () => {
    const { push } = await renderPeers([testPeer(), testPeer({ id: 'p2', name: 'portatil' })]);
    const now = Math.floor(Date.now() / 1000);
    push({
      type: 'peer_stats',
      data: { peers: [{ id: 'p1', latest_handshake: now - 125, rx_bytes: 2048, tx_bytes: 3 * 1024 * 1024 }] },
    });
    expect(within(row('movil')).getByTestId('peer-activity')).toHaveTextContent(
      'Último handshake: hace 2 min · Bajada 3.0 MB · Subida 2.0 KB',
    );
    expect(within(row('portatil')).queryByTestId('peer-activity')).not.toBeInTheDocument();

    push({ type: 'peer_stats', data: { peers: [{ id: 'p2', latest_handshake: 0, rx_bytes: 0, tx_bytes: 0 }] } });
    expect(within(row('portatil')).getByTestId('peer-activity')).toHaveTextContent('Sin conexión todavía');
    expect(within(row('movil')).getByTestId('peer-activity')).toHaveTextContent('hace 2 min');
  });
});

describe('details', () => {
  it('shows dates, Indeterminado for no expiration and the plan history in a 200 px list', async () => {
    const { actor } = await renderPeers([
      testPeer({
        expiration_date: null,
        plans_history: [
          { plan_name: 'Mensual', plan_price: '5.00', created: '2026-10-01T12:00:00Z' },
          { plan_name: 'Anual', plan_price: '40', created: '2026-11-01T12:00:00Z' },
        ],
      }),
    ]);
    await chooseMenuItem(actor, 'movil', 'Detalles');
    const dialog = await screen.findByRole('dialog', { name: 'Detalles del peer movil' });
    expect(within(dialog).getByText('Fecha de creación')).toBeInTheDocument();
    expect(within(dialog).getByText(/21 de noviembre de 2026/)).toBeInTheDocument();
    expect(within(dialog).getByText('Indeterminado')).toBeInTheDocument();
    const history = within(dialog).getByTestId('plan-history');
    expect(within(history).getByText('Mensual')).toBeInTheDocument();
    expect(within(history).getByText('$5.00 USD')).toBeInTheDocument();
    expect(within(history).getByText('$40 USD')).toBeInTheDocument();
    expect(history).toHaveStyle({ height: '200px' });
  });
});

describe('change server', () => {
  it('lists the servers, moves the peer after confirmation and goes back to the list busy', async () => {
    let answer: (servers: peersApi.ServerOption[]) => void = () => undefined;
    api.fetchAvailableServers.mockReturnValue(new Promise((resolve) => (answer = resolve)));
    api.changeServer.mockResolvedValue({ success: true, message: MOVING, data: testPeer({ processing: true, operation: running('change_server', MOVING) }) });
    const { actor, push } = await renderPeers([testPeer()]);

    await chooseMenuItem(actor, 'movil', 'Cambiar Servidor');
    expect(await screen.findByText('Cargando servidores disponibles...')).toBeInTheDocument();
    expect(api.fetchAvailableServers).toHaveBeenCalledWith('p1', expect.any(AbortSignal));
    act(() => answer([testServer(), testServer({ id: 's3', name: 'Lima 1', address: 'vpn3.example.org', allow_partys: true })]));

    const serverRows = await screen.findAllByTestId('server-row');
    expect(serverRows).toHaveLength(2);
    expect(await screen.findByRole('columnheader', { name: 'Salas' })).toBeInTheDocument();
    await actor.click(within(serverRows[0] as HTMLElement).getByRole('button', { name: 'Seleccionar' }));
    const dialog = await screen.findByRole('dialog', { name: 'Cambiar Servidor' });
    expect(dialog).toHaveTextContent('Madrid 1 (Madrid)');
    expect(dialog).not.toHaveTextContent('vpn2.example.org');
    await actor.click(within(dialog).getByRole('button', { name: 'Cambiar' }));

    expect(api.changeServer).toHaveBeenCalledWith('p1', 's2');
    expect(await within(row('movil')).findByTestId('peer-operation')).toHaveTextContent(MOVING);
    expect(screen.queryByRole('button', { name: 'Volver a Peers' })).not.toBeInTheDocument();
    expectWaiting(within(row('movil')).getByRole('button', { name: 'Más acciones' }), MOVING);

    push({
      type: 'updated_peer',
      data: testPeer({ server: { id: 's2', name: 'Madrid 1', address: 'vpn2.example.org', active: true, ubication: 'Madrid', allow_partys: false } }),
    });
    expect(within(row('movil')).getByText('Madrid 1')).toBeInTheDocument();
    expect(within(row('movil')).getByRole('button', { name: 'Más acciones' })).not.toHaveAttribute('aria-disabled');
  });

  it('says when no server is available and hides the rooms column when no server allows rooms', async () => {
    api.fetchAvailableServers.mockResolvedValue([]);
    const { actor } = await renderPeers([testPeer()]);
    await chooseMenuItem(actor, 'movil', 'Cambiar Servidor');
    // One server is not an outage: the peer is on the only one there is for now.
    expect(await screen.findByTestId('only-server')).toHaveTextContent('el único servidor disponible por ahora');
    expect(screen.queryByText(/temporalmente/)).not.toBeInTheDocument();
    await actor.click(await screen.findByRole('button', { name: 'Volver a Peers' }));
    expect(rows()).toHaveLength(1);

    api.fetchAvailableServers.mockResolvedValue([testServer()]);
    await chooseMenuItem(actor, 'movil', 'Cambiar Servidor');
    await screen.findByTestId('server-row');
    expect(screen.queryByRole('columnheader', { name: 'Salas' })).not.toBeInTheDocument();
  });

  it('shows which servers are offline or still syncing, and an offline one cannot be chosen', async () => {
    api.fetchAvailableServers.mockResolvedValue([
      testServer({ id: 's2', address: 'vpn2.example.org', online: false }),
      testServer({ id: 's3', address: 'vpn3.example.org', in_sync: false }),
    ]);
    const { actor } = await renderPeers([testPeer()]);
    await chooseMenuItem(actor, 'movil', 'Cambiar Servidor');
    const [offline, syncing] = (await screen.findAllByTestId('server-row')) as HTMLElement[];
    expect(within(offline!).getByText('Fuera de línea')).toBeInTheDocument();
    expect(within(offline!).getByRole('button', { name: 'Seleccionar' })).toBeDisabled();
    expect(
      screen.getByText('Los servidores fuera de línea no se pueden elegir hasta que vuelvan a estar en línea.'),
    ).toBeInTheDocument();
    expect(within(syncing!).getByText('Activo')).toBeInTheDocument();
    expect(within(syncing!).getByText('Sincronizando')).toBeInTheDocument();
    expect(within(syncing!).getByRole('button', { name: 'Seleccionar' })).toBeEnabled();
  });

  it('shows the server\'s refusal when the chosen server went offline meanwhile', async () => {
    const refusal =
      'El servidor elegido no está en línea en este momento. Su peer sigue en su servidor actual; elija otro o intente más tarde.';
    api.fetchAvailableServers.mockResolvedValue([testServer()]);
    api.changeServer.mockRejectedValue(new ApiError(409, refusal, 'server_offline'));
    const { actor } = await renderPeers([testPeer()]);
    await chooseMenuItem(actor, 'movil', 'Cambiar Servidor');
    await actor.click(await screen.findByRole('button', { name: 'Seleccionar' }));
    await actor.click(await screen.findByRole('button', { name: 'Cambiar' }));
    expect(await screen.findByText(refusal)).toBeInTheDocument();
  });

  it('tells when the servers cannot be loaded or the change fails', async () => {
    api.fetchAvailableServers.mockRejectedValue(new ApiError(500, ''));
    const { actor } = await renderPeers([testPeer()]);
    await chooseMenuItem(actor, 'movil', 'Cambiar Servidor');
    expect(
      (await screen.findAllByText('Hubo un error al intentar obtener los servidores disponibles.')).length,
    ).toBeGreaterThan(0);

    await actor.click(await screen.findByRole('button', { name: 'Volver a Peers' }));
    api.fetchAvailableServers.mockResolvedValue([testServer()]);
    api.changeServer.mockRejectedValue(new ApiError(0, ''));
    await chooseMenuItem(actor, 'movil', 'Cambiar Servidor');
    await actor.click(await screen.findByRole('button', { name: 'Seleccionar' }));
    await actor.click(await screen.findByRole('button', { name: 'Cambiar' }));
    expect(await screen.findByText('Hubo un error al intentar cambiar el servidor del peer.')).toBeInTheDocument();
    expect(await screen.findByRole('button', { name: 'Volver a Peers' })).toBeInTheDocument();
  });
});

describe('QR code', () => {
  it('draws the downloaded configuration as a QR code', async () => {
    api.downloadPeerConfig.mockResolvedValue(new Blob(['[Interface]\nPrivateKey = abc\n'], { type: 'text/plain' }));
    const { actor } = await renderPeers([testPeer()]);
    await actor.click(within(row('movil')).getByRole('button', { name: 'Código QR' }));
    const image = await screen.findByRole('img', { name: 'Código QR de la configuración de movil' });
    expect(image.getAttribute('src')).toMatch(/^data:image\/svg\+xml;charset=utf-8,%3Csvg/);
    expect(api.downloadPeerConfig).toHaveBeenCalledWith('p1');
  });
});

describe('states in the server\'s words (docs/api.md, "Peer operations")', () => {
  it('reads a pending move after a reload as the server words it, and its waiting actions say why', async () => {
    await renderPeers([testPeer({ processing: true, operation: running('change_server', MOVING) })]);
    const movil = within(row('movil'));
    expect(movil.getByTestId('peer-operation')).toHaveTextContent(MOVING);
    for (const name of ['Descargar configuración', 'Código QR', 'Más acciones']) {
      expectWaiting(movil.getByRole('button', { name }), MOVING);
    }
  });

  it('says what an offline server means, recommends a server and leads to the change-server screen', async () => {
    const notice =
      'El servidor Miami 1 (Miami) no responde: este peer no tiene conexión hasta que vuelva. Si no puede esperar, muévalo a otro servidor en línea y descargue de nuevo la configuración.';
    api.fetchAvailableServers.mockResolvedValue([
      testServer({ id: 's3', name: 'Lima 1', ubication: 'Lima' }),
      testServer({ recommended: true }),
    ]);
    setScreenWidth(390);
    const { actor } = await renderPeers([testPeer({ server: { ...testPeer().server!, online: false }, server_notice: notice })]);
    const banner = await screen.findByTestId('server-offline-notice');
    expect(banner).toHaveTextContent('Servidor fuera de línea: Miami 1 (Miami)');
    expect(banner).toHaveTextContent(notice);
    expect(await within(banner).findByTestId('recommended-server')).toHaveTextContent('Servidor recomendado: Madrid 1 (Madrid)');
    await actor.click(within(banner).getByRole('button', { name: 'Cambiar de servidor' }));
    expect(await screen.findByRole('heading', { name: 'Cambiar servidor del peer movil' })).toBeInTheDocument();
    expect(screen.getByText('Servidor actual: Miami 1 (Miami)')).toBeInTheDocument();
  });

  it('leaves "Sincronizando" out of a peer\'s row: a change waiting for its node is its running operation', async () => {
    await renderPeers([testPeer({ server: { ...testPeer().server!, online: true, in_sync: false } })]);
    expect(within(row('movil')).getAllByText('Activo')).toHaveLength(2); // the peer and its server
    expect(screen.queryByText('Sincronizando')).not.toBeInTheDocument();
  });

  it('shows no offline banner for a peer whose server answers', async () => {
    await renderPeers([testPeer()]);
    expect(screen.queryByTestId('server-offline-notice')).not.toBeInTheDocument();
    expect(api.fetchAvailableServers).not.toHaveBeenCalled();
  });
});

describe('when pushes do not come (docs/webui.md, live socket)', () => {
  it('polls a busy peer after a few seconds without a push and ends the busy state', async () => {
    api.regeneratePeer.mockResolvedValue({
      success: true,
      message: GENERATING,
      data: testPeer({ processing: true, version: 10, operation: running('regenerate', GENERATING) }),
    });
    const { actor } = await renderPeers([testPeer({ version: 5 })]);
    await chooseMenuItem(actor, 'movil', 'Regenerar Peer');
    await actor.click(await screen.findByRole('button', { name: 'Regenerar' }));
    expect(await within(row('movil')).findByTestId('peer-operation')).toHaveTextContent(GENERATING);

    // The socket stays silent; the server finished long ago, and failed: the poll tells it in the push's words.
    const failed = 'Hubo un error al intentar regenerar el peer movil: el servidor no respondió a tiempo.';
    api.fetchPeers.mockResolvedValue([testPeer({ processing: false, version: 20, last_outcome: outcome('regenerate', false, failed) })]);
    expect(await screen.findByText(failed, undefined, { timeout: 10_000 })).toBeInTheDocument();
    expect(within(row('movil')).getByRole('button', { name: 'Más acciones' })).not.toHaveAttribute('aria-disabled');
    expect(within(row('movil')).queryByTestId('peer-operation')).not.toBeInTheDocument();
  }, 20_000);

  it('does not end the busy state on a list read before the answer (older version)', async () => {
    api.regeneratePeer.mockResolvedValue({ success: true, data: testPeer({ processing: true, version: 10 }) });
    const { actor } = await renderPeers([testPeer({ version: 5 })]);
    await chooseMenuItem(actor, 'movil', 'Regenerar Peer');
    await actor.click(await screen.findByRole('button', { name: 'Regenerar' }));
    expect(await within(row('movil')).findByTestId('peer-operation')).toBeInTheDocument();
    api.fetchPeers.mockResolvedValue([testPeer({ processing: false, version: 8 })]);
    await waitFor(() => expect(api.fetchPeers.mock.calls.length).toBeGreaterThan(2), { timeout: 10_000 });
    expect(within(row('movil')).getByRole('button', { name: 'Más acciones' })).toHaveAttribute('aria-disabled', 'true');
  }, 20_000);

  it('refetches on reconnect: a peer paid for while the socket was down appears, a stale read does not undo a push', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0); // the shortest reconnect delay: 2.5 s
    const { push } = await renderPeers([testPeer({ version: 5 })]);
    push({ type: 'updated_peer', data: testPeer({ name: 'renombrado', version: 30 }) });
    expect(await screen.findByText('renombrado')).toBeInTheDocument();
    api.fetchPeers.mockResolvedValue([
      testPeer({ version: 20 }), // read before the push: loses
      testPeer({ id: 'p9', name: 'pagado', version: 20 }),
    ]);
    act(() => FakeWebSocket.latest().serverClose());
    expect(await screen.findByText('Sin conexión en tiempo real, reconectando…')).toBeInTheDocument();
    await waitFor(() => expect(FakeWebSocket.instances.length).toBeGreaterThan(1), { timeout: 8000 });
    act(() => FakeWebSocket.latest().open());
    expect(await screen.findByText('pagado')).toBeInTheDocument();
    expect(await screen.findByText('renombrado')).toBeInTheDocument();
    expect(screen.queryByText('Sin conexión en tiempo real, reconectando…')).not.toBeInTheDocument();
  }, 20_000);
});
