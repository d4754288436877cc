/** Hooks through which features receive push messages from the live socket. */
import { useContext, useEffect, useRef } from 'react';
import type { PushMessage, SocketStatus } from '../../lib/socket';
import type { PushOf, PushType } from './messages';
import {
  LatestPushMessageContext,
  PushSubscriptionContext,
  SocketOpenedContext,
  SocketStatusContext,
} from './RealtimeProvider';

/**
 * Calls `handler` for every message of the given type(s) while the component is mounted, typed as the OpenAPI
 * document declares that type: the server is trusted to follow it, the way `api.get<T>` trusts an answer.
 */
export function usePushMessage<T extends PushType>(types: T | readonly T[], handler: (message: PushOf<T>) => void): void {
  const subscribe = useContext(PushSubscriptionContext);
  if (!subscribe) throw new Error('usePushMessage outside RealtimeProvider');
  // The latest handler is called without making callers memoise it.
  const handlerRef = useRef(handler);
  handlerRef.current = handler;
  const key = typeof types === 'string' ? types : types.join(' ');

  useEffect(() => {
    const wanted = new Set(key.split(' '));
    return subscribe((message) => {
      if (wanted.has(message.type)) handlerRef.current(message as PushOf<T>);
    });
  }, [subscribe, key]);
}

/** The latest message received on this page, or null (cleared on every route change). */
export function useLatestPushMessage(): PushMessage | null {
  return useContext(LatestPushMessageContext);
}

/**
 * Calls `handler` every time the socket opens, the first time included: pushes sent while it was not open are lost,
 * so what they may have changed is fetched again.
 */
export function useSocketOpened(handler: () => void): void {
  const subscribe = useContext(SocketOpenedContext);
  if (!subscribe) throw new Error('useSocketOpened outside RealtimeProvider');
  const handlerRef = useRef(handler);
  handlerRef.current = handler;
  useEffect(() => subscribe(() => handlerRef.current()), [subscribe]);
}

/** The socket's state: busy screens poll while it is not `open` (docs/webui.md, live socket). */
export function useSocketStatus(): SocketStatus {
  return useContext(SocketStatusContext);
}
