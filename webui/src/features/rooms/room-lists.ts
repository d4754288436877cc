/** Pure updates of the owned and guest room lists for answers and push messages. */
import type { Room, RoomLists } from './api/rooms';

export type RoomRole = 'owner' | 'guest';

const KEY: Record<RoomRole, keyof RoomLists> = { owner: 'owned_partys', guest: 'guest_partys' };

/** Replaces the room with the same id in the list of `role`, or adds it there. */
export function upsertRoom(lists: RoomLists, role: RoomRole, room: Room): RoomLists {
  const key = KEY[role];
  const list = lists[key];
  const index = list.findIndex((existing) => existing.id === room.id);
  const next = index === -1 ? [...list, room] : list.map((existing, i) => (i === index ? { ...existing, ...room } : existing));
  return { ...lists, [key]: next };
}

export function removeRoom(lists: RoomLists, id: string): RoomLists {
  return {
    owned_partys: lists.owned_partys.filter((room) => room.id !== id),
    guest_partys: lists.guest_partys.filter((room) => room.id !== id),
  };
}

/** Sets the 'Operación en curso' mark of one room, or clears every mark when `id` is undefined. */
export function markProcessing(lists: RoomLists, id: string | undefined, processing: boolean): RoomLists {
  const mark = (room: Room) => (id === undefined || room.id === id ? { ...room, processing } : room);
  return { owned_partys: lists.owned_partys.map(mark), guest_partys: lists.guest_partys.map(mark) };
}

export function findRoom(lists: RoomLists, id: string | null): { room: Room; role: RoomRole } | null {
  if (id === null) return null;
  const owned = lists.owned_partys.find((room) => room.id === id);
  if (owned) return { room: owned, role: 'owner' };
  const guest = lists.guest_partys.find((room) => room.id === id);
  return guest ? { room: guest, role: 'guest' } : null;
}

export function hasRoom(lists: RoomLists, id: string): boolean {
  return findRoom(lists, id) !== null;
}
