/** The state the peers screen's hooks share: the list, the versions seen, and the operations this page started. */
import { useCallback, useReducer, useRef, useState } from 'react';
import { toast } from '../../../lib/toasts';
import { VersionLedger } from '../../../lib/versions';
import type { Peer } from '../api/peers';

export type AsyncOperation = 'regenerate' | 'change_server';

/** An asynchronous operation started from this page; `toastId` once its loading toast shows. */
export interface PendingOperation {
  operation: AsyncOperation;
  peerName: string;
  /** The peer's server when the operation started: a poll tells a finished move by its new server. */
  serverId: string | null;
  toastId: string | null;
  /** The version of the peer in the call's answer. */
  acceptedVersion: number;
}

export const LOADING_TEXT: Record<AsyncOperation, (name: string) => string> = {
  regenerate: (name) => `Regenerando el peer ${name}...`,
  change_server: (name) => `Cambiando el servidor del peer ${name}...`,
};

export const DONE_TEXT: Record<AsyncOperation, (name: string) => string> = {
  regenerate: (name) => `Peer ${name} regenerado correctamente. Descargue de nuevo la configuración.`,
  change_server: (name) => `Servidor del peer ${name} cambiado correctamente. Descargue de nuevo la configuración.`,
};

export const ERROR_TEXT: Record<AsyncOperation, (name: string) => string> = {
  regenerate: (name) => `Hubo un error al intentar regenerar el peer ${name}`,
  change_server: () => 'Hubo un error al intentar cambiar el servidor del peer.',
};

export function usePeerState() {
  const [peers, setPeers] = useState<Peer[]>([]);
  // Refetches merge into the list as it is now, not as of the last render.
  const peersRef = useRef<Peer[]>([]);
  peersRef.current = peers;
  // The newest version seen of each peer: answers and refetches older than a push lose (docs/api.md, versions).
  const [ledger] = useState(() => new VersionLedger());
  // Read by push handlers and by answers racing them, so it lives in a ref; `rerender` shows its changes.
  const pending = useRef(new Map<string, PendingOperation>());
  const [, rerender] = useReducer((n: number) => n + 1, 0);

  /** Ends an operation of this page; returns it so the caller can word the outcome. */
  const finish = useCallback((peerId: string): PendingOperation | undefined => {
    const operation = pending.current.get(peerId);
    if (!operation) return undefined;
    pending.current.delete(peerId);
    if (operation.toastId) toast.dismiss(operation.toastId);
    rerender();
    return operation;
  }, []);

  return { peers, setPeers, peersRef, ledger, pending: pending.current, rerender, finish };
}

export type PeerState = ReturnType<typeof usePeerState>;
