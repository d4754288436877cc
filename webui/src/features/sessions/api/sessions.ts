/** The account's open sessions (docs/api.md, "Sessions"): list them, close one, close all but this one. */
import type { MessageAnswer, SessionView, SessionsClosed } from '../../../api/types';
import { api } from '../../../lib/api';

export type { SessionView } from '../../../api/types';

const SESSIONS = '/api/client/sessions';

export function fetchSessions(signal?: AbortSignal): Promise<SessionView[]> {
  return api.get<SessionView[]>(SESSIONS, { signal });
}

/** Another session needs the account's password; the caller's own (a logout) needs none. */
export function closeSession(id: string, password?: string): Promise<MessageAnswer> {
  return api.delete<MessageAnswer>(`${SESSIONS}/${encodeURIComponent(id)}`, {}, password === undefined ? undefined : { password });
}

export function closeOtherSessions(password: string): Promise<SessionsClosed> {
  return api.post<SessionsClosed>(`${SESSIONS}/close-others`, { password });
}
