/** Owns the one live socket: opens it on live pages with a token, shows the generic toasts, fans messages out. */
import { createContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { useLocation } from 'react-router';
import { api } from '../../lib/api';
import { LiveSocket, isLivePage, type PushMessage } from '../../lib/socket';
import { toast } from '../../lib/toasts';
import { getAccessToken } from '../../lib/tokens';
import { PUSH_ERROR_FALLBACK } from './messages';

type Listener = (message: PushMessage) => void;

/** Stable across renders, so subscribers do not re-render on every message. */
export const PushSubscriptionContext = createContext<((listener: Listener) => () => void) | null>(null);
/** The latest message received on the current page (null after every route change). */
export const LatestPushMessageContext = createContext<PushMessage | null>(null);

function showGenericToast(message: PushMessage): void {
  if (message.type === 'error') toast.error(message.message || PUSH_ERROR_FALLBACK);
  else if (message.type === 'success' && message.message) toast.success(message.message);
  else if (message.type === 'info' && message.message) toast.info(message.message);
}

/** Asks the API client to check (and so renew) the session after the socket's token was refused. */
async function renewSession(pathname: string): Promise<boolean> {
  const path = pathname.startsWith('/manager') ? '/api/admin/verify-token' : '/api/client/verify-token';
  try {
    await api.get(path);
    return getAccessToken() !== null;
  } catch {
    return false;
  }
}

export function RealtimeProvider({ children }: { children: ReactNode }) {
  const { pathname, key: locationKey } = useLocation();
  const pathnameRef = useRef(pathname);
  pathnameRef.current = pathname;
  const locationKeyRef = useRef(locationKey);
  locationKeyRef.current = locationKey;
  const listeners = useRef(new Set<Listener>());
  // Remember at which navigation a message arrived: after any route change it reads as null (spec section 4).
  const [latest, setLatest] = useState<{ locationKey: string; message: PushMessage } | null>(null);

  const [socket] = useState(
    () =>
      new LiveSocket({
        getToken: getAccessToken,
        onMessage: (message) => {
          showGenericToast(message);
          for (const listener of [...listeners.current]) listener(message);
          setLatest({ locationKey: locationKeyRef.current, message });
        },
        onAuthRejected: () => renewSession(pathnameRef.current),
      }),
  );

  const live = isLivePage(pathname);
  useEffect(() => {
    if (live && getAccessToken()) socket.start();
    else socket.stop();
  }, [socket, live, pathname]);

  useEffect(() => () => socket.stop(), [socket]);

  const subscribe = useMemo(
    () => (listener: Listener) => {
      listeners.current.add(listener);
      return () => {
        listeners.current.delete(listener);
      };
    },
    [],
  );
  const current = latest?.locationKey === locationKey ? latest.message : null;

  return (
    <PushSubscriptionContext.Provider value={subscribe}>
      <LatestPushMessageContext.Provider value={current}>{children}</LatestPushMessageContext.Provider>
    </PushSubscriptionContext.Provider>
  );
}
