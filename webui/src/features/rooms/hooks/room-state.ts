/** The state the rooms screen's hooks share: the two room lists, the customer's peers, and what orders views. */
import { useCallback, useRef, useState } from 'react';
import { VersionLedger, reconcileList } from '../../../lib/versions';
import type { OwnPeer, RoomLists } from '../api/rooms';

const EMPTY: RoomLists = { owned_partys: [], guest_partys: [] };

export function useRoomState() {
  const [lists, setLists] = useState<RoomLists>(EMPTY);
  const [ownPeers, setOwnPeers] = useState<OwnPeer[]>([]);
  // Push handlers need the lists as they are now (e.g. to toast a deletion once), not as of the last render.
  const listsRef = useRef<RoomLists>(EMPTY);
  const update = useCallback((change: (current: RoomLists) => RoomLists) => {
    listsRef.current = change(listsRef.current);
    setLists(listsRef.current);
  }, []);
  const currentLists = useCallback(() => listsRef.current, []);

  // The newest version seen of each room: refetches older than a push lose (docs/api.md, versions).
  const [ledger] = useState(() => new VersionLedger());
  /** `sent`: ledger.mark() when the fetch was sent. */
  const reconcile = useCallback(
    (rooms: RoomLists, sent: number) =>
      update((current) => ({
        owned_partys: reconcileList(current.owned_partys, rooms.owned_partys ?? [], ledger, sent),
        guest_partys: reconcileList(current.guest_partys, rooms.guest_partys ?? [], ledger, sent),
      })),
    [ledger, update],
  );

  /**
   * The pushes of a change can arrive before its HTTP answer (found in the browser tests: an agent answering at once
   * made 'stop_party_operation' come first, then the answer's room, still `processing: true`, brought back
   * 'Operación en curso' for good). Each room push is numbered; an answer whose room had a push after the request
   * started is older than what the pushes said, and is not applied.
   */
  const pushCount = useRef(0);
  const lastPushFor = useRef(new Map<string, number>());
  const pushedAbout = useCallback((id: string | undefined) => {
    if (id) lastPushFor.current.set(id, ++pushCount.current);
  }, []);
  /** Where the numbering is now: taken when a request starts. */
  const pushMark = useCallback(() => pushCount.current, []);
  /** Whether a push about room `id` came after `mark`. */
  const pushedSince = useCallback((id: string, mark: number) => (lastPushFor.current.get(id) ?? 0) > mark, []);

  return { lists, currentLists, update, reconcile, ledger, ownPeers, setOwnPeers, pushedAbout, pushMark, pushedSince };
}

export type RoomState = ReturnType<typeof useRoomState>;
