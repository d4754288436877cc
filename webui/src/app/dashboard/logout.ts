/** Ends the session on the server (`POST /api/logout`); the tokens are cleared whatever the answer. */
import { api } from '../../lib/api';
import { clearTokens, getRefreshToken } from '../../lib/tokens';

/** Resolves to false when the server call failed; the local session is gone either way. */
export async function logout(): Promise<boolean> {
  const refresh = getRefreshToken();
  try {
    await api.post('/api/logout', { refresh }, { auth: false });
    return true;
  } catch {
    return false;
  } finally {
    clearTokens();
  }
}
