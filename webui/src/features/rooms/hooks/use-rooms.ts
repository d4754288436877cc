/**
 * The rooms screen's model: its state (room-state.ts), loading it (use-room-queries.ts), what push messages do to it
 * (use-room-pushes.ts) and the changes the customer makes (use-room-operations.ts).
 */
import type { OwnPeer, Room, RoomLists } from '../api/rooms';
import { useRoomState } from './room-state';
import { useRoomOperations } from './use-room-operations';
import { useRoomPushes } from './use-room-pushes';
import { useRoomQueries, type LoadState } from './use-room-queries';

export type { LoadState } from './use-room-queries';

export interface RoomsModel {
  load: LoadState;
  lists: RoomLists;
  ownPeers: OwnPeer[];
  freePeers: OwnPeer[];
  reload: () => void;
  create: (name: string, peer: string | null) => Promise<boolean>;
  join: (name: string, password: string, peer: string) => Promise<boolean>;
  addPeer: (room: Room, peer: string) => Promise<boolean>;
  regeneratePassword: (room: Room) => Promise<void>;
  /** null when set, else the reason it was refused (shown beside the field). */
  setPassword: (room: Room, password: string) => Promise<string | null>;
  leave: (room: Room, peer: string) => Promise<void>;
  removePeer: (room: Room, peer: string) => Promise<void>;
  deleteRoom: (room: Room) => Promise<void>;
}

/** `onReset` runs on `error` / `info` pushes: the page then closes its dialogs (docs/contract.md#push-messages). */
export function useRooms({ onReset }: { onReset: () => void }): RoomsModel {
  const state = useRoomState();
  const { load, reload, refreshPeers } = useRoomQueries(state);
  useRoomPushes(state, refreshPeers, onReset);
  const operations = useRoomOperations(state, refreshPeers);
  const freePeers = state.ownPeers.filter((peer) => peer.party === null);
  return { load, lists: state.lists, ownPeers: state.ownPeers, freePeers, reload, ...operations };
}
