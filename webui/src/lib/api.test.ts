import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError, api, errorMessage, setMaintenanceHandler, setSessionExpiredNavigator } from './api';
import { clearTokens, getAccessToken, getRefreshToken, storeLoginTokens } from './tokens';

interface Call {
  url: string;
  method: string;
  headers: Headers;
  body: unknown;
}

type Responder = (call: Call) => Response;

function jsonResponse(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
}

/** Stubs fetch with an ordered script of answers and records every call. */
function stubFetch(...script: Responder[]): Call[] {
  const calls: Call[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init: RequestInit = {}) => {
      const call: Call = {
        url,
        method: init.method ?? 'GET',
        headers: new Headers(init.headers),
        body: init.body ? JSON.parse(init.body as string) : undefined,
      };
      calls.push(call);
      const next = script[calls.length - 1];
      if (!next) throw new Error(`unexpected call ${call.method} ${url}`);
      return next(call);
    }),
  );
  return calls;
}

let redirects: string[];
let reasons: string[];

beforeEach(() => {
  redirects = [];
  reasons = [];
  setSessionExpiredNavigator((path, state) => {
    redirects.push(path);
    reasons.push(state.reason);
  });
  clearTokens();
});

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('api client', () => {
  it('sends JSON, the CSRF header and the bearer token', async () => {
    storeLoginTokens('acc-1', 'ref-1', true);
    const calls = stubFetch(() => jsonResponse(200, { ok: 1 }));

    await expect(api.post('/api/client/x', { a: 1 })).resolves.toEqual({ ok: 1 });

    expect(calls[0]?.headers.get('Content-Type')).toBe('application/json');
    expect(calls[0]?.headers.get('X-Requested-With')).toBe('XMLHttpRequest');
    expect(calls[0]?.headers.get('Authorization')).toBe('Bearer acc-1');
    expect(calls[0]?.body).toEqual({ a: 1 });
  });

  it('sends no token on public calls', async () => {
    storeLoginTokens('acc-1', 'ref-1', true);
    const calls = stubFetch(() => jsonResponse(200, {}));
    await api.get('/api/client', { auth: false });
    expect(calls[0]?.headers.get('Authorization')).toBeNull();
  });

  it('keeps the refresh token out of localStorage without Recordarme', () => {
    storeLoginTokens('acc', 'ref', false);
    expect(window.localStorage.getItem('access_token')).toBe('acc');
    expect(window.localStorage.getItem('refresh_token')).toBeNull();
    storeLoginTokens('acc', 'ref', true);
    expect(window.localStorage.getItem('refresh_token')).toBe('ref');
  });

  it.each([401, 403])('on %i refreshes the tokens and repeats the request once', async (status) => {
    storeLoginTokens('old-access', 'old-refresh', true);
    const calls = stubFetch(
      () => jsonResponse(status, { message: 'expirado' }),
      () => jsonResponse(200, { access: 'new-access', refresh: 'new-refresh' }),
      () => jsonResponse(200, [{ id: 1 }]),
    );

    await expect(api.get('/api/client/accounts/peers')).resolves.toEqual([{ id: 1 }]);

    expect(calls.map((c) => `${c.method} ${c.url}`)).toEqual([
      'GET /api/client/accounts/peers',
      'POST /api/refresh-token',
      'GET /api/client/accounts/peers',
    ]);
    expect(calls[1]?.body).toEqual({ refresh: 'old-refresh' });
    expect(calls[2]?.headers.get('Authorization')).toBe('Bearer new-access');
    expect(getAccessToken()).toBe('new-access');
    expect(window.localStorage.getItem('refresh_token')).toBe('new-refresh');
    expect(redirects).toEqual([]);
  });

  it('retries only once: a second 403 surfaces the server message without another refresh', async () => {
    storeLoginTokens('a', 'r', true);
    const calls = stubFetch(
      () => jsonResponse(403, { message: 'No permitido' }),
      () => jsonResponse(200, { access: 'a2', refresh: 'r2' }),
      () => jsonResponse(403, { message: 'No permitido', code: 'forbidden' }),
    );

    const failure = api.delete('/api/client/network/partys/3');
    await expect(failure).rejects.toMatchObject({ status: 403, message: 'No permitido', code: 'forbidden' });
    expect(calls).toHaveLength(3);
    expect(getAccessToken()).toBe('a2');
    expect(redirects).toEqual([]);
  });

  it('clears both tokens and goes to /login when the refresh fails', async () => {
    storeLoginTokens('a', 'r', true);
    stubFetch(
      () => jsonResponse(401, { message: 'Token expirado' }),
      () => jsonResponse(401, { message: 'reused', code: 'refresh_reused' }),
    );

    await expect(api.get('/api/client/verify-token')).rejects.toBeInstanceOf(ApiError);
    expect(getAccessToken()).toBeNull();
    expect(getRefreshToken()).toBeNull();
    expect(window.localStorage.getItem('refresh_token')).toBeNull();
    expect(redirects).toEqual(['/login']);
    expect(reasons).toEqual(['reused']); // the refresh's own reason is the one shown on the login page
  });

  it('tells the login page that the account is blocked, or that the session ended when nobody said why', async () => {
    storeLoginTokens('a', 'r', true);
    stubFetch(
      () => jsonResponse(403, { message: 'Su cuenta está bloqueada.', code: 'account_blocked' }),
      () => jsonResponse(403, { message: 'Su cuenta está bloqueada.', code: 'account_blocked' }),
    );
    await expect(api.get('/api/client/verify-token')).rejects.toBeInstanceOf(ApiError);
    storeLoginTokens('a', 'r', true);
    stubFetch(
      () => jsonResponse(401, {}),
      () => jsonResponse(401, {}),
    );
    await expect(api.get('/api/client/settings')).rejects.toBeInstanceOf(ApiError);
    expect(reasons).toEqual(['Su cuenta está bloqueada.', 'Su sesión terminó. Inicie sesión de nuevo.']);
  });

  it('goes straight to login without a refresh token', async () => {
    storeLoginTokens('a', 'r', false);
    clearTokens();
    window.localStorage.setItem('access_token', 'a');
    const calls = stubFetch(() => jsonResponse(401, {}));

    await expect(api.get('/api/client/settings')).rejects.toMatchObject({ status: 401 });
    expect(calls).toHaveLength(1);
    expect(getAccessToken()).toBeNull();
    expect(redirects).toEqual(['/login']);
  });

  it('sends admin API failures to the manager login', async () => {
    storeLoginTokens('a', 'r', true);
    stubFetch(
      () => jsonResponse(401, {}),
      () => jsonResponse(401, {}),
    );
    await expect(api.get('/api/admin/users')).rejects.toBeInstanceOf(ApiError);
    expect(redirects).toEqual(['/manager/login']);
  });

  it('applies the same rule to downloads', async () => {
    storeLoginTokens('a', 'r', true);
    const calls = stubFetch(
      () => jsonResponse(401, {}),
      () => jsonResponse(200, { access: 'a2', refresh: 'r2' }),
      () => new Response('[Interface]\nPrivateKey = x\n', { status: 200 }),
    );

    const blob = await api.download('/api/client/accounts/peers/7');
    expect(await blob.text()).toContain('[Interface]');
    expect(calls[2]?.headers.get('Authorization')).toBe('Bearer a2');
  });

  it('ends the session when a download cannot be renewed', async () => {
    storeLoginTokens('a', 'r', true);
    stubFetch(
      () => jsonResponse(403, {}),
      () => jsonResponse(401, {}),
    );
    await expect(api.download('/api/client/accounts/peers/7')).rejects.toBeInstanceOf(ApiError);
    expect(getAccessToken()).toBeNull();
    expect(redirects).toEqual(['/login']);
  });

  it('shares one refresh between parallel failures, since a reused refresh token revokes the session', async () => {
    storeLoginTokens('a', 'r', true);
    let refreshes = 0;
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string, init: RequestInit = {}) => {
        if (url === '/api/refresh-token') {
          refreshes += 1;
          return jsonResponse(200, { access: 'a2', refresh: 'r2' });
        }
        const auth = new Headers(init.headers).get('Authorization');
        return auth === 'Bearer a2' ? jsonResponse(200, { url }) : jsonResponse(401, {});
      }),
    );

    const answers = await Promise.all([api.get('/api/client/a'), api.get('/api/client/b')]);
    expect(answers).toEqual([{ url: '/api/client/a' }, { url: '/api/client/b' }]);
    expect(refreshes).toBe(1);
  });

  it('does not refresh on public calls such as a failed login', async () => {
    const calls = stubFetch(() => jsonResponse(401, { message: 'Usuario o contraseña incorrectos.' }));
    const failure = api.post('/api/client/login', {}, { auth: false });
    await expect(failure).rejects.toMatchObject({ message: 'Usuario o contraseña incorrectos.' });
    expect(calls).toHaveLength(1);
    expect(redirects).toEqual([]);
  });

  it('reports 503 as maintenance', async () => {
    const seen: number[] = [];
    setMaintenanceHandler(() => seen.push(503));
    stubFetch(() => jsonResponse(503, { message: 'El servicio está en mantenimiento.', code: 'maintenance' }));
    await expect(api.get('/api/client/advertisements')).rejects.toMatchObject({ isMaintenance: true });
    expect(seen).toEqual([503]);
  });

  it('falls back to the caller text when the server sent no message', () => {
    expect(errorMessage(new ApiError(500, ''), 'Hubo un error al cargar los datos.')).toBe(
      'Hubo un error al cargar los datos.',
    );
    expect(errorMessage(new ApiError(409, 'Ya existe'), 'x')).toBe('Ya existe');
    expect(errorMessage(new TypeError('boom'), 'x')).toBe('x');
  });
});
