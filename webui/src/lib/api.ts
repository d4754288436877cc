/** The one HTTP client of the web UI: JSON, CSRF header, bearer token and the refresh-and-retry-once rule. */
import type { TokenPair } from '../api/types';
import {
  clearTokens,
  getAccessToken,
  getRefreshToken,
  storeRefreshedTokens,
} from './tokens';

export { getAccessToken } from './tokens';

/** A failed call. `message` is the server's Spanish `message` when it sent one, else empty. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string | undefined;
  readonly fields: Record<string, string> | undefined;

  constructor(status: number, message: string, code?: string, fields?: Record<string, string>) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.fields = fields;
  }

  get isMaintenance(): boolean {
    return this.status === 503;
  }
}

/** The text to show for a failure: the server's message when there is one, else the caller's fallback. */
export function errorMessage(error: unknown, fallback: string): string {
  if (error instanceof ApiError && error.message) return error.message;
  return fallback;
}

export interface RequestOptions {
  /** Send the bearer token and apply the refresh rule (default true). Public calls pass false. */
  auth?: boolean;
  signal?: AbortSignal;
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Shown on the login page when the server gave no reason for ending the session. */
export const SESSION_ENDED = 'Su sesión terminó. Inicie sesión de nuevo.';

/** Why the session ended, as the login page shows it (router state `{reason}`, docs/webui.md). */
export interface SessionEndedState {
  reason: string;
}

/**
 * Where the user is sent when the session cannot be renewed, with the reason to show there; replaced by the router
 * for in-app navigation (a full page load keeps no state: the login page then shows nothing).
 */
let redirectTo: (path: string, state: SessionEndedState) => void = (path) => window.location.assign(path);

export function setSessionExpiredNavigator(navigate: (path: string, state: SessionEndedState) => void): void {
  redirectTo = navigate;
}

/** Clears the tokens and sends the user to the login page of `apiPath`'s area, saying why. */
export function endSession(apiPath: string, reason: string): void {
  clearTokens();
  redirectTo(loginPathFor(apiPath), { reason: reason || SESSION_ENDED });
}

/** Told about every 503 (maintenance), so the app can show /maintenance wherever the user is. */
let onMaintenance: () => void = () => undefined;

export function setMaintenanceHandler(handler: () => void): void {
  onMaintenance = handler;
}

/** Login page for the area a path belongs to: admin API calls lead to the manager login. */
export function loginPathFor(apiPath: string): string {
  return apiPath.startsWith('/api/admin') ? '/manager/login' : '/login';
}

function headers(withToken: boolean): Headers {
  const result = new Headers({
    'Content-Type': 'application/json',
    Accept: 'application/json',
    'X-Requested-With': 'XMLHttpRequest',
  });
  const token = withToken ? getAccessToken() : null;
  if (token) result.set('Authorization', `Bearer ${token}`);
  return result;
}

async function toApiError(response: Response): Promise<ApiError> {
  if (response.status === 503) onMaintenance();
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    body = null;
  }
  if (body && typeof body === 'object') {
    const { message, code, fields } = body as { message?: unknown; code?: unknown; fields?: unknown };
    return new ApiError(
      response.status,
      typeof message === 'string' ? message : '',
      typeof code === 'string' ? code : undefined,
      fields && typeof fields === 'object' ? (fields as Record<string, string>) : undefined,
    );
  }
  return new ApiError(response.status, '');
}

// Refresh tokens rotate and a reused one revokes the whole session family, so parallel 401s must share one refresh.
let refreshInFlight: Promise<Renewal> | null = null;

/** true, or why the session could not be renewed ('' when the server did not say). */
type Renewal = true | { reason: string };

async function exchangeRefreshToken(): Promise<Renewal> {
  const refresh = getRefreshToken();
  if (!refresh) return { reason: '' };
  try {
    const response = await fetch('/api/refresh-token', {
      method: 'POST',
      headers: headers(false),
      body: JSON.stringify({ refresh }),
    });
    if (!response.ok) return { reason: (await toApiError(response)).message };
    const data = (await response.json()) as Partial<TokenPair>;
    if (!data.access || !data.refresh) return { reason: '' };
    storeRefreshedTokens(data.access, data.refresh);
    return true;
  } catch {
    return { reason: '' };
  }
}

function refreshOnce(): Promise<Renewal> {
  refreshInFlight ??= exchangeRefreshToken().finally(() => {
    refreshInFlight = null;
  });
  return refreshInFlight;
}

function isAuthFailure(status: number): boolean {
  return status === 401 || status === 403;
}

/** Sends one request; on 401/403 renews the tokens and repeats it exactly once, else ends the session. */
async function send(method: Method, path: string, body: unknown, options: RequestOptions): Promise<Response> {
  const auth = options.auth ?? true;
  const attempt = (): Promise<Response> =>
    fetch(path, {
      method,
      headers: headers(auth),
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: options.signal,
    });

  let response: Response;
  try {
    response = await attempt();
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') throw error;
    throw new ApiError(0, '');
  }
  if (!auth || !isAuthFailure(response.status)) {
    if (!response.ok) throw await toApiError(response);
    return response;
  }

  const renewed = await refreshOnce();
  if (renewed !== true) {
    const failure = await toApiError(response);
    endSession(path, renewed.reason || failure.message);
    throw failure;
  }
  try {
    response = await attempt();
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') throw error;
    throw new ApiError(0, '');
  }
  // The retry happens once: a second 401/403 is the answer (e.g. an action this user may not do).
  if (!response.ok) throw await toApiError(response);
  return response;
}

async function json<T>(response: Response): Promise<T> {
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  return (text ? JSON.parse(text) : undefined) as T;
}

export const api = {
  get: async <T>(path: string, options: RequestOptions = {}): Promise<T> =>
    json<T>(await send('GET', path, undefined, options)),
  post: async <T>(path: string, body?: unknown, options: RequestOptions = {}): Promise<T> =>
    json<T>(await send('POST', path, body, options)),
  put: async <T>(path: string, body?: unknown, options: RequestOptions = {}): Promise<T> =>
    json<T>(await send('PUT', path, body, options)),
  patch: async <T>(path: string, body?: unknown, options: RequestOptions = {}): Promise<T> =>
    json<T>(await send('PATCH', path, body, options)),
  /** `body`: the few deletions that need a confirmation (closing another session takes the password). */
  delete: async <T>(path: string, options: RequestOptions = {}, body?: unknown): Promise<T> =>
    json<T>(await send('DELETE', path, body, options)),
  /** A file answer (e.g. a peer's .conf) as a Blob, under the same refresh-and-retry rule. */
  download: async (path: string, options: RequestOptions = {}): Promise<Blob> =>
    (await send('GET', path, undefined, options)).blob(),
};
