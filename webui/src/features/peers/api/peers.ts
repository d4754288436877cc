/** The peer calls of spec section 7 (`/api/client/accounts/peers`, `/api/client/network/{peer id}`) and their shapes. */
import { api } from '../../../lib/api';

export interface PeerServer {
  id?: string;
  name?: string;
  address: string;
  active: boolean;
  ubication: string;
  allow_partys: boolean;
  /** Live status (docs/operations.md): its node's agent is connected; it applied every queued change. */
  online?: boolean;
  in_sync?: boolean;
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
  /** Why an inactive peer is so: 'admin' (only staff enable it again; it cannot be renewed) or 'expired'. */
  disabled_reason?: 'admin' | 'expired' | null;
  /** When the server read this state; the larger is newer (docs/api.md, versions). */
  version?: number;
  /** Its node saw two devices take turns with this configuration; false again after regenerating the keys. */
  shared_config_warning?: boolean;
  /** The mirror link is bound to one device (docs/api.md, "Mirror links"), and whether a device holds it. */
  mirror_binding?: boolean;
  mirror_bound?: boolean;
}

/** A server the peer may move to; an offline one is listed but cannot be chosen (409 `server_offline`). */
export interface ServerOption {
  id: string;
  address: string;
  name: string;
  active: boolean;
  ubication: string;
  allow_partys?: boolean;
  online?: boolean;
  in_sync?: boolean;
  /** Load: its peers, those connected in the last 3 minutes, and the one server suggested for this peer. */
  peers?: number;
  connected_peers?: number;
  recommended?: boolean;
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

/** Synchronous: turns the mirror link's device binding on or off (no device bound afterwards). */
export async function setMirrorBinding(id: string, enabled: boolean): Promise<{ peer: Peer | null; message?: string }> {
  const answer = await api.patch<Peer & { message?: string }>(peerPath(id), { operation: 'mirror_binding', enabled });
  return { peer: peerIn(answer), message: answer?.message };
}

/** Synchronous: frees the bound device; the next device that fetches the link is kept. */
export async function releaseMirrorDevice(id: string): Promise<{ peer: Peer | null; message?: string }> {
  const answer = await api.patch<Peer & { message?: string }>(peerPath(id), { operation: 'release_mirror_device' });
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
