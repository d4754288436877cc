/** Guest passes (docs/payments.md, "Guest passes"): the room owner's calls and the friend's claim. */
import type { GuestPassBought, GuestPassClaimed, GuestPassPlan, GuestPassView, PublicGuestPass } from '../../../api/types';
import { api } from '../../../lib/api';

export type { GuestPassPlan, GuestPassView, PublicGuestPass } from '../../../api/types';

export function fetchGuestPassPlans(signal?: AbortSignal): Promise<GuestPassPlan[]> {
  return api.get<GuestPassPlan[]>('/api/client/guest-passes/plans', { signal });
}

export function fetchGuestPasses(party: string, signal?: AbortSignal): Promise<GuestPassView[]> {
  return api.get<GuestPassView[]>(`/api/client/guest-passes?party=${encodeURIComponent(party)}`, { signal });
}

export function buyGuestPass(party: string, plan: string, gateway: string | null): Promise<GuestPassBought> {
  return api.post<GuestPassBought>('/api/client/guest-passes', gateway ? { party, plan, gateway } : { party, plan });
}

/** Read before logging in: the token is the only key. */
export function fetchPublicGuestPass(token: string, signal?: AbortSignal): Promise<PublicGuestPass> {
  return api.get<PublicGuestPass>(`/api/public/guest-passes/${encodeURIComponent(token)}`, { auth: false, signal });
}

export function claimGuestPass(token: string, name: string): Promise<GuestPassClaimed> {
  const body = name.trim() ? { name: name.trim() } : {};
  return api.post<GuestPassClaimed>(`/api/client/guest-passes/claim/${encodeURIComponent(token)}`, body);
}
