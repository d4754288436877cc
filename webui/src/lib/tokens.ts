/** Session tokens: the access token and, when 'Recordarme' was ticked, the refresh token in localStorage. */

const ACCESS_KEY = 'access_token';
const REFRESH_KEY = 'refresh_token';

// A refresh token from a login without 'Recordarme' lives only in memory: the contract keeps it out of localStorage,
// yet holding it for the life of the tab lets the 15-minute access token be renewed until the page is closed.
let memoryRefresh: string | null = null;

function readStorage(key: string): string | null {
  try {
    return window.localStorage.getItem(key);
  } catch {
    return null;
  }
}

function writeStorage(key: string, value: string | null): void {
  try {
    if (value === null) window.localStorage.removeItem(key);
    else window.localStorage.setItem(key, value);
  } catch {
    // Storage can be unavailable (private mode, quota); the session then lasts as long as the page.
  }
}

/** The bearer token for authenticated calls (also used by the realtime socket's `token` query parameter). */
export function getAccessToken(): string | null {
  return readStorage(ACCESS_KEY);
}

export function getRefreshToken(): string | null {
  return readStorage(REFRESH_KEY) ?? memoryRefresh;
}

/** Stores the tokens of a fresh login; the refresh token reaches localStorage only when `remember` is true. */
export function storeLoginTokens(access: string, refresh: string, remember: boolean): void {
  writeStorage(ACCESS_KEY, access);
  if (remember) {
    writeStorage(REFRESH_KEY, refresh);
    memoryRefresh = null;
  } else {
    writeStorage(REFRESH_KEY, null);
    memoryRefresh = refresh;
  }
}

/** Stores rotated tokens where the previous refresh token was kept. */
export function storeRefreshedTokens(access: string, refresh: string): void {
  writeStorage(ACCESS_KEY, access);
  if (readStorage(REFRESH_KEY) !== null) writeStorage(REFRESH_KEY, refresh);
  else memoryRefresh = refresh;
}

export function clearTokens(): void {
  writeStorage(ACCESS_KEY, null);
  writeStorage(REFRESH_KEY, null);
  memoryRefresh = null;
}
