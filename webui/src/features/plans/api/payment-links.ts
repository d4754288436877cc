/** Payment links ("alguien paga por mí", docs/payments.md): the owner's calls and the anonymous payer's. */
import type { PaymentLinkCreated, PaymentLinkView, PublicPayAnswer, PublicPaymentLink } from '../../../api/types';
import { api } from '../../../lib/api';

export type { PaymentLinkView, PublicPaymentLink } from '../../../api/types';

export function createPaymentLink(peer: string, plan: string): Promise<PaymentLinkCreated> {
  return api.post<PaymentLinkCreated>('/api/client/payment-links', { peer, plan });
}

export function fetchPaymentLinks(signal?: AbortSignal): Promise<PaymentLinkView[]> {
  return api.get<PaymentLinkView[]>('/api/client/payment-links', { signal });
}

export function revokePaymentLink(id: string): Promise<{ message: string }> {
  return api.delete<{ message: string }>(`/api/client/payment-links/${encodeURIComponent(id)}`);
}

/** The payer's calls carry no session: the link's token is the only key. */
export function fetchPublicPaymentLink(token: string, payment: string | null, signal?: AbortSignal): Promise<PublicPaymentLink> {
  const query = payment ? `?payment=${encodeURIComponent(payment)}` : '';
  return api.get<PublicPaymentLink>(`/api/public/payment-links/${encodeURIComponent(token)}${query}`, { auth: false, signal });
}

export function payPublicPaymentLink(token: string, gateway: string | null): Promise<PublicPayAnswer> {
  return api.post<PublicPayAnswer>(
    `/api/public/payment-links/${encodeURIComponent(token)}/pay`,
    gateway ? { gateway } : {},
    { auth: false },
  );
}
