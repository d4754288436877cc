/** `GET /api/client/invoices/{remote_id}`: what a payment bought, for the payment result page. */
import { api } from '../../../lib/api';

export interface InvoiceDetails {
  plan_name: string;
  peer_name: string;
  amount: number | string;
}

export function fetchInvoice(remoteId: string, signal?: AbortSignal): Promise<InvoiceDetails> {
  return api.get<InvoiceDetails>(`/api/client/invoices/${encodeURIComponent(remoteId)}`, { signal });
}
