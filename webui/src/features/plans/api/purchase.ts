/** Purchase calls: the user's peers for the selector and `PUT /api/client/invoices`. */
import type { InvoiceAnswer, InvoiceRequest, Peer, PlanHistoryEntry } from '../../../api/types';
import { api } from '../../../lib/api';

export type { InvoiceAnswer, InvoiceRequest } from '../../../api/types';

/** The fields of a peer the purchase dialog needs; the plans it was bought with, oldest first: the renew shortcut
 * offers the last one again. */
export type PurchasablePeer = Pick<Peer, 'id' | 'name' | 'manual_payment'> & {
  plans_history: Pick<PlanHistoryEntry, 'plan_name'>[];
};

export type PurchaseMode = 'new_peer' | 'add_plan';

/** Peers a plan can be added to: those paid through the gateway (manual_payment peers are excluded). */
export async function fetchEligiblePeers(signal?: AbortSignal): Promise<PurchasablePeer[]> {
  const peers = await api.get<PurchasablePeer[]>('/api/client/accounts/peers', { signal });
  return peers.filter((peer) => !peer.manual_payment);
}

export function createInvoice(request: InvoiceRequest): Promise<InvoiceAnswer> {
  return api.put<InvoiceAnswer>('/api/client/invoices', request);
}
