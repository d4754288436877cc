/** Calls of the manager pages (`/api/admin/...`, docs/api.md "Manager API"), one fetcher per call. */
import type {
  AnnouncementInput,
  AnnouncementPatch,
  AuditPage,
  CurrentUser,
  Done,
  LoginAnswer,
  LoginRequest,
  ManualPayment,
  Overview,
  PeerExtend,
  PeerMove,
  PlanInput,
  PlanPatch,
  ReleaseInput,
  ServerCreated,
  ServerInput,
  ServerPatch,
  ServerStatus,
  StaffAnnouncement,
  StaffInvoiceDetail,
  StaffInvoicePage,
  StaffPeer,
  StaffPeerPage,
  StaffPeerPatch,
  StaffPlan,
  StaffRelease,
  Switches,
  SwitchesPatch,
  UserDetail,
  UserPage,
  UserPatch,
  UserRow,
} from '../../../api/types';
import { api } from '../../../lib/api';

export type {
  AuditEntry,
  Done,
  OperationRow,
  Overview,
  PlanInput,
  RevenueRow,
  ServerCreated,
  ServerInput,
  ServerPatch,
  ServerStatus,
  StaffAnnouncement,
  StaffInvoice,
  StaffInvoiceDetail,
  StaffPeer,
  StaffPlan,
  StaffRelease,
  StaffRoom,
  Switches,
  UsageOverview,
  UserDetail,
  UserRow,
} from '../../../api/types';

export type StaffRole = 'admin' | 'support';

/** The signed-in staff member: `GET /api/admin/verify-token` answers the same shape as the customer's. */
export type StaffUser = CurrentUser;

/** `?a=1&b=x` from the non-empty values. */
export function query(params: Record<string, string | number | boolean | null | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== '' && value !== null && value !== undefined) search.set(key, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}

const A = '/api/admin';

export const managerApi = {
  login: (body: LoginRequest) =>
    api.post<LoginAnswer>(`${A}/login`, body, { auth: false }),
  verify: (signal?: AbortSignal) => api.get<StaffUser>(`${A}/verify-token`, { signal }),
  overview: (signal?: AbortSignal) => api.get<Overview>(`${A}/overview`, { signal }),

  users: (params: { q?: string; blocked?: boolean | null; page?: number }, signal?: AbortSignal) =>
    api.get<UserPage>(`${A}/users${query(params)}`, { signal }),
  user: (id: string, signal?: AbortSignal) => api.get<UserDetail>(`${A}/users/${id}`, { signal }),
  setBlocked: (id: string, blocked: boolean) => api.patch<UserRow>(`${A}/users/${id}`, { blocked } satisfies UserPatch),
  deleteUser: (id: string) => api.delete<UserRow>(`${A}/users/${id}`),
  sendPasswordReset: (id: string) => api.post<Done>(`${A}/users/${id}/password-reset`),
  resendVerification: (id: string) => api.post<Done>(`${A}/users/${id}/verification`),

  servers: (signal?: AbortSignal) => api.get<ServerStatus[]>(`${A}/servers`, { signal }),
  createServer: (body: ServerInput) => api.post<ServerCreated>(`${A}/servers`, body),
  updateServer: (id: string, body: ServerPatch) => api.patch<ServerStatus>(`${A}/servers/${id}`, body),
  reissueCredential: (id: string) => api.post<ServerCreated>(`${A}/servers/${id}/credential`),
  revokeCredential: (id: string) => api.delete<ServerStatus>(`${A}/servers/${id}/credential`),

  peers: (params: { q?: string; server?: string; active?: boolean | null; page?: number }, signal?: AbortSignal) =>
    api.get<StaffPeerPage>(`${A}/peers${query(params)}`, { signal }),
  updatePeer: (id: string, body: StaffPeerPatch) =>
    api.patch<StaffPeer>(`${A}/peers/${id}`, body),
  movePeer: (id: string, server: string) => api.post<StaffPeer>(`${A}/peers/${id}/move`, { server } satisfies PeerMove),
  extendPeer: (id: string, plan: string) => api.post<StaffPeer>(`${A}/peers/${id}/plans`, { plan } satisfies PeerExtend),

  plans: (signal?: AbortSignal) => api.get<StaffPlan[]>(`${A}/plans`, { signal }),
  createPlan: (body: PlanInput) => api.post<StaffPlan>(`${A}/plans`, body),
  updatePlan: (id: string, body: PlanPatch) => api.patch<StaffPlan>(`${A}/plans/${id}`, body),

  announcements: (signal?: AbortSignal) => api.get<StaffAnnouncement[]>(`${A}/announcements`, { signal }),
  createAnnouncement: (body: AnnouncementInput) =>
    api.post<StaffAnnouncement>(`${A}/announcements`, body),
  updateAnnouncement: (id: string, body: AnnouncementPatch) =>
    api.patch<StaffAnnouncement>(`${A}/announcements/${id}`, body),
  deleteAnnouncement: (id: string) => api.delete<Done>(`${A}/announcements/${id}`),

  releases: (signal?: AbortSignal) => api.get<StaffRelease[]>(`${A}/client-releases`, { signal }),
  createRelease: (body: ReleaseInput) => api.post<StaffRelease>(`${A}/client-releases`, body),
  deleteRelease: (id: string) => api.delete<Done>(`${A}/client-releases/${id}`),

  invoices: (params: { q?: string; status?: string; gateway?: string; user?: string; page?: number }, signal?: AbortSignal) =>
    api.get<StaffInvoicePage>(`${A}/invoices${query(params)}`, { signal }),
  invoice: (id: string, signal?: AbortSignal) => api.get<StaffInvoiceDetail>(`${A}/invoices/${id}`, { signal }),
  markPaid: (id: string, note: string) =>
    api.post<StaffInvoiceDetail>(`${A}/invoices/${id}/manual-payment`, { note } satisfies ManualPayment),

  switches: (signal?: AbortSignal) => api.get<Switches>(`${A}/switches`, { signal }),
  updateSwitches: (body: SwitchesPatch) => api.patch<Switches>(`${A}/switches`, body),

  audit: (params: { q?: string; action?: string; actor?: string; page?: number }, signal?: AbortSignal) =>
    api.get<AuditPage>(`${A}/audit${query(params)}`, { signal }),
};
