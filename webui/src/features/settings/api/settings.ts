/** Account settings calls: `PATCH /api/client/settings` (email, alias or password), `DELETE` (remove email) and
 * deleting the account. */
import type { DeleteAccountRequest, MessageAnswer, SettingsAnswer, SettingsPatch } from '../../../api/types';
import { api } from '../../../lib/api';

/** One change at a time: the email, the alias, or the password (the current one confirms it). */
export type SettingsChange = Required<Pick<SettingsPatch, 'email'>> | Required<Pick<SettingsPatch, 'alias'>> | Required<Pick<SettingsPatch, 'old_password' | 'new_password'>>;

export function updateSettings(change: SettingsChange): Promise<SettingsAnswer> {
  return api.patch<SettingsAnswer>('/api/client/settings', change);
}

export function removeEmail(): Promise<SettingsAnswer> {
  return api.delete<SettingsAnswer>('/api/client/settings');
}

/** `POST /api/client/settings/delete-account`: deletes the caller's own account; the password confirms it. */
export function deleteAccount(password: string): Promise<MessageAnswer> {
  return api.post<MessageAnswer>('/api/client/settings/delete-account', { password } satisfies DeleteAccountRequest);
}
