/** Test data: rooms and peers shaped like the API's answers (docs/contract.md#room-fields). */
import type { OwnPeer, Room, RoomPeer } from '../api/rooms';

export function roomPeer(overrides: Partial<RoomPeer> = {}): RoomPeer {
  return { id: 'rp1', name: 'movil', user: 'ana_alias', private_ip: '10.8.0.2', online: false, server: 'Miami 1', server_online: true, server_in_sync: true, ...overrides };
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
    version: 0,
    ...overrides,
  };
}

export function ownPeer(overrides: Partial<OwnPeer> = {}): OwnPeer {
  return { id: 'p1', name: 'movil', party: null, active: true, server: { allow_partys: true, name: 'Miami 1' }, ...overrides };
}
