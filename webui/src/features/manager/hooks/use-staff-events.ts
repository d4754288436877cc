/** Live updates for manager pages: the staff socket events of docs/api.md ("Live updates for staff"). */
import { usePushMessage } from '../../realtime';

export type StaffEvent = 'node_status' | 'node_stats' | 'audit';

export function useStaffEvents<TData = unknown>(
  types: StaffEvent | readonly StaffEvent[],
  handler: (data: TData) => void,
): void {
  usePushMessage<TData>(types, (message) => handler(message.data as TData));
}
