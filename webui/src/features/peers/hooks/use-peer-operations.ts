/**
 * The peers screen's changes and their busy state: regenerating a peer and changing its server (asynchronous: the
 * outcome comes by push or poll), and the mirror link's changes (synchronous).
 */
import { useCallback, useEffect } from 'react';
import { errorMessage } from '../../../lib/api';
import { toast } from '../../../lib/toasts';
import * as peersApi from '../api/peers';
import type { Peer } from '../api/peers';
import { mergePeer } from '../peer-list';
import { RUNNING_FALLBACK, START_FAILED, type AsyncOperation, type PeerState, type PendingOperation } from './peer-state';

export const INACTIVE_PEER = 'Peer no activo';

/** Turn the binding on or off, free the bound device, or confirm the code a device shows (docs/api.md). */
export type MirrorBindingChange = 'on' | 'off' | 'release' | { code: string };

export function usePeerOperations({ setPeers, ledger, pending, rerender, finish }: PeerState) {
  // Loading toasts must not outlive the page.
  useEffect(() => {
    return () => {
      for (const operation of pending.values()) if (operation.toastId) toast.dismiss(operation.toastId);
      pending.clear();
    };
  }, [pending]);

  const startAsync = useCallback(
    async (peer: Peer, operation: AsyncOperation, call: () => ReturnType<typeof peersApi.regeneratePeer>) => {
      if (!peer.active) {
        toast.error(INACTIVE_PEER);
        return false;
      }
      const entry: PendingOperation = { operation, toastId: null, acceptedVersion: Infinity };
      // Registered before the call: the push with the outcome may arrive before the HTTP answer does.
      pending.set(peer.id, entry);
      rerender();
      try {
        const answer = await call();
        if (pending.get(peer.id) !== entry) return true; // the outcome already arrived by push
        const accepted = peersApi.peerIn(answer);
        entry.acceptedVersion = accepted?.version ?? Infinity;
        if (accepted && ledger.note(accepted.id, accepted.version)) setPeers((list) => mergePeer(list, accepted));
        entry.toastId = toast.loading(answer?.message || accepted?.operation?.message || RUNNING_FALLBACK);
        return true;
      } catch (error) {
        if (pending.get(peer.id) === entry) finish(peer.id);
        toast.error(errorMessage(error, START_FAILED[operation](peer.name)));
        return false;
      }
    },
    [finish, ledger, pending, rerender, setPeers],
  );

  const regenerate = useCallback(
    (peer: Peer) => startAsync(peer, 'regenerate', () => peersApi.regeneratePeer(peer.id)),
    [startAsync],
  );

  const changeServer = useCallback(
    (peer: Peer, serverId: string) =>
      startAsync(peer, 'change_server', () => peersApi.changeServer(peer.id, serverId)),
    [startAsync],
  );

  const regenerateMirrorLink = useCallback(
    async (peer: Peer) => {
      if (!peer.active) {
        toast.error(INACTIVE_PEER);
        return;
      }
      try {
        const { peer: updated } = await peersApi.regenerateMirrorLink(peer.id);
        if (updated && ledger.note(updated.id, updated.version)) setPeers((list) => mergePeer(list, updated));
        toast.success('Mirror Link regenerado correctamente.');
      } catch (error) {
        toast.error(errorMessage(error, `Hubo un error al intentar regenerar el mirror link del peer ${peer.name}`));
      }
    },
    [ledger, setPeers],
  );

  /** Pause or resume the peer (synchronous): the answer is merged at once and its message shown. */
  const setPaused = useCallback(
    async (peer: Peer, paused: boolean) => {
      try {
        const { peer: updated, message } = await peersApi.setPeerPaused(peer.id, paused);
        if (updated && ledger.note(updated.id, updated.version)) setPeers((list) => mergePeer(list, updated));
        if (message) toast.success(message);
      } catch (error) {
        const doing = paused ? 'pausar' : 'reanudar';
        toast.error(errorMessage(error, `Hubo un error al intentar ${doing} el peer ${peer.name}`));
      }
    },
    [ledger, setPeers],
  );

  /** The mirror link's device binding: on/off, or free the bound device (docs/api.md, "Mirror links"). */
  const bindMirror = useCallback(
    async (peer: Peer, change: MirrorBindingChange) => {
      try {
        const { peer: updated, message } =
          typeof change === 'object'
            ? await peersApi.confirmMirrorDevice(peer.id, change.code)
            : change === 'release'
              ? await peersApi.releaseMirrorDevice(peer.id)
              : await peersApi.setMirrorBinding(peer.id, change === 'on');
        if (updated && ledger.note(updated.id, updated.version)) setPeers((list) => mergePeer(list, updated));
        if (message) toast.success(message);
      } catch (error) {
        toast.error(errorMessage(error, `Hubo un error al cambiar la vinculación del mirror link del peer ${peer.name}`));
      }
    },
    [ledger, setPeers],
  );

  /** A peer's action controls are disabled while the server or this page says an operation runs on it; the
   * operation's own text says why. */
  const isBusy = useCallback((peer: Peer) => Boolean(peer.processing) || pending.has(peer.id), [pending]);

  return { isBusy, regenerate, changeServer, regenerateMirrorLink, bindMirror, setPaused };
}
