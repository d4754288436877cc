/** The push message types of spec section 4 and docs/api.md, and the data the generic ones carry. */
export type { PushMessage } from '../../lib/socket';

/** Every type the server sends; features subscribe to the ones they handle. */
export type PushType =
  | 'auth'
  | 'success'
  | 'error'
  | 'info'
  | 'created_peer'
  | 'updated_peer'
  | 'deleted_peer'
  | 'peer_stats'
  | 'new_party_operation'
  | 'stop_party_operation'
  | 'updated_owner_party'
  | 'updated_guest_party'
  | 'deleted_owner_party'
  | 'deleted_guest_party'
  // Staff sockets only (manager pages, docs/api.md).
  | 'node_status'
  | 'node_stats'
  | 'audit'
  | 'pong';

/** `data` of success / error / info: which peer or room the toast concerns, when it concerns one. */
export interface NoticeData {
  peer_id?: string;
  party_id?: string;
}

/** Fallback toast for an `error` push without a message (spec section 8). */
export const PUSH_ERROR_FALLBACK = 'Hubo un error al realizar la operación.';
