/** What the rooms screen does with push messages: room operations starting and ending, rooms changed or removed. */
import { toast } from '../../../lib/toasts';
import { usePushMessage } from '../../realtime';
import * as roomsApi from '../api/rooms';
import { hasRoom, markProcessing, removeRoom, upsertRoom, type RoomRole } from '../room-lists';
import type { RoomState } from './room-state';


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

  // A push's `message` is the server's sentence for this user (which room, what happened to which peer): shown as
  // it comes. The user whose own call caused the change gets none: the call's answer said it (docs/contract.md#deviations).
  usePushMessage(['updated_owner_party', 'updated_guest_party'], ({ type, data, message }) => {
    const room = roomsApi.roomIn(data);
    if (message) toast.info(message);
    if (!room || !ledger.note(room.id, room.version)) return;
    const role: RoomRole = type === 'updated_owner_party' ? 'owner' : 'guest';
    pushedAbout(room.id);
    update((current) => upsertRoom(current, role, room));
    refreshPeers();
  });

  usePushMessage(['deleted_owner_party', 'deleted_guest_party'], ({ data, message }) => {
    if (!data?.id || !ledger.note(data.id, data.version, true)) return;
    pushedAbout(data.id);
    // Said once: the page may have removed the room already when its own call answered.
    if (message && hasRoom(currentLists(), data.id)) toast.info(message);
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
