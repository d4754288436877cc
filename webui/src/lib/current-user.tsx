/** The signed-in customer (`GET /api/client/verify-token`), shared by the dashboard shell and its sections. */
import { createContext, useContext, type ReactNode } from 'react';
import { api } from './api';

export interface WebSettings {
  allow_partys: boolean;
  allow_email: boolean;
}

export interface CurrentUser {
  username: string;
  alias: string | null;
  email: string | null;
  /** The address was confirmed through the emailed link (beyond the spec; docs/api.md). */
  email_verified?: boolean;
  web_settings: WebSettings;
}

export function verifySession(signal?: AbortSignal): Promise<CurrentUser> {
  return api.get<CurrentUser>('/api/client/verify-token', { signal });
}

interface CurrentUserContextValue {
  user: CurrentUser;
  /** Settings answers replace the current user (spec section 7). */
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
