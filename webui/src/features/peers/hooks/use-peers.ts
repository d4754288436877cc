/** The peers screen's state: the list, live stats, running operations, and what push messages do to them. */
import { useCallback, useEffect, useReducer, useRef, useState } from 'react';
import { errorMessage } from '../../../lib/api';
import { toast } from '../../../lib/toasts';
import { usePushMessage, type NoticeData } from '../../realtime';
import * as peersApi from '../api/peers';
import type { Peer, PeerStats } from '../api/peers';
import { clearProcessing, mergePeer, removePeer } from '../peer-list';

export type LoadState = { status: 'loading' } | { status: 'error'; message: string } | { status: 'ready' };

type AsyncOperation = 'regenerate' | 'change_server';

/** An asynchronous operation started from this page; `toastId` once its loading toast shows. */
interface PendingOperation {
  operation: AsyncOperation;
  peerName: string;
  toastId: string | null;
}

const INACTIVE_PEER = 'Peer no activo';

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

export interface PeersModel {
  load: LoadState;
  peers: Peer[];
  stats: Record<string, PeerStats>;
  reload: () => void;
  /** A peer's action controls are disabled while the server or this page says an operation runs on it. */
  isBusy: (peer: Peer) => boolean;
  regenerateMirrorLink: (peer: Peer) => Promise<void>;
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

  useEffect(() => {
    const controller = new AbortController();
    setLoad({ status: 'loading' });
    peersApi
      .fetchPeers(controller.signal)
      .then((list) => {
        setPeers(list);
        setLoad({ status: 'ready' });
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
    if (!data?.id) return;
    setPeers((list) => mergePeer(list, data));
    if (type !== 'updated_peer') {
      if (message) toast.success(message); // e.g. 'Peer movil creado correctamente.' once the node has it
      return;
    }
    const operation = finish(data.id);
    if (operation) toast.success(message || DONE_TEXT[operation.operation](operation.peerName));
    else if (message) toast.success(message);
  });

  usePushMessage<{ id: string }>('deleted_peer', ({ data }) => {
    if (!data?.id) return;
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
      const entry: PendingOperation = { operation, peerName: peer.name, toastId: null };
      // Registered before the call: the push with the outcome may arrive before the HTTP answer does.
      pending.current.set(peer.id, entry);
      rerender();
      try {
        const answer = await call();
        if (pending.current.get(peer.id) !== entry) return true; // the outcome already arrived by push
        const accepted = peersApi.peerIn(answer);
        if (accepted) setPeers((list) => mergePeer(list, accepted));
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
      if (updated) setPeers((list) => mergePeer(list, updated));
      toast.success('Mirror Link regenerado correctamente.');
    } catch (error) {
      toast.error(errorMessage(error, `Hubo un error al intentar regenerar el mirror link del peer ${peer.name}`));
    }
  }, []);

  const isBusy = useCallback((peer: Peer) => Boolean(peer.processing) || pending.current.has(peer.id), []);
  const reload = useCallback(() => setAttempt((n) => n + 1), []);

  return { load, peers, stats, reload, isBusy, regenerateMirrorLink, regenerate, changeServer };
}
