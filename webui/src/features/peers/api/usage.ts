/** Usage history (docs/api.md, "Usage"): a peer's traffic per hour, day or month, and this month's totals. */
import type { MonthUsage, UsageSeries } from '../../../api/types';
import { api } from '../../../lib/api';

export type { MonthUsage, UsagePoint, UsageSeries } from '../../../api/types';

/** Bytes from the customer's side: download is what the server sent to the device. */
export type UsageRange = UsageSeries['range'];

export function fetchPeerUsage(id: string, range: UsageRange, signal?: AbortSignal): Promise<UsageSeries> {
  return api.get<UsageSeries>(`/api/client/accounts/peers/${encodeURIComponent(id)}/usage?range=${range}`, { signal });
}

/** Every peer of the customer with what it used since the 1st of this month (UTC). */
export function fetchMonthUsage(signal?: AbortSignal): Promise<MonthUsage[]> {
  return api.get<MonthUsage[]>('/api/client/accounts/usage', { signal });
}
