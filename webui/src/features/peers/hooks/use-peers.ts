/** The peers screen's state: the list, live stats, running operations, and what push messages do to them. */
import { useCallback, useEffect, useReducer, useRef, useState } from 'react';
import { errorMessage } from '../../../lib/api';
import { toast } from '../../../lib/toasts';
import { VersionLedger, reconcileList } from '../../../lib/versions';
import { usePushMessage, useSocketOpened, type NoticeData } from '../../realtime';
import { useBusyPolling } from '../../realtime/use-busy-polling';
import * as peersApi from '../api/peers';
import type { Peer, PeerStats } from '../api/peers';
import { clearProcessing, mergePeer, removePeer } from '../peer-list';

export type LoadState = { status: 'loading' } | { status: 'error'; message: string } | { status: 'ready' };

type AsyncOperation = 'regenerate' | 'change_server';

/** An asynchronous operation started from this page; `toastId` once its loading toast shows. */
interface PendingOperation {
  operation: AsyncOperation;
  peerName: string;
  /** The peer's server when the operation started: a poll tells a finished move by its new server. */
  serverId: string | null;
  toastId: string | null;
  /** The version of the peer in the call's answer. */
  acceptedVersion: number;
}

export const INACTIVE_PEER = 'Peer no activo';
/** Pushes that show the socket delivers this page's news; while they come, a busy page does not poll. */
const PEER_PUSH_TYPES = ['created_peer', 'updated_peer', 'deleted_peer', 'peer_stats', 'error', 'info'] as const;

const LOADING_TEXT: Record<AsyncOperation, (name: string) => string> = {
  regenerate: (name) => `Regenerando el peer ${name}...`,
  change_server: (name) => `Cambiando el servidor del peer ${name}...`,
};

const DONE_TEXT: Record<AsyncOperation, (name: string) => string> = {
  regenerate: (name) => `Peer ${name} regenerado correctamente. Descargue de nuevo la configuración.`,
  change_server: (name) => `Servidor del peer ${name} cambiado correctamente. Descargue de nuevo la configuración.`,
};

const ERROR_TEXT: Record<AsyncOperation, (name: string) => string> = {
  regenerate: (name) => `Hubo un error al intentar regenerar el peer ${name}`,
  change_server: () => 'Hubo un error al intentar cambiar el servidor del peer.',
};

/**
 * A regeneration seen finished by a poll (its push was lost): the list does not tell success from failure, so the
 * text says what is true either way (docs/webui.md, live socket).
 */
const REGENERATE_ENDED = (name: string) =>
  `La operación sobre el peer ${name} terminó. Descargue de nuevo la configuración para usar la más reciente.`;

export type MirrorBindingChange = 'on' | 'off' | 'release';

export interface PeersModel {
  load: LoadState;
  peers: Peer[];
  stats: Record<string, PeerStats>;
  reload: () => void;
  /** A peer's action controls are disabled while the server or this page says an operation runs on it. */
  isBusy: (peer: Peer) => boolean;
  regenerateMirrorLink: (peer: Peer) => Promise<void>;
  /** The mirror link's device binding: on/off, or free the bound device (docs/api.md, "Mirror links"). */
  bindMirror: (peer: Peer, change: MirrorBindingChange) => Promise<void>;
  regenerate: (peer: Peer) => Promise<boolean>;
  changeServer: (peer: Peer, serverId: string) => Promise<boolean>;
}

/**
 * `onReset` runs when an `error` or `info` push arrives: the page closes its dialogs then (spec section 4), while
 * this hook clears the busy state.
 */
export function usePeers({ onReset }: { onReset: () => void }): PeersModel {
  const [load, setLoad] = useState<LoadState>({ status: 'loading' });
  const [peers, setPeers] = useState<Peer[]>([]);
  const [stats, setStats] = useState<Record<string, PeerStats>>({});
  const [attempt, setAttempt] = useState(0);
  // Read by push handlers and by answers racing them, so it lives in a ref; `rerender` shows its changes.
  const pending = useRef(new Map<string, PendingOperation>());
  const [, rerender] = useReducer((n: number) => n + 1, 0);
  // The newest version seen of each peer: answers and refetches older than a push lose (docs/api.md, versions).
  const ledger = useRef(new VersionLedger());
  const peersRef = useRef<Peer[]>([]);
  peersRef.current = peers;
  const ready = useRef(false);

  useEffect(() => {
    const controller = new AbortController();
    setLoad({ status: 'loading' });
    ready.current = false;
    peersApi
      .fetchPeers(controller.signal)
      .then((list) => {
        setPeers((shown) => reconcileList(shown, list, ledger.current));
        setLoad({ status: 'ready' });
        ready.current = true;
      })
      .catch((error: unknown) => {
        if (!controller.signal.aborted) {
          setLoad({ status: 'error', message: errorMessage(error, 'Hubo un error al cargar los datos de los peers') });
        }
      });
    return () => controller.abort();
  }, [attempt]);

  // Loading toasts must not outlive the page.
  useEffect(() => {
    const operations = pending.current;
    return () => {
      for (const operation of operations.values()) if (operation.toastId) toast.dismiss(operation.toastId);
      operations.clear();
    };
  }, []);

  /** Ends an operation of this page; returns it so the caller can word the outcome. */
  const finish = useCallback((peerId: string): PendingOperation | undefined => {
    const operation = pending.current.get(peerId);
    if (!operation) return undefined;
    pending.current.delete(peerId);
    if (operation.toastId) toast.dismiss(operation.toastId);
    rerender();
    return operation;
  }, []);

  usePushMessage<Peer>(['created_peer', 'updated_peer'], ({ type, data, message }) => {
    if (!data?.id || !ledger.current.note(data.id, data.version)) return;
    setPeers((list) => mergePeer(list, data));
    if (type !== 'updated_peer') {
      if (message) toast.success(message); // e.g. 'Peer movil creado correctamente.' once the node has it
      return;
    }
    const operation = finish(data.id);
    if (operation) toast.success(message || DONE_TEXT[operation.operation](operation.peerName));
    else if (message) toast.success(message);
  });

  usePushMessage<{ id: string; version?: number }>('deleted_peer', ({ data }) => {
    if (!data?.id || !ledger.current.note(data.id, data.version, true)) return;
    finish(data.id);
    setPeers((list) => removePeer(list, data.id));
  });

  usePushMessage<NoticeData>(['error', 'info'], ({ data }) => {
    const peerId = data?.peer_id;
    if (peerId) {
      finish(peerId);
      setPeers((list) => clearProcessing(list, peerId));
    } else {
      for (const id of [...pending.current.keys()]) finish(id);
    }
    onReset();
  });

  usePushMessage<{ peers?: PeerStats[] }>('peer_stats', ({ data }) => {
    const update = data?.peers;
    if (!Array.isArray(update)) return;
    setStats((current) => {
      const next = { ...current };
      for (const entry of update) if (entry && typeof entry.id === 'string') next[entry.id] = entry;
      return next;
    });
  });

  const startAsync = useCallback(
    async (peer: Peer, operation: AsyncOperation, call: () => ReturnType<typeof peersApi.regeneratePeer>) => {
      if (!peer.active) {
        toast.error(INACTIVE_PEER);
        return false;
      }
      const entry: PendingOperation = { operation, peerName: peer.name, serverId: peer.server?.id ?? null, toastId: null, acceptedVersion: Infinity };
      // Registered before the call: the push with the outcome may arrive before the HTTP answer does.
      pending.current.set(peer.id, entry);
      rerender();
      try {
        const answer = await call();
        if (pending.current.get(peer.id) !== entry) return true; // the outcome already arrived by push
        const accepted = peersApi.peerIn(answer);
        entry.acceptedVersion = accepted?.version ?? Infinity;
        if (accepted && ledger.current.note(accepted.id, accepted.version)) setPeers((list) => mergePeer(list, accepted));
        entry.toastId = toast.loading(answer?.message || LOADING_TEXT[operation](peer.name));
        return true;
      } catch (error) {
        if (pending.current.get(peer.id) === entry) finish(peer.id);
        toast.error(errorMessage(error, ERROR_TEXT[operation](peer.name)));
        return false;
      }
    },
    [finish],
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

  const regenerateMirrorLink = useCallback(async (peer: Peer) => {
    if (!peer.active) {
      toast.error(INACTIVE_PEER);
      return;
    }
    try {
      const { peer: updated } = await peersApi.regenerateMirrorLink(peer.id);
      if (updated && ledger.current.note(updated.id, updated.version)) setPeers((list) => mergePeer(list, updated));
      toast.success('Mirror Link regenerado correctamente.');
    } catch (error) {
      toast.error(errorMessage(error, `Hubo un error al intentar regenerar el mirror link del peer ${peer.name}`));
    }
  }, []);

  const bindMirror = useCallback(async (peer: Peer, change: MirrorBindingChange) => {
    try {
      const { peer: updated, message } =
        change === 'release' ? await peersApi.releaseMirrorDevice(peer.id) : await peersApi.setMirrorBinding(peer.id, change === 'on');
      if (updated && ledger.current.note(updated.id, updated.version)) setPeers((list) => mergePeer(list, updated));
      if (message) toast.success(message);
    } catch (error) {
      toast.error(errorMessage(error, `Hubo un error al cambiar la vinculación del mirror link del peer ${peer.name}`));
    }
  }, []);

  /**
   * A quiet refetch (the list stays on screen; a failure keeps it): on every socket (re)open, and while an operation
   * runs without pushes. An operation of this page whose peer the list shows finished ends here, with the
   * outcome the list can tell.
   */
  const refetch = useCallback(async () => {
    if (!ready.current) return;
    let list: Peer[];
    try {
      list = await peersApi.fetchPeers();
    } catch {
      return;
    }
    const merged = reconcileList(peersRef.current, list, ledger.current);
    peersRef.current = merged;
    setPeers(merged);
    for (const [id, operation] of [...pending.current]) {
      if (operation.toastId === null) continue; // its call has not answered yet
      const peer = merged.find((p) => p.id === id);
      // Only a read newer than the call's answer can say the operation ended (docs/api.md, versions).
      if (peer && (peer.processing || peer.version === undefined || peer.version <= operation.acceptedVersion)) continue;
      finish(id);
      if (!peer) continue;
      if (operation.operation === 'regenerate') toast.info(REGENERATE_ENDED(operation.peerName));
      else if ((peer.server?.id ?? null) !== operation.serverId) toast.success(DONE_TEXT.change_server(operation.peerName));
      else toast.error(ERROR_TEXT.change_server(operation.peerName));
    }
  }, [finish]);

  useSocketOpened(() => void refetch());
  const anyBusy = pending.current.size > 0 || peers.some((peer) => peer.processing);
  useBusyPolling(anyBusy, PEER_PUSH_TYPES, refetch);

  const isBusy = useCallback((peer: Peer) => Boolean(peer.processing) || pending.current.has(peer.id), []);
  const reload = useCallback(() => setAttempt((n) => n + 1), []);

  return { load, peers, stats, reload, isBusy, regenerateMirrorLink, bindMirror, regenerate, changeServer };
}
