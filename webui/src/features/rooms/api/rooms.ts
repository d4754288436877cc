/** The room calls (docs/contract.md#room-calls) (`/api/client/network/partys`); "party" is the wire's word for a room. */
import type { Peer, PeerServer, Room, RoomAnswer, RoomCreate, RoomJoin, RoomLists, RoomOperation } from '../../../api/types';
import { api } from '../../../lib/api';

export type { LobbyGame, Room, RoomAnswer, RoomLists, RoomPeer } from '../../../api/types';

/** The fields of a peer this screen needs: which room it is in, if any, and whether it may join one; `name` and
 * `online` of its server (its agent is connected) let the selectors say when a peer's server is offline. */
export type OwnPeer = Pick<Peer, 'id' | 'name' | 'party' | 'active'> & {
  server: Pick<PeerServer, 'allow_partys' | 'name' | 'online'>;
};

const ROOMS_PATH = '/api/client/network/partys';
const roomPath = (id: string) => `${ROOMS_PATH}/${encodeURIComponent(id)}`;

export function fetchRooms(signal?: AbortSignal): Promise<RoomLists> {
  return api.get<RoomLists>(ROOMS_PATH, { signal });
}

/** The customer's peers; the free ones (party null) can create, join or be added to a room. */
export function fetchOwnPeers(signal?: AbortSignal): Promise<OwnPeer[]> {
  return api.get<OwnPeer[]>('/api/client/accounts/peers', { signal });
}

export function createRoom(name: string, peer: string): Promise<RoomAnswer> {
  return api.post<RoomAnswer>(ROOMS_PATH, { name, peer } satisfies RoomCreate);
}

/** Also how the owner adds one of their free peers: joining their own room with its name and password. */
export function joinRoom(name: string, password: string, peer: string): Promise<RoomAnswer> {
  return api.patch<RoomAnswer>(ROOMS_PATH, { operation: 'join', name, password, peer } satisfies RoomJoin);
}

export function regenerateRoomPassword(id: string): Promise<RoomAnswer> {
  return api.patch<RoomAnswer>(roomPath(id), { operation: 'regenerate_password' } satisfies RoomOperation);
}

export function setRoomPassword(id: string, password: string): Promise<RoomAnswer> {
  return api.patch<RoomAnswer>(roomPath(id), { operation: 'set_password', password } satisfies RoomOperation);
}

export function leaveRoom(id: string, peer: string): Promise<RoomAnswer> {
  return api.patch<RoomAnswer>(roomPath(id), { operation: 'leave', peer } satisfies RoomOperation);
}

export function removeRoomPeer(id: string, peer: string): Promise<RoomAnswer> {
  return api.patch<RoomAnswer>(roomPath(id), { operation: 'remove_peer', peer } satisfies RoomOperation);
}

export function deleteRoom(id: string): Promise<RoomAnswer> {
  return api.delete<RoomAnswer>(roomPath(id));
}

/** The room inside an answer that is either the room itself or `{data: room}`. */
export function roomIn(answer: unknown): Room | null {
  if (!answer || typeof answer !== 'object') return null;
  const { data } = answer as { data?: unknown };
  const candidate = (data && typeof data === 'object' ? data : answer) as Partial<Room>;
  return typeof candidate.id === 'string' && Array.isArray(candidate.peers) ? (candidate as Room) : null;
}

/** The new password inside a regenerate answer: `{password}`, `{data: {password}}` or the room. */
export function passwordIn(answer: unknown): string | null {
  if (!answer || typeof answer !== 'object') return null;
  const { password, data } = answer as { password?: unknown; data?: unknown };
  if (typeof password === 'string') return password;
  const nested = data && typeof data === 'object' ? (data as { password?: unknown }).password : undefined;
  return typeof nested === 'string' ? nested : null;
}
