/** The fallback for busy screens: poll while something runs and no push arrived lately (docs/webui.md). */
import { useEffect, useRef } from 'react';
import type { PushType } from './messages';
import { isDocumentVisible } from './use-document-visible';
import { usePushMessage } from './use-push-message';

/** How long a busy screen waits for a push before it asks the server itself, and then how often it asks. */
export const BUSY_POLL_MS = 3000;

/**
 * While `busy`, calls `poll` every BUSY_POLL_MS unless one of `types` arrived in the last BUSY_POLL_MS: a push may
 * never come (socket blocked, dropped, or reconnecting), and the server answered long ago. Not while the tab is
 * hidden: nobody looks, and the first poll after it is shown again catches up.
 */
export function useBusyPolling(busy: boolean, types: readonly PushType[], poll: () => Promise<void> | void): void {
  const lastPush = useRef(0);
  const pollRef = useRef(poll);
  pollRef.current = poll;
  usePushMessage(types, () => {
    lastPush.current = Date.now();
  });

  useEffect(() => {
    if (!busy) return undefined;
    let inFlight = false;
    const timer = setInterval(() => {
      if (inFlight || !isDocumentVisible() || Date.now() - lastPush.current < BUSY_POLL_MS) return;
      inFlight = true;
      void Promise.resolve(pollRef.current()).finally(() => {
        inFlight = false;
      });
    }, BUSY_POLL_MS);
    return () => clearInterval(timer);
  }, [busy]);
}
