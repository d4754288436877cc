/** Test data: rooms and peers shaped like the API's answers (docs/contract.md#room-fields). */
import type { LobbyGame, OwnPeer, Room, RoomPeer } from '../api/rooms';

export function roomPeer(overrides: Partial<RoomPeer> = {}): RoomPeer {
  return { id: 'rp1', name: 'movil', user: 'ana_alias', private_ip: '10.8.0.2', online: false, server: 'Miami 1', server_online: true, server_in_sync: true, heard_packets: 0, heard_seconds_ago: null, ...overrides };
}

export function testRoom(overrides: Partial<Room> = {}): Room {
  return {
    id: 'r1',
    name: 'LAN Party',
    created: '2026-11-20T12:00:00Z',
    user: 'ana_alias',
    password: 'secreta123',
    peers: [roomPeer()],
    processing: false,
    lobby: [],
    version: 0,
    ...overrides,
  };
}

export function ownPeer(overrides: Partial<OwnPeer> = {}): OwnPeer {
  return { id: 'p1', name: 'movil', party: null, active: true, server: { allow_partys: true, name: 'Miami 1' }, ...overrides };
}

export function lobbyGame(overrides: Partial<LobbyGame> = {}): LobbyGame {
  return {
    id: 'g1',
    game: 'minecraft',
    name: 'Mundo de Ana',
    detail: '',
    peer: 'rp1',
    peer_name: 'movil',
    user: 'ana_alias',
    address: '10.8.0.2',
    port: 51234,
    players: null,
    max_players: null,
    seen_seconds_ago: 2,
    ...overrides,
  };
}
