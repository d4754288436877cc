import { act, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { renderWithProviders } from '../../../testing/render';
import { lobbyGame, roomPeer, testRoom } from '../testing/room-factory';
import { RoomDetailView } from './RoomDetailView';

function renderRoom(overrides: Parameters<typeof testRoom>[0]) {
  renderWithProviders(
    <RoomDetailView
      room={testRoom(overrides)}
      role="guest"
      alias="beto"
      hasFreePeers={false}
      onBack={() => undefined}
      onAction={() => undefined}
      onChoosePassword={async () => null}
    />,
    { route: '/dashboard/partys' },
  );
}

describe('Partidas en la sala', () => {
  beforeEach(() => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('shows each game with its host, the address to join and its players, and drops it 30 s after it was seen', () => {
    renderRoom({
      lobby: [
        lobbyGame({ id: 'mc', seen_seconds_ago: 2 }),
        lobbyGame({
          id: 'q3', game: 'quake3', name: 'Arena de Beto', detail: 'q3dm17', user: 'Beto', peer_name: 'pc',
          address: '10.9.0.2', port: 27960, players: 3, max_players: 8, seen_seconds_ago: 20,
        }),
        lobbyGame({ id: 'x', game: 'other', name: '', user: 'Caro', address: '10.8.0.4', port: 7777, seen_seconds_ago: 1 }),
      ],
    });
    const entries = screen.getAllByTestId('lobby-entry');
    expect(entries).toHaveLength(3);
    const quake = entries.find((e) => e.dataset.game === 'quake3')!;
    expect(within(quake).getByText('Arena de Beto')).toBeInTheDocument();
    expect(within(quake).getByText('Quake III')).toBeInTheDocument();
    expect(within(quake).getByText('3/8 jugadores')).toBeInTheDocument();
    expect(within(quake).getByTestId('lobby-address')).toHaveTextContent('10.9.0.2:27960');
    expect(within(quake).getByRole('button', { name: 'Copiar dirección 10.9.0.2:27960' })).toBeInTheDocument();
    expect(screen.getByText('Anuncio en el puerto 7777 de Caro')).toBeInTheDocument();
    // 11 s later the Quake server (seen 20 s before) has gone quiet for 31 s: it leaves without a push.
    act(() => {
      vi.advanceTimersByTime(11_000);
    });
    expect(screen.getAllByTestId('lobby-entry').map((e) => e.dataset.game)).toEqual(['minecraft', 'other']);
  });

  it('says when nobody announces a game, and what each member was heard sending', () => {
    renderRoom({
      peers: [
        roomPeer({ id: 'a', name: 'movil', heard_packets: 12, heard_seconds_ago: 3 }),
        roomPeer({ id: 'b', name: 'portatil', user: 'Beto', heard_packets: 0, heard_seconds_ago: null }),
      ],
    });
    expect(screen.getByTestId('lobby-empty')).toHaveTextContent('Nadie anuncia una partida ahora.');
    const hearing = screen.getAllByTestId('room-peer-hearing').map((e) => e.textContent);
    expect(hearing).toEqual(['Anuncios: 12 paquetes, el último ahora mismo', 'Anuncios: ninguno desde que entró']);
    expect(screen.getByText('¿Su partida no llega a los demás?')).toBeInTheDocument();
  });
});
