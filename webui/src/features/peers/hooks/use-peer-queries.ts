/**
 * Loading the peers screen: the first load (with its error and retry), and quiet refetches that keep what is shown
 * and end this page's operations whose outcome the list tells.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { errorMessage } from '../../../lib/api';
import { toast } from '../../../lib/toasts';
import { reconcileList } from '../../../lib/versions';
import { useSocketOpened } from '../../realtime';
import { useBusyPolling } from '../../realtime/use-busy-polling';
import * as peersApi from '../api/peers';
import type { Peer } from '../api/peers';
import type { PeerState } from './peer-state';

export type LoadState = { status: 'loading' } | { status: 'error'; message: string } | { status: 'ready' };

/** Pushes that show the socket delivers this page's news; while they come, a busy page does not poll. */
const PEER_PUSH_TYPES = ['created_peer', 'updated_peer', 'deleted_peer', 'peer_stats', 'error', 'info'] as const;

export function usePeerQueries({ peers, setPeers, peersRef, ledger, pending, finish }: PeerState) {
  const [load, setLoad] = useState<LoadState>({ status: 'loading' });
  const [attempt, setAttempt] = useState(0);
  const ready = useRef(false);

  useEffect(() => {
    const controller = new AbortController();
    setLoad({ status: 'loading' });
    ready.current = false;
    const sent = ledger.mark();
    peersApi
      .fetchPeers(controller.signal)
      .then((list) => {
        setPeers((shown) => reconcileList(shown, list, ledger, sent));
        setLoad({ status: 'ready' });
        ready.current = true;
      })
      .catch((error: unknown) => {
        if (!controller.signal.aborted) {
          setLoad({ status: 'error', message: errorMessage(error, 'Hubo un error al cargar los datos de los peers') });
        }
      });
    return () => controller.abort();
  }, [attempt, ledger, setPeers]);

  /**
   * A quiet refetch (the list stays on screen; a failure keeps it): on every socket (re)open, and while an operation
   * runs without pushes. An operation of this page whose peer the list shows finished ends here, with the
   * outcome the list can tell.
   */
  const refetch = useCallback(async () => {
    if (!ready.current) return;
    let list: Peer[];
    const sent = ledger.mark();
    try {
      list = await peersApi.fetchPeers();
    } catch {
      return;
    }
    const merged = reconcileList(peersRef.current, list, ledger, sent);
    peersRef.current = merged;
    setPeers(merged);
    for (const [id, operation] of [...pending]) {
      if (operation.toastId === null) continue; // its call has not answered yet
      const peer = merged.find((p) => p.id === id);
      // Only a read newer than the call's answer can say the operation ended (docs/api.md, versions).
      if (peer && (peer.processing || peer.version === undefined || peer.version <= operation.acceptedVersion)) continue;
      finish(id);
      // Its push was lost: the peer keeps how it ended, in the words the push had (docs/api.md, "Peer operations").
      const outcome = peer?.last_outcome;
      if (!outcome) continue;
      if (outcome.ok) toast.success(outcome.message);
      else toast.error(outcome.message);
    }
  }, [finish, ledger, peersRef, pending, setPeers]);

  useSocketOpened(() => void refetch());
  const anyBusy = pending.size > 0 || peers.some((peer) => peer.processing);
  useBusyPolling(anyBusy, PEER_PUSH_TYPES, refetch);

  const reload = useCallback(() => setAttempt((n) => n + 1), []);
  return { load, reload };
}
