/** `GET /api/client/invoices/{remote_id}`: what a payment bought, for the payment result page. */
import { api } from '../../../lib/api';

export interface InvoiceDetails {
  plan_name: string;
  peer_name: string;
  /** USD as a decimal string ("5.00"). */
  amount: number | string;
  /** The gateway's transaction id, once known (beyond the spec; see docs/api.md). */
  transaction_uuid?: string | null;
  /** pending, paid, fulfilled, canceled, expired or failed. */
  status?: string;
}

export function fetchInvoice(remoteId: string, signal?: AbortSignal): Promise<InvoiceDetails> {
  return api.get<InvoiceDetails>(`/api/client/invoices/${encodeURIComponent(remoteId)}`, { signal });
}
