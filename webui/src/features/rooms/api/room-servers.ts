/** The room's best server (docs/rooms.md): where the members are, the recommended server, and the owner's move of
 * all their own peers there in one request. */
import type { RoomMoveAnswer, RoomPlacement } from '../../../api/types';
import { api } from '../../../lib/api';

export type { RoomMoveAnswer, RoomPlacement } from '../../../api/types';

const roomPath = (id: string) => `/api/client/network/partys/${encodeURIComponent(id)}`;

export function fetchRoomPlacement(roomId: string, signal?: AbortSignal): Promise<RoomPlacement> {
  return api.get<RoomPlacement>(`${roomPath(roomId)}/servers`, { signal });
}

/** 202: the moves started; their one result arrives by push (`success` / `info` / `error` with `party_id`). */
export function moveMyRoomPeers(roomId: string, server: string): Promise<RoomMoveAnswer> {
  return api.post<RoomMoveAnswer>(`${roomPath(roomId)}/move`, { server });
}
