import { notifications } from '@mantine/notifications';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../../lib/api';
import { FakeWebSocket } from '../../realtime/testing/fake-web-socket';
import * as manager from '../api/manager';
import { renderManagerPage, SUPPORT, testServerStatus } from '../testing/manager-factory';
import { ServersPage } from './ServersPage';

vi.mock('../api/manager', async (importOriginal) => {
  const original = await importOriginal<typeof import('../api/manager')>();
  return {
    ...original,
    managerApi: { ...original.managerApi, servers: vi.fn(), createServer: vi.fn(), updateServer: vi.fn(), reissueCredential: vi.fn() },
  };
});
const api = vi.mocked(manager.managerApi);

beforeEach(() => {
  FakeWebSocket.reset();
  vi.stubGlobal('WebSocket', FakeWebSocket);
  window.localStorage.setItem('access_token', 'acc');
});

afterEach(() => {
  act(() => notifications.clean());
  vi.unstubAllGlobals();
  vi.clearAllMocks();
});

const INSTALL = "cat > /etc/vpn-node/agent.toml <<'EOF'\ncontrol_url = \"cp.example:50051\"\nEOF\nsystemctl enable --now vpn-node-agent\n";

describe('servers page', () => {
  it('creates a server and shows its one-time credential and install steps', async () => {
    api.servers.mockResolvedValue([]);
    const created = testServerStatus({ id: 's2', name: 'Bogotá 1' });
    api.createServer.mockResolvedValue({ server: created, credential: 'secreto-123', install: INSTALL });
    const actor = userEvent.setup({ delay: null });
    renderManagerPage(<ServersPage />);
    expect(await screen.findByText('Todavía no hay servidores.')).toBeInTheDocument();

    await actor.click(await screen.findByRole('button', { name: 'Nuevo servidor' }));
    await actor.type(await screen.findByLabelText(/^Nombre/), 'Bogotá 1');
    await actor.type(await screen.findByLabelText(/^Dirección pública/), 'bog1.vpn.test');
    await actor.type(await screen.findByLabelText(/^Subred del túnel/), '10.60.0.0/24');
    await actor.click(await screen.findByRole('button', { name: 'Crear servidor' }));

    expect(api.createServer).toHaveBeenCalledWith(
      expect.objectContaining({ name: 'Bogotá 1', address: 'bog1.vpn.test', tunnel_subnet: '10.60.0.0/24', port: 51820 }),
    );
    expect(await screen.findByText('La credencial se muestra una sola vez')).toBeInTheDocument();
    expect(await screen.findByTestId('credential')).toHaveTextContent('secreto-123');
    expect(await screen.findByTestId('install-steps')).toHaveTextContent('systemctl enable --now vpn-node-agent');
    expect(screen.queryByText('Pasos incompletos: faltan ajustes en el panel')).not.toBeInTheDocument();
    expect(await screen.findByText('Bogotá 1')).toBeInTheDocument();
  }, 20_000);

  it('says which panel settings the install steps lack', async () => {
    api.servers.mockResolvedValue([]);
    const install = `# FALTA: el panel no tiene VPN_AGENT_REPOSITORY (la URL git del servicio).\n${INSTALL}`;
    api.createServer.mockResolvedValue({ server: testServerStatus(), credential: 'c', install, install_missing: ['VPN_AGENT_REPOSITORY'] });
    const actor = userEvent.setup({ delay: null });
    renderManagerPage(<ServersPage />);
    await actor.click(await screen.findByRole('button', { name: 'Nuevo servidor' }));
    await actor.type(await screen.findByLabelText(/^Nombre/), 'Miami 1');
    await actor.click(await screen.findByRole('button', { name: 'Crear servidor' }));
    const alert = (await screen.findByText('Pasos incompletos: faltan ajustes en el panel')).closest('[role="alert"]') as HTMLElement;
    expect(alert).toHaveTextContent('Defina VPN_AGENT_REPOSITORY en la configuración del panel');
    expect(await screen.findByTestId('install-steps')).toHaveTextContent('# FALTA: el panel no tiene VPN_AGENT_REPOSITORY');
  }, 20_000);

  it('shows the server refusal and keeps the form open', async () => {
    api.servers.mockResolvedValue([testServerStatus()]);
    api.createServer.mockRejectedValue(new ApiError(409, 'La subred se superpone con la del servidor Miami 1.', 'subnet_overlap'));
    const actor = userEvent.setup({ delay: null });
    renderManagerPage(<ServersPage />);
    await actor.click(await screen.findByRole('button', { name: 'Nuevo servidor' }));
    await actor.type(await screen.findByLabelText(/^Nombre/), 'Otro');
    await actor.click(await screen.findByRole('button', { name: 'Crear servidor' }));
    expect(await screen.findByText('La subred se superpone con la del servidor Miami 1.')).toBeInTheDocument();
    expect(await screen.findByRole('button', { name: 'Crear servidor' })).toBeInTheDocument();
  }, 20_000);

  it("shows the server's field refusals under their inputs, and clears one when it is edited", async () => {
    api.servers.mockResolvedValue([testServerStatus()]);
    api.createServer.mockRejectedValue(
      new ApiError(422, 'Nombre: es demasiado largo (máximo 64 caracteres).', 'invalid', {
        name: 'Es demasiado largo (máximo 64 caracteres).',
      }),
    );
    const actor = userEvent.setup({ delay: null });
    renderManagerPage(<ServersPage />);
    await actor.click(await screen.findByRole('button', { name: 'Nuevo servidor' }));
    const name = await screen.findByLabelText(/^Nombre/);
    await actor.type(name, 'Otro');
    await actor.type(screen.getByLabelText(/^Dirección pública/), 'otro.vpn.test');
    await actor.type(screen.getByLabelText(/^Subred del túnel/), '10.9.0.0/24');
    await actor.click(screen.getByRole('button', { name: 'Crear servidor' }));
    // Under the input it concerns, tied to it for screen readers, the form still open with what was typed.
    await waitFor(() => expect(name).toHaveAccessibleDescription(/Es demasiado largo \(máximo 64 caracteres\)\./));
    expect(name).toHaveAttribute('aria-invalid', 'true');
    expect(name).toHaveValue('Otro');
    await actor.type(name, 'x');
    expect(name).not.toHaveAttribute('aria-invalid', 'true');
    expect(screen.queryByText('Es demasiado largo (máximo 64 caracteres).')).not.toBeInTheDocument();
  }, 20_000);

  it('updates a node live when its agent connects and reports stats', async () => {
    api.servers.mockResolvedValue([testServerStatus()]);
    renderManagerPage(<ServersPage />);
    const row = (await screen.findByText('Miami 1')).closest('tr') as HTMLElement;
    expect(within(row).getByText('Desconectado')).toBeInTheDocument();
    const socket = FakeWebSocket.latest();
    act(() => socket.open());
    act(() =>
      socket.receive({
        type: 'node_stats',
        data: { id: 's1', stats_at: '2026-11-21T06:00:00Z', stats_peers_connected: 3, stats_rx_bytes: 2048, stats_tx_bytes: 1048576 },
      }),
    );
    await waitFor(() => expect(within(row).getByText('En línea')).toBeInTheDocument());
    expect(within(row).getByText(/3 conectados/)).toHaveTextContent('3 conectados · ↓1.0 MB ↑2.0 KB');
    act(() => socket.receive({ type: 'node_status', data: { id: 's1', online: false } }));
    await waitFor(() => expect(within(row).getByText('Desconectado')).toBeInTheDocument());
  }, 20_000);

  it('sets the backbone endpoint and port of a new server', async () => {
    api.servers.mockResolvedValue([]);
    api.createServer.mockResolvedValue({ server: testServerStatus({ id: 's2', name: 'Bogotá 1' }), credential: 'c', install: INSTALL });
    const actor = userEvent.setup({ delay: null });
    renderManagerPage(<ServersPage />);
    await actor.click(await screen.findByRole('button', { name: 'Nuevo servidor' }));
    await actor.type(await screen.findByLabelText(/^Nombre/), 'Bogotá 1');
    await actor.type(await screen.findByLabelText(/^Dirección pública/), 'bog1.vpn.test');
    await actor.type(await screen.findByLabelText(/^Subred del túnel/), '10.60.0.0/24');
    await actor.click(await screen.findByLabelText('Permite salas'));
    expect(await screen.findByLabelText('Puerto UDP del backbone')).toHaveValue('51821');
    await actor.type(await screen.findByLabelText('Endpoint del backbone'), ' 10.200.0.7 ');
    const port = await screen.findByLabelText('Puerto UDP del backbone');
    await actor.clear(port);
    await actor.type(port, '51900');
    await actor.click(await screen.findByRole('button', { name: 'Crear servidor' }));
    expect(api.createServer).toHaveBeenCalledWith(
      expect.objectContaining({ allow_partys: true, backbone_endpoint: '10.200.0.7', backbone_port: 51900, port: 51820 }),
    );
  }, 20_000);

  it('refuses a backbone endpoint with a port or scheme, and the clients port for the backbone', async () => {
    api.servers.mockResolvedValue([]);
    const actor = userEvent.setup({ delay: null });
    renderManagerPage(<ServersPage />);
    await actor.click(await screen.findByRole('button', { name: 'Nuevo servidor' }));
    await actor.type(await screen.findByLabelText(/^Nombre/), 'Bogotá 1');
    await actor.type(await screen.findByLabelText('Endpoint del backbone'), 'udp://bog1.vpn.test:51821');
    const port = await screen.findByLabelText('Puerto UDP del backbone');
    await actor.clear(port);
    await actor.type(port, '51820');
    await actor.click(await screen.findByRole('button', { name: 'Crear servidor' }));
    expect(await screen.findByText('Indique un nombre de host o una IP, sin puerto ni esquema.')).toBeInTheDocument();
    expect(await screen.findByText('Debe ser distinto del puerto UDP de los clientes.')).toBeInTheDocument();
    expect(api.createServer).not.toHaveBeenCalled();

    await actor.clear(await screen.findByLabelText('Endpoint del backbone'));
    await actor.type(await screen.findByLabelText('Endpoint del backbone'), '2001:db8::7');
    await actor.clear(port);
    await actor.type(port, '51821');
    expect(screen.queryByText('Indique un nombre de host o una IP, sin puerto ni esquema.')).not.toBeInTheDocument();
    expect(screen.queryByText('Debe ser distinto del puerto UDP de los clientes.')).not.toBeInTheDocument();
  }, 20_000);

  it('refuses an address with a port and a DNS without an IP before asking', async () => {
    api.servers.mockResolvedValue([]);
    const actor = userEvent.setup({ delay: null });
    renderManagerPage(<ServersPage />);
    await actor.click(await screen.findByRole('button', { name: 'Nuevo servidor' }));
    await actor.type(await screen.findByLabelText(/^Nombre/), 'Bogotá 1');
    await actor.type(await screen.findByLabelText(/^Dirección pública/), 'bog1.vpn.test:51820');
    const dns = await screen.findByLabelText(/^DNS/);
    await actor.clear(dns);
    await actor.type(dns, 'dns.google');
    await actor.click(await screen.findByRole('button', { name: 'Crear servidor' }));
    expect(await screen.findByText('Indique un nombre de host o una IP, sin puerto, corchetes ni esquema.')).toBeInTheDocument();
    expect(await screen.findByText('Indique una o más IP separadas por comas; dominios de búsqueda opcionales.')).toBeInTheDocument();
    expect(api.createServer).not.toHaveBeenCalled();

    await actor.clear(await screen.findByLabelText(/^Dirección pública/));
    await actor.type(await screen.findByLabelText(/^Dirección pública/), '2001:db8::7');
    await actor.clear(dns);
    await actor.type(dns, '10.60.0.1, 1.1.1.1, bogota.lan');
    await actor.type(await screen.findByLabelText(/^Subred del túnel/), '10.60.0.0/24');
    await actor.click(await screen.findByRole('button', { name: 'Crear servidor' }));
    expect(api.createServer).toHaveBeenCalledWith(
      expect.objectContaining({ address: '2001:db8::7', dns: '10.60.0.1, 1.1.1.1, bogota.lan' }),
    );
  }, 20_000);

  it('edits the backbone of an existing server', async () => {
    const server = testServerStatus({ allow_partys: true, backbone_endpoint: 'enlace.miami1.vpn.test', backbone_port: 51821 });
    api.servers.mockResolvedValue([server]);
    api.updateServer.mockResolvedValue({ ...server, backbone_endpoint: '10.200.0.1' });
    const actor = userEvent.setup({ delay: null });
    renderManagerPage(<ServersPage />);
    await actor.click(await screen.findByRole('button', { name: 'Acciones de Miami 1' }));
    await actor.click(await screen.findByRole('menuitem', { name: 'Editar' }));
    const endpoint = await screen.findByLabelText('Endpoint del backbone');
    expect(endpoint).toHaveValue('enlace.miami1.vpn.test');
    await actor.clear(endpoint);
    await actor.type(endpoint, '10.200.0.1');
    await actor.click(await screen.findByRole('button', { name: 'Guardar' }));
    expect(api.updateServer).toHaveBeenCalledWith('s1', expect.objectContaining({ backbone_endpoint: '10.200.0.1', backbone_port: 51821 }));
    expect(api.updateServer.mock.calls[0]?.[1]).not.toHaveProperty('tunnel_subnet');
  }, 20_000);

  it('offers support no server changes', async () => {
    api.servers.mockResolvedValue([testServerStatus()]);
    renderManagerPage(<ServersPage />, SUPPORT);
    expect(await screen.findByText('Miami 1')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Nuevo servidor' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /^Acciones/ })).not.toBeInTheDocument();
  }, 20_000);
});
