/** Loading the rooms screen: the first load (with its error and retry), and quiet refetches that keep what is shown. */
import { useCallback, useEffect, useRef, useState } from 'react';
import { errorMessage } from '../../../lib/api';
import { useSocketOpened } from '../../realtime';
import { useBusyPolling } from '../../realtime/use-busy-polling';
import * as roomsApi from '../api/rooms';
import type { RoomState } from './room-state';

export type LoadState = { status: 'loading' } | { status: 'error'; message: string } | { status: 'ready' };

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

export function useRoomQueries({ lists, reconcile, setOwnPeers, ledger }: RoomState) {
  const [load, setLoad] = useState<LoadState>({ status: 'loading' });
  const [attempt, setAttempt] = useState(0);
  const ready = useRef(false);

  useEffect(() => {
    const controller = new AbortController();
    setLoad({ status: 'loading' });
    ready.current = false;
    const sent = ledger.mark();
    Promise.all([roomsApi.fetchRooms(controller.signal), roomsApi.fetchOwnPeers(controller.signal)])
      .then(([rooms, peers]) => {
        reconcile(rooms, sent);
        setOwnPeers(peers);
        setLoad({ status: 'ready' });
        ready.current = true;
      })
      .catch((error: unknown) => {
        if (controller.signal.aborted) return;
        setLoad({ status: 'error', message: errorMessage(error, 'Hubo un error al cargar los datos de la sección') });
      });
    return () => controller.abort();
  }, [attempt, ledger, reconcile, setOwnPeers]);

  /** A quiet reload of the customer's peers after a change: a failure keeps what is shown. */
  const refreshPeers = useCallback(() => {
    roomsApi.fetchOwnPeers().then(setOwnPeers, () => undefined);
  }, [setOwnPeers]);

  /**
   * A quiet refetch of the rooms and the customer's peers: on every socket (re)open, and while a room change runs
   * without pushes (the lists stay on screen; a failure keeps them).
   */
  const refetch = useCallback(async () => {
    if (!ready.current) return;
    const sent = ledger.mark();
    try {
      reconcile(await roomsApi.fetchRooms(), sent);
    } catch {
      return;
    }
    refreshPeers();
  }, [ledger, reconcile, refreshPeers]);
  useSocketOpened(() => void refetch());
  const anyProcessing = [...lists.owned_partys, ...lists.guest_partys].some((room) => room.processing);
  useBusyPolling(anyProcessing, ROOM_PUSH_TYPES, refetch);

  const reload = useCallback(() => setAttempt((n) => n + 1), []);
  return { load, reload, refreshPeers };
}
