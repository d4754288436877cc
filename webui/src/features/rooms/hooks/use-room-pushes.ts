/** What the rooms screen does with push messages: room operations starting and ending, rooms changed or removed. */
import { toast } from '../../../lib/toasts';
import { usePushMessage } from '../../realtime';
import * as roomsApi from '../api/rooms';
import { hasRoom, markProcessing, removeRoom, upsertRoom, type RoomRole } from '../room-lists';
import type { RoomState } from './room-state';

export const ROOM_DELETED = 'Party eliminada';
const LEFT_ROOM = 'Haz salido de una sala';

/** `onReset` runs on `error` / `info` pushes: the page then closes its dialogs (docs/contract.md#push-messages). */
export function useRoomPushes(
  { currentLists, update, ledger, pushedAbout }: RoomState,
  refreshPeers: () => void,
  onReset: () => void,
): void {
  usePushMessage(['new_party_operation', 'stop_party_operation'], ({ type, data }) => {
    pushedAbout(data?.id);
    if (!data?.id || !ledger.note(data.id, data.version)) return;
    update((current) => markProcessing(current, data.id, type === 'new_party_operation'));
  });

  usePushMessage(['updated_owner_party', 'updated_guest_party'], ({ type, data }) => {
    const room = roomsApi.roomIn(data);
    if (!room || !ledger.note(room.id, room.version)) return;
    const role: RoomRole = type === 'updated_owner_party' ? 'owner' : 'guest';
    pushedAbout(room.id);
    update((current) => upsertRoom(current, role, room));
    refreshPeers();
  });

  usePushMessage(['deleted_owner_party', 'deleted_guest_party'], ({ type, data }) => {
    if (!data?.id || !ledger.note(data.id, data.version, true)) return;
    pushedAbout(data.id);
    // The page may have removed the room already when its own DELETE answered; toast each deletion once.
    if (hasRoom(currentLists(), data.id)) toast.success(type === 'deleted_owner_party' ? ROOM_DELETED : LEFT_ROOM);
    update((current) => removeRoom(current, data.id as string));
    refreshPeers();
  });

  usePushMessage(['error', 'info'], ({ data }) => {
    const roomId = data?.party_id ?? undefined;
    pushedAbout(roomId);
    if (roomId) update((current) => markProcessing(current, roomId, false));
    onReset();
  });
}
