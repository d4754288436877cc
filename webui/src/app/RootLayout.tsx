/** Root of every route: waits for the public config, then applies the guest gate before showing the page. */
import { Button, Center, Loader, Stack, Text } from '@mantine/core';
import { Navigate, Outlet, useLocation } from 'react-router';
import { RealtimeProvider } from '../features/realtime';
import { usePublicConfigState } from '../lib/public-config';
import { guestGateRedirect } from './guest-gate';

export function RootLayout() {
  const { state, reload } = usePublicConfigState();
  const { pathname } = useLocation();

  if (state.status === 'loading') {
    return (
      <Center mih="100vh">
        <Loader aria-label="Cargando" />
      </Center>
    );
  }
  if (state.status === 'error') {
    return (
      <Center mih="100vh">
        <Stack align="center">
          <Text>{state.message || 'Hubo un error al cargar los datos.'}</Text>
          <Button onClick={() => void reload()}>Reintentar</Button>
        </Stack>
      </Center>
    );
  }

  const target = guestGateRedirect(pathname, state.status === 'maintenance' ? 'maintenance' : state.config);
  if (target !== null && target !== pathname) return <Navigate to={target} replace />;
  // A 503 on the config load leaves no config: only /maintenance can be shown then.
  if (state.status === 'maintenance' && pathname !== '/maintenance') return <Navigate to="/maintenance" replace />;
  // One live socket for the whole app: it opens itself only on the pages that use it (docs/contract.md#socket).
  return (
    <RealtimeProvider>
      <Outlet />
    </RealtimeProvider>
  );
}
