/** Usage history (docs/api.md, "Usage"): a peer's traffic per hour, day or month, and this month's totals. */
import { api } from '../../../lib/api';

export type UsageRange = '24h' | '30d' | '1y';

/** Bytes from the customer's side: download is what the server sent to the device. */
export interface UsagePoint {
  start: string;
  download: number;
  upload: number;
}

export interface UsageSeries {
  range: UsageRange;
  bucket: 'hour' | 'day' | 'month';
  points: UsagePoint[];
  download: number;
  upload: number;
}

export interface MonthUsage {
  peer: string;
  download: number;
  upload: number;
}

export function fetchPeerUsage(id: string, range: UsageRange, signal?: AbortSignal): Promise<UsageSeries> {
  return api.get<UsageSeries>(`/api/client/accounts/peers/${encodeURIComponent(id)}/usage?range=${range}`, { signal });
}

/** Every peer of the customer with what it used since the 1st of this month (UTC). */
export function fetchMonthUsage(signal?: AbortSignal): Promise<MonthUsage[]> {
  return api.get<MonthUsage[]>('/api/client/accounts/usage', { signal });
}
