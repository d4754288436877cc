/** The peer calls of spec section 7 (`/api/client/accounts/peers`, `/api/client/network/{peer id}`) and their shapes. */
import { api } from '../../../lib/api';

export interface PeerServer {
  id?: string;
  name?: string;
  address: string;
  active: boolean;
  ubication: string;
  allow_partys: boolean;
}

export interface PlanHistoryEntry {
  plan_name: string;
  plan_price: string | number;
  created: string;
}

export interface Peer {
  id: string;
  name: string;
  active: boolean;
  created: string;
  expiration_date: string | null;
  manual_payment: boolean;
  plans_history: PlanHistoryEntry[];
  server: PeerServer | null;
  mirror_link: string;
  party: { id: string; name: string } | null;
  address?: string;
  /** An asynchronous operation (regenerate, change server) is running on the node. */
  processing?: boolean;
}

/** A server the peer may move to. */
export interface ServerOption {
  id: string;
  address: string;
  name: string;
  active: boolean;
  ubication: string;
  allow_partys?: boolean;
}

/** One peer's live counters from a `peer_stats` push (docs/api.md): handshake in unix seconds, 0 = never. */
export interface PeerStats {
  id: string;
  latest_handshake: number;
  rx_bytes: number;
  tx_bytes: number;
}

/** Answer of the asynchronous operations: 202 with the peer now `processing`. */
interface AcceptedOperation {
  success?: boolean;
  message?: string;
  data?: Peer;
}

const PEERS_PATH = '/api/client/accounts/peers';

const peerPath = (id: string) => `${PEERS_PATH}/${encodeURIComponent(id)}`;

export function fetchPeers(signal?: AbortSignal): Promise<Peer[]> {
  return api.get<Peer[]>(PEERS_PATH, { signal });
}

/** Synchronous: answers with the peer and its new mirror link (either bare or wrapped in `data`). */
export async function regenerateMirrorLink(id: string): Promise<{ peer: Peer | null; message?: string }> {
  const answer = await api.patch<(Peer & { message?: string }) | AcceptedOperation>(peerPath(id), {
    operation: 'regenerate_token',
  });
  return { peer: peerIn(answer), message: answer?.message };
}

/** Asynchronous: the outcome arrives later as `updated_peer` or `error`. */
export function regeneratePeer(id: string): Promise<AcceptedOperation> {
  return api.patch<AcceptedOperation>(peerPath(id), { operation: 'regenerate' });
}

/** Asynchronous, like `regeneratePeer`. */
export function changeServer(id: string, server: string): Promise<AcceptedOperation> {
  return api.patch<AcceptedOperation>(peerPath(id), { operation: 'change_server', server });
}

/** The wg-quick file, under the API client's refresh-and-retry rule. */
export function downloadPeerConfig(id: string): Promise<Blob> {
  return api.download(peerPath(id));
}

export function fetchAvailableServers(peerId: string, signal?: AbortSignal): Promise<ServerOption[]> {
  return api.get<ServerOption[]>(`/api/client/network/${encodeURIComponent(peerId)}`, { signal });
}

/** The peer inside an answer that is either the peer itself or `{data: peer}`. */
export function peerIn(answer: unknown): Peer | null {
  if (!answer || typeof answer !== 'object') return null;
  const { data } = answer as { data?: unknown };
  const candidate = data && typeof data === 'object' ? data : answer;
  return typeof (candidate as { id?: unknown }).id === 'string' ? (candidate as Peer) : null;
}
