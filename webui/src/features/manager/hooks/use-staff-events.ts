/** Live updates for manager pages: the staff socket events of docs/api.md ("Live updates for staff"). */
import { usePushMessage, type PushOf } from '../../realtime';

export type StaffEvent = 'node_status' | 'node_stats' | 'audit';

/** Calls `handler` with the `data` of every event of the given type(s), typed as the OpenAPI document declares it. */
export function useStaffEvents<T extends StaffEvent>(types: T | readonly T[], handler: (data: PushOf<T>['data']) => void): void {
  usePushMessage(types, (message: PushOf<StaffEvent>) => handler(message.data as PushOf<T>['data']));
}
