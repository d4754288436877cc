/** Home data: announcements (`GET /api/client/advertisements`) and the latest client (`GET /api/client/agent`). */
import { api } from '../../../lib/api';

export interface Announcement {
  id: string | number;
  name: string;
  created: string;
  message: string;
}

export interface ClientRelease {
  version: string;
  url: string;
}

export function fetchAnnouncements(signal?: AbortSignal): Promise<Announcement[]> {
  return api.get<Announcement[]>('/api/client/advertisements', { signal });
}

export function fetchClientRelease(signal?: AbortSignal): Promise<ClientRelease> {
  return api.get<ClientRelease>('/api/client/agent', { signal });
}

export interface HomeData {
  announcements: Announcement[];
  /** Null when the release could not be read: the notice is simply not shown. */
  release: ClientRelease | null;
}

export async function fetchHomeData(signal?: AbortSignal): Promise<HomeData> {
  const [announcements, release] = await Promise.all([
    fetchAnnouncements(signal),
    fetchClientRelease(signal).catch(() => null),
  ]);
  return { announcements, release };
}
