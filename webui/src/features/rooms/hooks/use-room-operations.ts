/** The rooms screen's changes: create, join, add a peer, regenerate the password, leave, remove a peer, delete. */
import { useCallback } from 'react';
import { errorMessage } from '../../../lib/api';
import { toast } from '../../../lib/toasts';
import * as roomsApi from '../api/rooms';
import type { Room, RoomAnswer } from '../api/rooms';
import { findRoom, removeRoom, upsertRoom, type RoomRole } from '../room-lists';
import type { RoomState } from './room-state';

const DONE = 'Operación realizada correctamente.';

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

export function useRoomOperations(
  { currentLists, update, ledger, pushMark, pushedSince }: RoomState,
  refreshPeers: () => void,
) {
  /**
   * Applies a change's answer quietly: the lists stay on screen, a failure keeps what is shown. Rooms are reloaded
   * only when an answer carried no room: a reload racing the push messages could bring back a stale processing mark.
   */
  const refreshAfter = useCallback(
    (answer: RoomAnswer, role: RoomRole | null, started: number) => {
      const room = roomsApi.roomIn(answer);
      if (room && (pushedSince(room.id, started) || !ledger.note(room.id, room.version))) {
        refreshPeers();
        return;
      }
      // A listed room keeps its list (an owner may use 'Unirse a una sala' on their own room); a new one goes to `role`.
      const known = room && (findRoom(currentLists(), room.id)?.role ?? role);
      if (room && known) update((current) => upsertRoom(current, known, room));
      else {
        roomsApi.fetchRooms().then(
          (rooms) => update(() => ({ owned_partys: rooms.owned_partys ?? [], guest_partys: rooms.guest_partys ?? [] })),
          () => undefined,
        );
      }
      refreshPeers();
    },
    [currentLists, ledger, pushedSince, refreshPeers, update],
  );

  const create = useCallback(
    async (name: string, peer: string | null) => {
      const started = pushMark();
      try {
        const answer = await call(() => roomsApi.createRoom(name.trim(), peer ?? ''));
        toast.success('Sala creada correctamente');
        refreshAfter(answer, 'owner', started);
        return true;
      } catch (error) {
        // A refusal inside a 2xx answer and a failed call get the contract's two different texts (docs/contract.md#fallback-texts).
        const fallback = error instanceof RefusedAnswer ? 'Hubo un error al crear la sala' : 'Error al crear la sala';
        toast.error(failureText(error, fallback));
        return false;
      }
    },
    [pushMark, refreshAfter],
  );

  /** Join and add-peer share the call; they differ in the room list that gets the answer and the failure text. */
  const joinAs = useCallback(
    async (role: RoomRole, name: string, password: string, peer: string, failure: string) => {
      const started = pushMark();
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
    [pushMark, refreshAfter],
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

  /** The owner's own password: the server checks it (8 to 64 characters); its 422 message is the answer. */
  const setPassword = useCallback(
    async (room: Room, password: string): Promise<string | null> => {
      try {
        const answer = await call(() => roomsApi.setRoomPassword(room.id, password));
        const chosen = roomsApi.passwordIn(answer) ?? password.trim();
        update((current) => upsertRoom(current, 'owner', { ...room, password: chosen }));
        toast.success(answer.message || 'Contraseña de la sala cambiada.');
        return null;
      } catch (error) {
        return failureText(error, 'Error al cambiar la contraseña de la sala');
      }
    },
    [update],
  );

  const changeMembers = useCallback(
    async (request: () => Promise<RoomAnswer>, failure: string) => {
      const started = pushMark();
      try {
        const answer = await call(request);
        toast.success(answer.message || DONE);
        refreshAfter(answer, null, started);
      } catch (error) {
        toast.error(failureText(error, failure));
      }
    },
    [pushMark, refreshAfter],
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
        const answer = await call(() => roomsApi.deleteRoom(room.id));
        // Always said here: the owner's own push about it carries no text (it may even arrive first).
        toast.success(answer.message || `Sala «${room.name}» eliminada.`);
        update((current) => removeRoom(current, room.id));
        refreshPeers();
      } catch (error) {
        toast.error(failureText(error, 'Hubo un error al eliminar la sala'));
      }
    },
    [refreshPeers, update],
  );

  return { create, join, addPeer, regeneratePassword, setPassword, leave, removePeer, deleteRoom };
}
