/** Purchase calls: the user's peers for the selector and `PUT /api/client/invoices`. */
import { api } from '../../../lib/api';
import type { GatewayId } from '../gateways';
import type { Plan } from './plans';

/** The fields of a peer the purchase dialog needs. */
export interface PurchasablePeer {
  /** Server ids are opaque (UUID strings); kept as received. */
  id: string | number;
  name: string;
  manual_payment: boolean;
  /** The plans it was bought with, oldest first: the renew shortcut offers the last one again. */
  plans_history?: { plan_name: string }[];
}

export type PurchaseMode = 'new_peer' | 'add_plan';

export interface InvoiceRequest {
  mode: PurchaseMode;
  plan: Plan['id'];
  /** The new peer's name, or the existing peer's id. */
  peer: string | number;
  /** Sent only when both gateways are on and the customer picked one (the server defaults to QvaPay). */
  gateway?: GatewayId;
}

export interface InvoiceAnswer {
  payment_url: string;
  message?: string;
}

/** Peers a plan can be added to: those paid through the gateway (manual_payment peers are excluded). */
export async function fetchEligiblePeers(signal?: AbortSignal): Promise<PurchasablePeer[]> {
  const peers = await api.get<PurchasablePeer[]>('/api/client/accounts/peers', { signal });
  return peers.filter((peer) => !peer.manual_payment);
}

export function createInvoice(request: InvoiceRequest): Promise<InvoiceAnswer> {
  return api.put<InvoiceAnswer>('/api/client/invoices', request);
}
