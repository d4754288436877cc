/** What the peers screen does with push messages: peers created, changed or deleted, notices, and live stats. */
import { useState } from 'react';
import { toast } from '../../../lib/toasts';
import { usePushMessage } from '../../realtime';
import type { PeerStats } from '../api/peers';
import { clearProcessing, mergePeer, removePeer } from '../peer-list';
import type { PeerState } from './peer-state';

/**
 * Returns the live stats by peer id. `onReset` runs when an `error` or `info` push arrives: the page closes its
 * dialogs then (docs/contract.md#push-messages), while the operation it concerns ends here.
 */
export function usePeerPushes(
  { setPeers, ledger, pending, finish }: PeerState,
  onReset: () => void,
): Record<string, PeerStats> {
  const [stats, setStats] = useState<Record<string, PeerStats>>({});

  usePushMessage(['created_peer', 'updated_peer'], ({ type, data, message }) => {
    if (!data?.id || !ledger.note(data.id, data.version)) return;
    setPeers((list) => mergePeer(list, data));
    if (type !== 'updated_peer') {
      if (message) toast.success(message); // e.g. 'Peer movil creado correctamente.' once the node has it
      return;
    }
    // The server's words: the push's message is the outcome the peer now keeps as `last_outcome`.
    const operation = finish(data.id);
    const outcome = data.last_outcome;
    if (message) toast.success(message);
    else if (operation && outcome) {
      if (outcome.ok) toast.success(outcome.message);
      else toast.error(outcome.message);
    }
  });

  usePushMessage('deleted_peer', ({ data }) => {
    if (!data?.id || !ledger.note(data.id, data.version, true)) return;
    finish(data.id);
    setPeers((list) => removePeer(list, data.id));
  });

  usePushMessage(['error', 'info'], ({ data }) => {
    const peerId = data?.peer_id;
    if (peerId) {
      finish(peerId);
      setPeers((list) => clearProcessing(list, peerId));
    } else {
      for (const id of [...pending.keys()]) finish(id);
    }
    onReset();
  });

  usePushMessage('peer_stats', ({ data }) => {
    const update = data?.peers;
    if (!Array.isArray(update)) return;
    setStats((current) => {
      const next = { ...current };
      for (const entry of update) if (entry && typeof entry.id === 'string') next[entry.id] = entry;
      return next;
    });
  });

  return stats;
}
