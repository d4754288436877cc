import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderWithProviders } from '../../../testing/render';
import * as serversApi from '../api/room-servers';
import type { RoomPlacement } from '../api/room-servers';
import { testRoom } from '../testing/room-factory';
import { RoomServers } from './RoomServers';

vi.mock('../api/room-servers', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../api/room-servers')>()),
  fetchRoomPlacement: vi.fn(),
  moveMyRoomPeers: vi.fn(),
}));

const api = vi.mocked(serversApi);

afterEach(() => vi.clearAllMocks());

const REASON = 'Madrid 1 (Madrid) ya tiene 2 de los 3 peers de la sala: con todos allí, el tráfico no cruza.';

function placement(mine: boolean): RoomPlacement {
  const member = (peer: string, name: string, user: string, server: string, serverName: string, ubication: string, rtt: number | null = null) => ({
    peer, name, user, mine: mine === (user === 'Ana'), server, server_name: serverName, ubication, rtt_ms: rtt,
  });
  return {
    members: [
      member('a1', 'movil', 'Ana', 's1', 'Miami 1', 'Miami'),
      member('b1', 'pc', 'Beto', 's2', 'Madrid 1', 'Madrid', 35),
      member('b2', 'laptop', 'Beto', 's2', 'Madrid 1', 'Madrid'),
    ],
    servers: [
      { id: 's2', name: 'Madrid 1', ubication: 'Madrid', members: 2, online: true, accepts_peers: true, peers: 40, capacity: 250, recommended: true },
      { id: 's1', name: 'Miami 1', ubication: 'Miami', members: 1, online: false, accepts_peers: false, peers: 9, capacity: 250, recommended: false },
      { id: 's3', name: 'Miami 2', ubication: 'Miami', members: 0, online: true, accepts_peers: true, peers: 3, capacity: 250, recommended: false },
    ],
    recommended: 's2',
    reason: REASON,
    to_move: mine ? ['a1'] : [],
  };
}

describe('where the room plays', () => {
  it("shows each member's server with its location and count, and the owner moves theirs in one click", async () => {
    api.fetchRoomPlacement.mockResolvedValue(placement(true));
    api.moveMyRoomPeers.mockResolvedValue({ success: true, message: 'Moviendo 1 peer a Madrid 1 (Madrid)…', moving: ['a1'], refused: [] });
    renderWithProviders(<RoomServers room={testRoom()} owner />, { route: '/dashboard/partys' });
    const card = await screen.findByTestId('room-servers');
    const servers = within(card).getAllByTestId('room-server');
    // Servers holding members, and the recommended one; an empty server that is not recommended is left out.
    expect(servers).toHaveLength(2);
    expect(servers[0]).toHaveTextContent('Madrid 1 (Madrid)2 peersRecomendado');
    // Each member's round trip to its server, or that its device is not measured (it drops ping).
    expect(servers[0]).toHaveTextContent('pc (Beto) · 35 ms, laptop (Beto) · sin medir');
    expect(servers[1]).toHaveTextContent('Miami 1 (Miami)1 peerServidor sin conexión');
    expect(within(card).getByTestId('room-best-server')).toHaveTextContent(REASON);
    await userEvent.click(within(card).getByRole('button', { name: 'Mover mis peers aquí (1)' }));
    await waitFor(() => expect(api.moveMyRoomPeers).toHaveBeenCalledWith('r1', 's2'));
    expect(await screen.findByText('Moviendo 1 peer a Madrid 1 (Madrid)…')).toBeInTheDocument();
  });

  it('suggests a guest to move theirs, each with its change-server link, and offers no group move', async () => {
    const guestView = placement(false);
    guestView.members = guestView.members.map((m) => ({ ...m, mine: m.user === 'Beto' }));
    guestView.recommended = 's1';
    guestView.servers = guestView.servers.map((s) => ({ ...s, recommended: s.id === 's1', online: true, accepts_peers: true }));
    guestView.to_move = ['b1', 'b2'];
    api.fetchRoomPlacement.mockResolvedValue(guestView);
    renderWithProviders(<RoomServers room={testRoom()} owner={false} />, { route: '/dashboard/partys' });
    const suggestion = await screen.findByTestId('room-move-suggestion');
    expect(suggestion).toHaveTextContent('Le sugerimos pasar sus peers a Miami 1 (Miami):');
    const links = within(suggestion).getAllByRole('link', { name: 'Cambiar servidor' });
    expect(links.map((link) => link.getAttribute('href'))).toEqual(['/dashboard/peers?mover=b1', '/dashboard/peers?mover=b2']);
    expect(screen.queryByRole('button', { name: /Mover mis peers/ })).not.toBeInTheDocument();
  });
});
