/** The state the peers screen's hooks share: the list, the versions seen, and the operations this page started. */
import { useCallback, useReducer, useRef, useState } from 'react';
import { toast } from '../../../lib/toasts';
import { VersionLedger } from '../../../lib/versions';
import type { Peer } from '../api/peers';

export type AsyncOperation = 'regenerate' | 'change_server';

/**
 * An asynchronous operation started from this page; `toastId` once its loading toast shows. Its texts (while it
 * runs, how it ended) are the server's: the peer's `operation` and `last_outcome` (docs/api.md, "Peer operations").
 */
export interface PendingOperation {
  operation: AsyncOperation;
  toastId: string | null;
  /** The version of the peer in the call's answer. */
  acceptedVersion: number;
}

/** Only when the server gave no words (an answer cut short): says what is true whatever happened. */
export const RUNNING_FALLBACK = 'Operación en curso…';

/**
 * The contract's fallback texts for a call the server did not answer with a message (the network failed): the only
 * operation texts the client holds, since the server cannot word what never reached it (docs/contract.md).
 */
export const START_FAILED: Record<AsyncOperation, (name: string) => string> = {
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
