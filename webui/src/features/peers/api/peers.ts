/** The peer calls (docs/contract.md#peer-calls) (`/api/client/accounts/peers`, `/api/client/network/{peer id}`) and their shapes. */
import type { Peer, PeerOperation, ServerOption } from '../../../api/types';
import { api } from '../../../lib/api';

export type { Peer, PeerServer, PeerStats, PlanHistoryEntry, ServerOption } from '../../../api/types';

/**
 * Answer of the asynchronous operations: 202 with the peer now `processing`. The OpenAPI document gives the peer
 * operation's answer no schema, so its shape is written here.
 */
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
  const answer = await api.patch<(Peer & { message?: string }) | AcceptedOperation>(peerPath(id), { operation: 'regenerate_token' } satisfies PeerOperation);
  return { peer: peerIn(answer), message: answer?.message };
}

/** Synchronous: turns the mirror link's device binding on or off (no device bound afterwards). */
export async function setMirrorBinding(id: string, enabled: boolean): Promise<{ peer: Peer | null; message?: string }> {
  const answer = await api.patch<Peer & { message?: string }>(peerPath(id), { operation: 'mirror_binding', enabled } satisfies PeerOperation);
  return { peer: peerIn(answer), message: answer?.message };
}

/** Synchronous: the code the owner's device shows; that device is bound at its next fetch of the link. */
export async function confirmMirrorDevice(id: string, code: string): Promise<{ peer: Peer | null; message?: string }> {
  const answer = await api.patch<Peer & { message?: string }>(peerPath(id), { operation: 'confirm_mirror_device', code } satisfies PeerOperation);
  return { peer: peerIn(answer), message: answer?.message };
}

/** Synchronous: frees the bound device; no device is served until the owner confirms another one's code. */
export async function releaseMirrorDevice(id: string): Promise<{ peer: Peer | null; message?: string }> {
  const answer = await api.patch<Peer & { message?: string }>(peerPath(id), { operation: 'release_mirror_device' } satisfies PeerOperation);
  return { peer: peerIn(answer), message: answer?.message };
}

/** Synchronous: the peer under its new name (the peer name rule; 422 `invalid_peer_name`, 409 `peer_name_taken`). */
export async function renamePeer(id: string, name: string): Promise<Peer | null> {
  return peerIn(await api.patch<Peer & { message?: string }>(peerPath(id), { operation: 'rename', name } satisfies PeerOperation));
}

/** Synchronous: the peer off its node until resumed (`pause`), or back on it (`resume`); the answer's Spanish message
 * says what that means (docs/api.md, "Pause and resume"). */
export async function setPeerPaused(id: string, paused: boolean): Promise<{ peer: Peer | null; message?: string }> {
  const body = { operation: paused ? 'pause' : 'resume' } satisfies PeerOperation;
  const answer = await api.patch<Peer & { message?: string }>(peerPath(id), body);
  return { peer: peerIn(answer), message: answer?.message };
}

/** The configuration file as text (the same call as the download), for the 'Ver configuración' dialog. */
export async function fetchPeerConfigText(id: string): Promise<string> {
  return (await downloadPeerConfig(id)).text();
}

/** Asynchronous: the outcome arrives later as `updated_peer` or `error`. */
export function regeneratePeer(id: string): Promise<AcceptedOperation> {
  return api.patch<AcceptedOperation>(peerPath(id), { operation: 'regenerate' } satisfies PeerOperation);
}

/** Asynchronous, like `regeneratePeer`. */
export function changeServer(id: string, server: string): Promise<AcceptedOperation> {
  return api.patch<AcceptedOperation>(peerPath(id), { operation: 'change_server', server } satisfies PeerOperation);
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
