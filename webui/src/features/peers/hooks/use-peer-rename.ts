/** Renaming a peer (synchronous): the answer is merged into the list at once; the server's refusal is thrown to the
 * dialog, which shows it beside the field. */
import { useCallback } from 'react';
import * as peersApi from '../api/peers';
import type { Peer } from '../api/peers';
import { mergePeer } from '../peer-list';
import type { PeerState } from './peer-state';

export function usePeerRename({ setPeers, ledger }: Pick<PeerState, 'setPeers' | 'ledger'>) {
  return useCallback(
    async (peer: Peer, name: string) => {
      const updated = await peersApi.renamePeer(peer.id, name.trim());
      if (updated && ledger.note(updated.id, updated.version)) setPeers((list) => mergePeer(list, updated));
    },
    [ledger, setPeers],
  );
}
