/** The room calls of spec section 7 (`/api/client/network/partys`); "party" is the wire's word for a room. */
import { api } from '../../../lib/api';

export interface RoomPeer {
  id: string;
  name: string;
  /** Alias of the peer's owner. */
  user: string;
  private_ip: string;
  /** Its server saw a handshake in the last 3 minutes; pushed again whenever that changes. */
  online: boolean;
  /** Name of the server the peer uses. */
  server: string;
  /** That server's live status, as a peer's `server.online` / `server.in_sync`: its agent is connected; it applied
   * every queued change. Absent from older answers, which then read as online and in sync. */
  server_online?: boolean;
  server_in_sync?: boolean;
}

export interface Room {
  id: string;
  name: string;
  created: string;
  /** Alias of the room's owner. */
  user: string;
  /** Sent to the owner only. */
  password?: string | null;
  peers: RoomPeer[];
  /** A change to the room is being applied on the servers. */
  processing?: boolean;
  /** When the server read this state; the larger is newer (docs/api.md, versions). */
  version?: number;
}

export interface RoomLists {
  owned_partys: Room[];
  guest_partys: Room[];
}

/** The fields of a peer this screen needs: which room it is in, if any, and whether it may join one. */
export interface OwnPeer {
  id: string;
  name: string;
  party: { id: string; name: string } | null;
  active?: boolean;
  /** `name` and `online` (its agent is connected) let the selectors say when a peer's server is offline. */
  server?: { allow_partys: boolean; name?: string; online?: boolean } | null;
}

/** What a mutation answers: a message, and the room or the new password when the server sends them. */
export interface RoomAnswer {
  success?: boolean;
  message?: string;
  password?: string;
  data?: unknown;
}

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
  return api.post<RoomAnswer>(ROOMS_PATH, { name, peer });
}

/** Also how the owner adds one of their free peers: joining their own room with its name and password. */
export function joinRoom(name: string, password: string, peer: string): Promise<RoomAnswer> {
  return api.patch<RoomAnswer>(ROOMS_PATH, { operation: 'join', name, password, peer });
}

export function regenerateRoomPassword(id: string): Promise<RoomAnswer> {
  return api.patch<RoomAnswer>(roomPath(id), { operation: 'regenerate_password' });
}

export function leaveRoom(id: string, peer: string): Promise<RoomAnswer> {
  return api.patch<RoomAnswer>(roomPath(id), { operation: 'leave', peer });
}

export function removeRoomPeer(id: string, peer: string): Promise<RoomAnswer> {
  return api.patch<RoomAnswer>(roomPath(id), { operation: 'remove_peer', peer });
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
