/** Home data: announcements (`GET /api/client/advertisements`) and the latest client (`GET /api/client/agent`). */
import type { Announcement, ClientRelease, Peer } from '../../../api/types';
import { api } from '../../../lib/api';

export type { Announcement, ClientRelease } from '../../../api/types';

/** What Home needs of a peer to say what needs attention: it expires soon, its server is offline, two devices
 * share it, an operation runs on it. */
export type HomePeer = Pick<Peer, 'id' | 'name' | 'active' | 'expiration_date' | 'manual_payment'> &
  Partial<Pick<Peer, 'server' | 'server_notice' | 'shared_config_warning' | 'operation'>>;

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
  /** Empty when the peers could not be read: the expiry warning is simply not shown. */
  peers: HomePeer[];
}

export async function fetchHomeData(signal?: AbortSignal): Promise<HomeData> {
  const [announcements, release, peers] = await Promise.all([
    fetchAnnouncements(signal),
    fetchClientRelease(signal).catch(() => null),
    api.get<HomePeer[]>('/api/client/accounts/peers', { signal }).catch(() => []),
  ]);
  return { announcements, release, peers };
}
