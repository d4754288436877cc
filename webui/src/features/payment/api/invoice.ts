/** `GET /api/client/invoices/{remote_id}`: what a payment bought, for the payment result page. */
import type { InvoiceDetails } from '../../../api/types';
import { api } from '../../../lib/api';

export type { InvoiceDetails } from '../../../api/types';

export function fetchInvoice(remoteId: string, signal?: AbortSignal): Promise<InvoiceDetails> {
  return api.get<InvoiceDetails>(`/api/client/invoices/${encodeURIComponent(remoteId)}`, { signal });
}
