/** The guarded area: verifies the session ('Verificando acceso') before the dashboard renders. */
import { Center, Loader, Stack, Text } from '@mantine/core';
import { useCallback, useEffect, useMemo, useState, type ReactNode } from 'react';
import { Navigate } from 'react-router';
import { SectionError } from '../../components/SectionError';
import { ApiError, errorMessage, getAccessToken } from '../../lib/api';
import { CurrentUserProvider, verifySession, type CurrentUser } from '../../lib/current-user';
import { toast } from '../../lib/toasts';
import { clearTokens, getRefreshToken } from '../../lib/tokens';

type SessionState =
  | { status: 'verifying' }
  | { status: 'ready'; user: CurrentUser }
  | { status: 'login' }
  | { status: 'maintenance' }
  | { status: 'error'; message: string };

function hasAnyToken(): boolean {
  return getAccessToken() !== null || getRefreshToken() !== null;
}

export function RequireSession({ children }: { children: ReactNode }) {
  const [state, setState] = useState<SessionState>(() => (hasAnyToken() ? { status: 'verifying' } : { status: 'login' }));
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    if (!hasAnyToken()) return;
    const controller = new AbortController();
    verifySession(controller.signal)
      .then((user) => setState({ status: 'ready', user }))
      .catch((error: unknown) => {
        if (controller.signal.aborted) return;
        if (error instanceof ApiError && error.status === 503) setState({ status: 'maintenance' });
        else if (error instanceof ApiError && (error.status === 401 || error.status === 403)) {
          // e.g. a staff account on the customer area: say why before showing the login again.
          if (error.message) toast.error(error.message);
          clearTokens();
          setState({ status: 'login' });
        } else setState({ status: 'error', message: errorMessage(error, 'Hubo un error al cargar los datos.') });
      });
    return () => controller.abort();
  }, [attempt]);

  const setUser = useCallback((user: CurrentUser) => setState({ status: 'ready', user }), []);
  const value = useMemo(() => (state.status === 'ready' ? { user: state.user, setUser } : null), [state, setUser]);

  if (state.status === 'login') return <Navigate to="/login" replace />;
  if (state.status === 'maintenance') return <Navigate to="/maintenance" replace />;
  if (state.status === 'error') {
    return (
      <Center mih="100vh" p="md">
        <SectionError
          message={state.message}
          onRetry={() => {
            setState({ status: 'verifying' });
            setAttempt((n) => n + 1);
          }}
        />
      </Center>
    );
  }
  if (!value) {
    return (
      <Center mih="100vh">
        <Stack align="center" gap="sm">
          <Loader />
          <Text>Verificando acceso</Text>
        </Stack>
      </Center>
    );
  }
  return <CurrentUserProvider value={value}>{children}</CurrentUserProvider>;
}
