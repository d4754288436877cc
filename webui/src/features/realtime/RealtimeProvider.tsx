/**
 * Owns the one live socket: opens it on live pages with a token, shows the generic toasts and the connection state,
 * fans messages out, and tells subscribers each time it (re)opens so they refetch what pushes may have missed.
 */
import { createContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { useLocation } from 'react-router';
import { api } from '../../lib/api';
import { LiveSocket, isLivePage, type PushMessage, type SocketStatus } from '../../lib/socket';
import { toast } from '../../lib/toasts';
import { getAccessToken } from '../../lib/tokens';
import { PUSH_ERROR_FALLBACK } from './messages';
import { RealtimeStatusNotice } from './RealtimeStatusNotice';
import { useDocumentVisible } from './use-document-visible';

type Listener = (message: PushMessage) => void;
type OpenListener = () => void;

/** Stable across renders, so subscribers do not re-render on every message. */
export const PushSubscriptionContext = createContext<((listener: Listener) => () => void) | null>(null);
/** The latest message received on the current page (null after every route change). */
export const LatestPushMessageContext = createContext<PushMessage | null>(null);
/** Subscribes to every (re)opening of the socket. */
export const SocketOpenedContext = createContext<((listener: OpenListener) => () => void) | null>(null);
/** Whether pushes can arrive now (docs/webui.md, live socket). */
export const SocketStatusContext = createContext<SocketStatus>({ state: 'closed' });

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
  const openListeners = useRef(new Set<OpenListener>());
  const [status, setStatus] = useState<SocketStatus>({ state: 'closed' });
  // Remember at which navigation a message arrived: after any route change it reads as null (docs/contract.md#socket).
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
        onOpen: () => {
          for (const listener of [...openListeners.current]) listener();
        },
        onStatus: setStatus,
      }),
  );

  const live = isLivePage(pathname);
  useEffect(() => {
    if (live && getAccessToken()) socket.start();
    else socket.stop();
  }, [socket, live, pathname]);

  useEffect(() => () => socket.stop(), [socket]);

  // A hidden tab costs no data: the server holds its live figures until it is shown (docs/webui.md, live socket).
  const visible = useDocumentVisible();
  useEffect(() => socket.setHidden(!visible), [socket, visible]);

  const subscribe = useMemo(
    () => (listener: Listener) => {
      listeners.current.add(listener);
      return () => {
        listeners.current.delete(listener);
      };
    },
    [],
  );
  const subscribeOpened = useMemo(
    () => (listener: OpenListener) => {
      openListeners.current.add(listener);
      return () => {
        openListeners.current.delete(listener);
      };
    },
    [],
  );
  const current = latest?.locationKey === locationKey ? latest.message : null;

  return (
    <PushSubscriptionContext.Provider value={subscribe}>
      <SocketOpenedContext.Provider value={subscribeOpened}>
        <SocketStatusContext.Provider value={status}>
          <LatestPushMessageContext.Provider value={current}>
            {children}
            {live && <RealtimeStatusNotice status={status} />}
          </LatestPushMessageContext.Provider>
        </SocketStatusContext.Provider>
      </SocketOpenedContext.Provider>
    </PushSubscriptionContext.Provider>
  );
}
