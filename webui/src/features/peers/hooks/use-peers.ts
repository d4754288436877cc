/**
 * The peers screen's model: its state (peer-state.ts), loading it (use-peer-queries.ts), what push messages do to it
 * (use-peer-pushes.ts) and the customer's changes with their busy state (use-peer-operations.ts).
 */
import type { Peer, PeerStats } from '../api/peers';
import { usePeerState } from './peer-state';
import { usePeerOperations, type MirrorBindingChange } from './use-peer-operations';
import { usePeerPushes } from './use-peer-pushes';
import { usePeerRename } from './use-peer-rename';
import { usePeerQueries, type LoadState } from './use-peer-queries';

export { INACTIVE_PEER, type MirrorBindingChange } from './use-peer-operations';
export type { LoadState } from './use-peer-queries';

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
  /** Pause (true) or resume (false) the peer: its node drops or restores its key (docs/api.md, "Pause and resume"). */
  setPaused: (peer: Peer, paused: boolean) => Promise<void>;
  regenerate: (peer: Peer) => Promise<boolean>;
  changeServer: (peer: Peer, serverId: string) => Promise<boolean>;
  /** Throws the server's refusal (ApiError) for the rename dialog to show. */
  rename: (peer: Peer, name: string) => Promise<void>;
}

/**
 * `onReset` runs when an `error` or `info` push arrives: the page closes its dialogs then (docs/contract.md#push-messages), while
 * this hook clears the busy state.
 */
export function usePeers({ onReset }: { onReset: () => void }): PeersModel {
  const state = usePeerState();
  const { load, reload } = usePeerQueries(state);
  const stats = usePeerPushes(state, onReset);
  const operations = usePeerOperations(state);
  const rename = usePeerRename(state);
  return { load, peers: state.peers, stats, reload, ...operations, rename };
}
