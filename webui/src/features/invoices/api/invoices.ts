/** `GET /api/client/invoices`: the customer's own invoices, newest first; the gateway's brand and the state's Spanish
 * words come from the server (docs/api.md, "Plans and invoices"). */
import type { InvoiceListItem } from '../../../api/types';
import { api } from '../../../lib/api';

export type { InvoiceListItem } from '../../../api/types';

export function fetchInvoices(signal?: AbortSignal): Promise<InvoiceListItem[]> {
  return api.get<InvoiceListItem[]>('/api/client/invoices', { signal });
}
