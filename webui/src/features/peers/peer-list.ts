/** Pure updates of the peer list for API answers and push messages. */
import type { Peer } from './api/peers';

/** Replaces the peer with the same id (keeping fields the update lacks) or appends it. */
export function mergePeer(peers: readonly Peer[], update: Peer): Peer[] {
  const index = peers.findIndex((peer) => peer.id === update.id);
  if (index === -1) return [...peers, update];
  return peers.map((peer, i) => (i === index ? { ...peer, ...update } : peer));
}

export function removePeer(peers: readonly Peer[], id: string): Peer[] {
  return peers.filter((peer) => peer.id !== id);
}

/** Marks peers as no longer processing: one peer, or every peer when `id` is undefined. */
export function clearProcessing(peers: readonly Peer[], id?: string): Peer[] {
  return peers.map((peer) => (peer.processing && (id === undefined || peer.id === id) ? { ...peer, processing: false } : peer));
}
