/** The push messages of the live socket (docs/api.md): types and data as the OpenAPI document declares them. */
import type { ServerPush } from '../../api/types';

export type { PushMessage } from '../../lib/socket';
/** `data` of success / error / info: which peer or room the toast concerns, when it concerns one. */
export type { NoticeData } from '../../api/types';

/** Every type the server sends; features subscribe to the ones they handle (staff sockets only: node_status,
 * node_stats, audit). */
export type PushType = ServerPush['type'];

/** A push message of one of the types `T`, with its `data` typed. */
export type PushOf<T extends PushType> = Extract<ServerPush, { type: T }>;

/** Fallback toast for an `error` push without a message (docs/contract.md#fallback-texts). */
export const PUSH_ERROR_FALLBACK = 'Hubo un error al realizar la operación.';
