/** The rooms screen's state: room lists, the customer's peers, mutations, and what push messages do to them. */
import { useCallback, useEffect, useRef, useState } from 'react';
import { errorMessage } from '../../../lib/api';
import { toast } from '../../../lib/toasts';
import { VersionLedger, reconcileList } from '../../../lib/versions';
import { usePushMessage, useSocketOpened, type NoticeData } from '../../realtime';
import { useBusyPolling } from '../../realtime/use-busy-polling';
import * as roomsApi from '../api/rooms';
import type { OwnPeer, Room, RoomAnswer, RoomLists } from '../api/rooms';
import { findRoom, hasRoom, markProcessing, removeRoom, upsertRoom, type RoomRole } from '../room-lists';

export type LoadState = { status: 'loading' } | { status: 'error'; message: string } | { status: 'ready' };

const EMPTY: RoomLists = { owned_partys: [], guest_partys: [] };
const DONE = 'Operación realizada correctamente.';
const ROOM_DELETED = 'Party eliminada';
const LEFT_ROOM = 'Haz salido de una sala';
/** Pushes that show the socket delivers this page's news; while they come, a busy page does not poll. */
const ROOM_PUSH_TYPES = [
  'new_party_operation',
  'stop_party_operation',
  'updated_owner_party',
  'updated_guest_party',
  'deleted_owner_party',
  'deleted_guest_party',
  'error',
  'info',
] as const;

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
  leave: (room: Room, peer: string) => Promise<void>;
  removePeer: (room: Room, peer: string) => Promise<void>;
  deleteRoom: (room: Room) => Promise<void>;
}

/** A 2xx answer can still say `success: false`; that is a failure with the server's message. */
class RefusedAnswer extends Error {}

async function call(request: () => Promise<RoomAnswer>): Promise<RoomAnswer> {
  const answer = (await request()) ?? {};
  if (answer.success === false) throw new RefusedAnswer(answer.message ?? '');
  return answer;
}

function failureText(error: unknown, fallback: string): string {
  if (error instanceof RefusedAnswer) return error.message || fallback;
  return errorMessage(error, fallback);
}

/** `onReset` runs on `error` / `info` pushes: the page then closes its dialogs (spec section 4). */
export function useRooms({ onReset }: { onReset: () => void }): RoomsModel {
  const [load, setLoad] = useState<LoadState>({ status: 'loading' });
  const [lists, setLists] = useState<RoomLists>(EMPTY);
  const [ownPeers, setOwnPeers] = useState<OwnPeer[]>([]);
  const [attempt, setAttempt] = useState(0);
  // Push handlers need the lists as they are now (e.g. to toast a deletion once), not as of the last render.
  const listsRef = useRef<RoomLists>(EMPTY);
  const update = useCallback((change: (current: RoomLists) => RoomLists) => {
    listsRef.current = change(listsRef.current);
    setLists(listsRef.current);
  }, []);
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
  // The newest version seen of each room: refetches older than a push lose (docs/api.md, versions).
  const ledger = useRef(new VersionLedger());
  const reconcile = useCallback(
    (rooms: RoomLists) =>
      update((current) => ({
        owned_partys: reconcileList(current.owned_partys, rooms.owned_partys ?? [], ledger.current),
        guest_partys: reconcileList(current.guest_partys, rooms.guest_partys ?? [], ledger.current),
      })),
    [update],
  );
  const ready = useRef(false);

  useEffect(() => {
    const controller = new AbortController();
    setLoad({ status: 'loading' });
    ready.current = false;
    Promise.all([roomsApi.fetchRooms(controller.signal), roomsApi.fetchOwnPeers(controller.signal)])
      .then(([rooms, peers]) => {
        reconcile(rooms);
        setOwnPeers(peers);
        setLoad({ status: 'ready' });
        ready.current = true;
      })
      .catch((error: unknown) => {
        if (controller.signal.aborted) return;
        setLoad({ status: 'error', message: errorMessage(error, 'Hubo un error al cargar los datos de la sección') });
      });
    return () => controller.abort();
  }, [attempt, reconcile]);

  /**
   * Quiet reloads after changes: the lists stay on screen, a failure keeps what is shown. Rooms are reloaded only
   * when an answer carried no room: a reload racing the push messages could bring back a stale processing mark.
   */
  const refreshPeers = useCallback(() => {
    roomsApi.fetchOwnPeers().then(setOwnPeers, () => undefined);
  }, []);
  const refreshAfter = useCallback(
    (answer: RoomAnswer, role: RoomRole | null, started: number) => {
      const room = roomsApi.roomIn(answer);
      if (room && ((lastPushFor.current.get(room.id) ?? 0) > started || !ledger.current.note(room.id, room.version))) {
        refreshPeers();
        return;
      }
      // A listed room keeps its list (an owner may use 'Unirse a una sala' on their own room); a new one goes to `role`.
      const known = room && (findRoom(listsRef.current, room.id)?.role ?? role);
      if (room && known) update((current) => upsertRoom(current, known, room));
      else {
        roomsApi.fetchRooms().then(
          (rooms) => update(() => ({ owned_partys: rooms.owned_partys ?? [], guest_partys: rooms.guest_partys ?? [] })),
          () => undefined,
        );
      }
      refreshPeers();
    },
    [refreshPeers, update],
  );

  usePushMessage<{ id?: string; version?: number }>(['new_party_operation', 'stop_party_operation'], ({ type, data }) => {
    pushedAbout(data?.id);
    if (!data?.id || !ledger.current.note(data.id, data.version)) return;
    update((current) => markProcessing(current, data.id, type === 'new_party_operation'));
  });

  usePushMessage<Room>(['updated_owner_party', 'updated_guest_party'], ({ type, data }) => {
    const room = roomsApi.roomIn(data);
    if (!room || !ledger.current.note(room.id, room.version)) return;
    const role: RoomRole = type === 'updated_owner_party' ? 'owner' : 'guest';
    pushedAbout(room.id);
    update((current) => upsertRoom(current, role, room));
    refreshPeers();
  });

  usePushMessage<{ id?: string; version?: number }>(['deleted_owner_party', 'deleted_guest_party'], ({ type, data }) => {
    if (!data?.id || !ledger.current.note(data.id, data.version, true)) return;
    pushedAbout(data.id);
    // The page may have removed the room already when its own DELETE answered; toast each deletion once.
    if (hasRoom(listsRef.current, data.id)) toast.success(type === 'deleted_owner_party' ? ROOM_DELETED : LEFT_ROOM);
    update((current) => removeRoom(current, data.id as string));
    refreshPeers();
  });

  usePushMessage<NoticeData>(['error', 'info'], ({ data }) => {
    pushedAbout(data?.party_id);
    if (data?.party_id) update((current) => markProcessing(current, data.party_id, false));
    onReset();
  });

  const create = useCallback(
    async (name: string, peer: string | null) => {
      const started = pushCount.current;
      try {
        const answer = await call(() => roomsApi.createRoom(name.trim(), peer ?? ''));
        toast.success('Sala creada correctamente');
        refreshAfter(answer, 'owner', started);
        return true;
      } catch (error) {
        // A refusal inside a 2xx answer and a failed call get the spec's two different texts.
        const fallback = error instanceof RefusedAnswer ? 'Hubo un error al crear la sala' : 'Error al crear la sala';
        toast.error(failureText(error, fallback));
        return false;
      }
    },
    [refreshAfter],
  );

  /** Join and add-peer share the call; they differ in the room list that gets the answer and the failure text. */
  const joinAs = useCallback(
    async (role: RoomRole, name: string, password: string, peer: string, failure: string) => {
      const started = pushCount.current;
      try {
        const answer = await call(() => roomsApi.joinRoom(name.trim(), password, peer));
        toast.success(answer.message || DONE);
        refreshAfter(answer, role, started);
        return true;
      } catch (error) {
        toast.error(failureText(error, failure));
        return false;
      }
    },
    [refreshAfter],
  );

  const join = useCallback(
    (name: string, password: string, peer: string) => joinAs('guest', name, password, peer, 'Error al unirse a la sala'),
    [joinAs],
  );

  const addPeer = useCallback(
    (room: Room, peer: string) =>
      joinAs('owner', room.name, room.password ?? '', peer, 'Hubo un error al realizar la operación.'),
    [joinAs],
  );

  const regeneratePassword = useCallback(
    async (room: Room) => {
      try {
        const answer = await call(() => roomsApi.regenerateRoomPassword(room.id));
        const password = roomsApi.passwordIn(answer) ?? roomsApi.roomIn(answer)?.password ?? null;
        if (password !== null) update((current) => upsertRoom(current, 'owner', { ...room, password }));
        toast.success('Contraseña regenerada con éxito');
      } catch (error) {
        toast.error(failureText(error, 'Error al regenerar la contraseña'));
      }
    },
    [update],
  );

  const changeMembers = useCallback(
    async (request: () => Promise<RoomAnswer>, failure: string) => {
      const started = pushCount.current;
      try {
        const answer = await call(request);
        toast.success(answer.message || DONE);
        refreshAfter(answer, null, started);
      } catch (error) {
        toast.error(failureText(error, failure));
      }
    },
    [refreshAfter],
  );

  const leave = useCallback(
    (room: Room, peer: string) => changeMembers(() => roomsApi.leaveRoom(room.id, peer), 'Error al abandonar la sala'),
    [changeMembers],
  );

  const removePeer = useCallback(
    (room: Room, peer: string) =>
      changeMembers(() => roomsApi.removeRoomPeer(room.id, peer), 'Error al remover el peer de la sala'),
    [changeMembers],
  );

  const deleteRoom = useCallback(
    async (room: Room) => {
      try {
        await call(() => roomsApi.deleteRoom(room.id));
        if (hasRoom(listsRef.current, room.id)) toast.success(ROOM_DELETED);
        update((current) => removeRoom(current, room.id));
        refreshPeers();
      } catch (error) {
        toast.error(failureText(error, 'Hubo un error al eliminar la sala'));
      }
    },
    [refreshPeers, update],
  );

  /**
   * A quiet refetch of the rooms and the customer's peers: on every socket (re)open, and while a room change runs
   * without pushes (the lists stay on screen; a failure keeps them).
   */
  const refetch = useCallback(async () => {
    if (!ready.current) return;
    try {
      reconcile(await roomsApi.fetchRooms());
    } catch {
      return;
    }
    refreshPeers();
  }, [reconcile, refreshPeers]);
  useSocketOpened(() => void refetch());
  const anyProcessing = [...lists.owned_partys, ...lists.guest_partys].some((room) => room.processing);
  useBusyPolling(anyProcessing, ROOM_PUSH_TYPES, refetch);

  const reload = useCallback(() => setAttempt((n) => n + 1), []);
  const freePeers = ownPeers.filter((peer) => peer.party === null);

  return {
    load,
    lists,
    ownPeers,
    freePeers,
    reload,
    create,
    join,
    addPeer,
    regeneratePassword,
    leave,
    removePeer,
    deleteRoom,
  };
}
