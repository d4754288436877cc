/** On a login page: why the previous session ended (blocked account, expired session), when the app sent us here. */
import { Alert } from '@mantine/core';
import { useLocation } from 'react-router';
import type { SessionEndedState } from '../../../lib/api';

export function SessionEndedNotice() {
  const state = useLocation().state as Partial<SessionEndedState> | null;
  if (typeof state?.reason !== 'string' || !state.reason) return null;
  return (
    <Alert color="orange" role="status" data-testid="session-ended">
      {state.reason}
    </Alert>
  );
}
