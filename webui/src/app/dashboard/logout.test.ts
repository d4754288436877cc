import { afterEach, describe, expect, it, vi } from 'vitest';
import { storeLoginTokens } from '../../lib/tokens';
import { logout } from './logout';

afterEach(() => vi.unstubAllGlobals());

describe('logout', () => {
  it('clears both tokens even when the server call fails', async () => {
    storeLoginTokens('acc', 'ref', true);
    const fetchMock = vi.fn(async () => {
      throw new TypeError('network down');
    });
    vi.stubGlobal('fetch', fetchMock);

    await expect(logout()).resolves.toBe(false);
    expect(window.localStorage.getItem('access_token')).toBeNull();
    expect(window.localStorage.getItem('refresh_token')).toBeNull();
    const [url, init] = fetchMock.mock.calls[0] as unknown as [string, RequestInit];
    expect(url).toBe('/api/logout');
    expect(JSON.parse(init.body as string)).toEqual({ refresh: 'ref' });
  });
});
