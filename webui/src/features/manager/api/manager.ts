/** Calls of the manager pages (`/api/admin/...`, docs/api.md "Manager API"), one fetcher per call. */
import { api } from '../../../lib/api';

export type StaffRole = 'admin' | 'support';

export interface StaffUser {
  username: string;
  email: string | null;
  role: StaffRole | 'customer';
}

export interface Paged<T> {
  items: T[];
  total: number;
  page: number;
  page_size: number;
}

export interface LoginAnswer {
  access: string;
  refresh: string;
  message: string;
}

export interface OperationRow {
  id: string;
  server_id: string;
  server_name: string;
  kind: string;
  status: 'pending' | 'ok' | 'failed';
  peer_id: string | null;
  error: string | null;
  created: string;
  finished: string | null;
}

export interface RevenueRow {
  period: string;
  gateway: string;
  invoices: number;
  amount: string;
}

export interface Overview {
  users: number;
  customers_blocked: number;
  users_new_7d: number;
  peers: number;
  peers_active: number;
  servers: number;
  servers_active: number;
  servers_online: number;
  operations_pending: number;
  operations_failed_24h: number;
  recent_operations: OperationRow[];
  revenue: RevenueRow[] | null;
  /** Peers whose configuration two devices share (docs/operations.md, "One device per peer"). */
  peers_shared_config?: number;
  /** Traffic this UTC month per server and in total, and the last 30 days per day (docs/usage.md). */
  usage?: UsageOverview;
}

export interface UsageOverview {
  month_start: string;
  servers: { id: string; name: string; download: number; upload: number }[];
  download: number;
  upload: number;
  days: { start: string; download: number; upload: number }[];
}

export interface UserRow {
  id: string;
  username: string;
  email: string | null;
  email_verified: boolean;
  alias: string | null;
  role: string;
  blocked: boolean;
  /** Deleted account: personal data gone, kept for its invoices (docs/security.md, "Deleting an account"). */
  deleted: boolean;
  created: string;
  last_login: string | null;
  peers: number;
}

export interface StaffPeer {
  id: string;
  name: string;
  user_id: string;
  username: string;
  active: boolean;
  manual_payment: boolean;
  created: string;
  expiration_date: string | null;
  address: string;
  server_id: string;
  server_name: string;
  processing: boolean;
  plans_history: { plan_name: string; plan_price: string; created: string }[];
  party?: { id: string; name: string } | null;
}

export interface StaffRoom {
  id: string;
  name: string;
  owner: string;
  relation: 'owner' | 'guest';
  members: number;
  created: string;
}

export interface UserDetail {
  user: UserRow;
  peers: StaffPeer[];
  rooms?: StaffRoom[];
}

export interface ServerStatus {
  id: string;
  name: string;
  address: string;
  port: number;
  ubication: string;
  active: boolean;
  allow_partys: boolean;
  interface_name: string;
  tunnel_subnet: string;
  dns: string;
  capacity: number;
  backbone_endpoint: string;
  backbone_port: number;
  public_key: string | null;
  agent_version: string | null;
  backend: string | null;
  online: boolean;
  last_seen: string | null;
  serial: number;
  applied_serial: number;
  in_sync: boolean;
  has_credential: boolean;
  credential_issued: string | null;
  peers: number;
  peers_active: number;
  stats_at: string | null;
  stats_peers_connected: number;
  stats_rx_bytes: number;
  stats_tx_bytes: number;
}

export interface ServerCreated {
  server: ServerStatus;
  credential: string;
  install: string;
  /** Control-plane settings the install steps lacked (e.g. VPN_AGENT_REPOSITORY); those steps are marked FALTA. */
  install_missing?: string[];
}

export interface ServerInput {
  name: string;
  address: string;
  tunnel_subnet: string;
  port: number;
  ubication: string;
  active: boolean;
  allow_partys: boolean;
  dns: string;
  capacity: number;
  backbone_endpoint: string;
  backbone_port: number;
}

export type ServerPatch = Partial<Omit<ServerInput, 'tunnel_subnet'>>;

export interface StaffPlan {
  id: string;
  name: string;
  description: string;
  validity_hours: number;
  price: string;
  visible: boolean;
  sort_order: number;
  created: string;
}

export type PlanInput = Omit<StaffPlan, 'id' | 'created'>;

export interface Announcement {
  id: string;
  name: string;
  message: string;
  visible: boolean;
  created: string;
}

export interface ClientRelease {
  id: string;
  version: string;
  url: string;
  created: string;
}

export interface Switches {
  maintenance: boolean;
  allow_registration: boolean;
  allow_password_recovery: boolean;
  show_landing: boolean;
  allow_email: boolean;
  allow_partys: boolean;
  allow_payments_qvapay: boolean;
  allow_payments_remesita: boolean;
}

export interface AuditEntry {
  id: string;
  created: string;
  actor_id: string;
  actor_username: string;
  actor_role: string;
  action: string;
  target_type: string;
  target_id: string | null;
  summary: string;
  ip_address: string;
}

export interface StaffInvoice {
  id: string;
  remote_id: string;
  user_id: string;
  username: string;
  gateway: string;
  mode: 'new_peer' | 'add_plan';
  status: 'pending' | 'paid' | 'fulfilled' | 'canceled' | 'expired' | 'failed';
  plan_name: string;
  validity_hours: number;
  amount: string;
  peer_id: string | null;
  peer_name: string;
  transaction_id: string | null;
  manual: boolean;
  problem: string | null;
  created: string;
  paid_at: string | null;
  fulfilled_at: string | null;
  gateway_record?: Record<string, unknown> | null;
}

export interface Done {
  success: boolean;
  message: string;
}

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
  login: (body: { username: string; password: string; remember: boolean; captcha_token?: string }) =>
    api.post<LoginAnswer>(`${A}/login`, body, { auth: false }),
  verify: (signal?: AbortSignal) => api.get<StaffUser>(`${A}/verify-token`, { signal }),
  overview: (signal?: AbortSignal) => api.get<Overview>(`${A}/overview`, { signal }),

  users: (params: { q?: string; blocked?: boolean | null; page?: number }, signal?: AbortSignal) =>
    api.get<Paged<UserRow>>(`${A}/users${query(params)}`, { signal }),
  user: (id: string, signal?: AbortSignal) => api.get<UserDetail>(`${A}/users/${id}`, { signal }),
  setBlocked: (id: string, blocked: boolean) => api.patch<UserRow>(`${A}/users/${id}`, { blocked }),
  deleteUser: (id: string) => api.delete<UserRow>(`${A}/users/${id}`),
  sendPasswordReset: (id: string) => api.post<Done>(`${A}/users/${id}/password-reset`),
  resendVerification: (id: string) => api.post<Done>(`${A}/users/${id}/verification`),

  servers: (signal?: AbortSignal) => api.get<ServerStatus[]>(`${A}/servers`, { signal }),
  createServer: (body: ServerInput) => api.post<ServerCreated>(`${A}/servers`, body),
  updateServer: (id: string, body: ServerPatch) => api.patch<ServerStatus>(`${A}/servers/${id}`, body),
  reissueCredential: (id: string) => api.post<ServerCreated>(`${A}/servers/${id}/credential`),
  revokeCredential: (id: string) => api.delete<ServerStatus>(`${A}/servers/${id}/credential`),

  peers: (params: { q?: string; server?: string; active?: boolean | null; page?: number }, signal?: AbortSignal) =>
    api.get<Paged<StaffPeer>>(`${A}/peers${query(params)}`, { signal }),
  updatePeer: (id: string, body: { active?: boolean; manual_payment?: boolean }) =>
    api.patch<StaffPeer>(`${A}/peers/${id}`, body),
  movePeer: (id: string, server: string) => api.post<StaffPeer>(`${A}/peers/${id}/move`, { server }),
  extendPeer: (id: string, plan: string) => api.post<StaffPeer>(`${A}/peers/${id}/plans`, { plan }),

  plans: (signal?: AbortSignal) => api.get<StaffPlan[]>(`${A}/plans`, { signal }),
  createPlan: (body: PlanInput) => api.post<StaffPlan>(`${A}/plans`, body),
  updatePlan: (id: string, body: Partial<PlanInput>) => api.patch<StaffPlan>(`${A}/plans/${id}`, body),

  announcements: (signal?: AbortSignal) => api.get<Announcement[]>(`${A}/announcements`, { signal }),
  createAnnouncement: (body: { name: string; message: string; visible: boolean }) =>
    api.post<Announcement>(`${A}/announcements`, body),
  updateAnnouncement: (id: string, body: Partial<Pick<Announcement, 'name' | 'message' | 'visible'>>) =>
    api.patch<Announcement>(`${A}/announcements/${id}`, body),
  deleteAnnouncement: (id: string) => api.delete<Done>(`${A}/announcements/${id}`),

  releases: (signal?: AbortSignal) => api.get<ClientRelease[]>(`${A}/client-releases`, { signal }),
  createRelease: (body: { version: string; url: string }) => api.post<ClientRelease>(`${A}/client-releases`, body),
  deleteRelease: (id: string) => api.delete<Done>(`${A}/client-releases/${id}`),

  invoices: (params: { q?: string; status?: string; gateway?: string; user?: string; page?: number }, signal?: AbortSignal) =>
    api.get<Paged<StaffInvoice>>(`${A}/invoices${query(params)}`, { signal }),
  invoice: (id: string, signal?: AbortSignal) => api.get<StaffInvoice>(`${A}/invoices/${id}`, { signal }),
  markPaid: (id: string, note: string) => api.post<StaffInvoice>(`${A}/invoices/${id}/manual-payment`, { note }),

  switches: (signal?: AbortSignal) => api.get<Switches>(`${A}/switches`, { signal }),
  updateSwitches: (body: Partial<Switches>) => api.patch<Switches>(`${A}/switches`, body),

  audit: (params: { q?: string; action?: string; actor?: string; page?: number }, signal?: AbortSignal) =>
    api.get<Paged<AuditEntry>>(`${A}/audit${query(params)}`, { signal }),
};
