/** The signed-in customer (`GET /api/client/verify-token`), shared by the dashboard shell and its sections. */
import { createContext, useContext, type ReactNode } from 'react';
import type { CurrentUser } from '../api/types';
import { api } from './api';

export type { CurrentUser, WebSettings } from '../api/types';

export function verifySession(signal?: AbortSignal): Promise<CurrentUser> {
  return api.get<CurrentUser>('/api/client/verify-token', { signal });
}

interface CurrentUserContextValue {
  user: CurrentUser;
  /** Settings answers replace the current user (docs/contract.md#current-user). */
  setUser: (user: CurrentUser) => void;
}

const CurrentUserContext = createContext<CurrentUserContextValue | null>(null);

export function CurrentUserProvider({ value, children }: { value: CurrentUserContextValue; children: ReactNode }) {
  return <CurrentUserContext.Provider value={value}>{children}</CurrentUserContext.Provider>;
}

export function useCurrentUser(): CurrentUserContextValue {
  const value = useContext(CurrentUserContext);
  if (!value) throw new Error('useCurrentUser outside the dashboard');
  return value;
}
