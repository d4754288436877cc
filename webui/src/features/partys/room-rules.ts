/** The room rules of spec sections 5 and 9: validation messages and what each role may do. */
import type { RoomPeer } from './api/rooms';
import type { RoomRole } from './room-lists';

export const MAX_OWNED_ROOMS = 5;

export const MESSAGES = {
  tooManyRooms: 'No se pueden crear más de 5 salas',
  nameRequired: 'Por favor, ingrese un nombre para la sala',
  joinFieldsRequired: 'Por favor, complete todos los campos',
  peerToAddRequired: 'Por favor, selecciona un peer para añadir',
} as const;

/** Why a room cannot be created, or null. The initial peer is sent but not checked here (spec section 5). */
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

/** The action a user sees on a room peer: leave for their own peers, remove for others' (owner only). */
export function peerActionFor(role: RoomRole, peer: RoomPeer, alias: string | null): 'leave' | 'remove' | null {
  const own = alias !== null && alias !== '' && peer.user === alias;
  if (own) return 'leave';
  return role === 'owner' ? 'remove' : null;
}
