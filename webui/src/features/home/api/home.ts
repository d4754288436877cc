/** Home data: announcements (`GET /api/client/advertisements`) and the latest client (`GET /api/client/agent`). */
import type { Announcement, ClientRelease, InvoiceListItem, Peer } from '../../../api/types';
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

/** A payment the customer started and has not completed: what it buys and where to complete it. */
export type PendingPayment = Pick<InvoiceListItem, 'remote_id' | 'plan_name' | 'peer_name' | 'gateway_name' | 'payment_url'>;

/**
 * The customer's invoices still waiting for their payment (`GET /api/client/invoices`, a few a year, about 1 KB).
 * Read beside Home's own data, not before it: Home shows without waiting for it, and a failure only leaves the
 * payment out of 'Requiere su atención' (docs/webui.md, "States").
 */
export async function fetchPendingPayments(signal?: AbortSignal): Promise<PendingPayment[]> {
  try {
    const invoices = await api.get<InvoiceListItem[]>('/api/client/invoices', { signal });
    return invoices.filter((invoice) => invoice.status === 'pending');
  } catch {
    return [];
  }
}
