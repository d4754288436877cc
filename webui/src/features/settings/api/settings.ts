/** Account settings calls: `PATCH /api/client/settings` (email, alias or password), `DELETE` (remove email) and
 * deleting the account. */
import { api } from '../../../lib/api';
import type { CurrentUser } from '../../../lib/current-user';

export type SettingsChange = { email: string } | { alias: string } | { old_password: string; new_password: string };

export function updateSettings(change: SettingsChange): Promise<CurrentUser> {
  return api.patch<CurrentUser>('/api/client/settings', change);
}

export function removeEmail(): Promise<CurrentUser> {
  return api.delete<CurrentUser>('/api/client/settings');
}

/** `POST /api/client/settings/delete-account`: deletes the caller's own account; the password confirms it. */
export function deleteAccount(password: string): Promise<{ success: boolean; message: string }> {
  return api.post<{ success: boolean; message: string }>('/api/client/settings/delete-account', { password });
}
