/** The room rules (docs/contract.md#room-rules, #room-roles): validation messages and what each role may do. */
import type { OwnPeer, RoomPeer } from './api/rooms';
import type { RoomRole } from './room-lists';

export const MAX_OWNED_ROOMS = 5;

export const MESSAGES = {
  tooManyRooms: 'No se pueden crear más de 5 salas',
  nameRequired: 'Por favor, ingrese un nombre para la sala',
  joinFieldsRequired: 'Por favor, complete todos los campos',
  peerToAddRequired: 'Por favor, selecciona un peer para añadir',
} as const;

/** Why a room cannot be created, or null. The initial peer is sent but not checked here (docs/contract.md#validation). */
export function createRoomProblem(ownedCount: number, name: string): string | null {
  if (ownedCount >= MAX_OWNED_ROOMS) return MESSAGES.tooManyRooms;
  if (!name.trim()) return MESSAGES.nameRequired;
  return null;
}

export function joinRoomProblem(name: string, password: string, peer: string | null): string | null {
  return name.trim() && password.trim() && peer ? null : MESSAGES.joinFieldsRequired;
}

export function addPeerProblem(peer: string | null): string | null {
  return peer ? null : MESSAGES.peerToAddRequired;
}

/** A free peer the server will take into a room: active, on a server that allows rooms (docs/webui.md, "Rooms"). */
export function canEnterRoom(peer: OwnPeer): boolean {
  return peer.active !== false && peer.server?.allow_partys === true;
}

/** Whether the peer's server is known to be offline (its agent is not connected, docs/operations.md). */
export function serverOffline(peer: OwnPeer): boolean {
  return peer.server?.online === false;
}

/** How the selectors name a free peer: by name, saying when its server is offline (it may still enter a room; the
 * room reaches that server when its agent returns). */
export function peerOptionLabel(peer: OwnPeer): string {
  if (!serverOffline(peer)) return peer.name;
  const server = peer.server?.name ? `servidor ${peer.server.name}` : 'servidor';
  return `${peer.name} (${server} sin conexión)`;
}

export const NO_ELIGIBLE_PEER =
  'Ninguno de sus peers libres puede entrar en una sala: el peer debe estar activo y en un servidor que permita salas. Cambie el servidor de un peer desde Peers.';

/** The action a user sees on a room peer: leave for their own peers, remove for others' (owner only). */
export function peerActionFor(role: RoomRole, peer: RoomPeer, alias: string | null): 'leave' | 'remove' | null {
  const own = alias !== null && alias !== '' && peer.user === alias;
  if (own) return 'leave';
  return role === 'owner' ? 'remove' : null;
}
