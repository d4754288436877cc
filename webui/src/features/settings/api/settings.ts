/** Account settings calls: `PATCH /api/client/settings` (email, alias or password) and `DELETE` (remove email). */
import { api } from '../../../lib/api';
import type { CurrentUser } from '../../../lib/current-user';

export type SettingsChange = { email: string } | { alias: string } | { old_password: string; new_password: string };

export function updateSettings(change: SettingsChange): Promise<CurrentUser> {
  return api.patch<CurrentUser>('/api/client/settings', change);
}

export function removeEmail(): Promise<CurrentUser> {
  return api.delete<CurrentUser>('/api/client/settings');
}
