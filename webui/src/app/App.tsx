/** App providers: Mantine theme, toasts (top-right, at most 20), public config, and the router. */
import './mantine-styles';
import { MantineProvider } from '@mantine/core';
import { Notifications } from '@mantine/notifications';
import { useEffect, useState } from 'react';
import { RouterProvider } from 'react-router';
import { setMaintenanceHandler, setSessionExpiredNavigator } from '../lib/api';
import { PublicConfigProvider, usePublicConfigState } from '../lib/public-config';
import { TOAST_LIMIT } from '../lib/toasts';
import { createAppRouter } from './router';
import { cssVariablesResolver, theme } from './theme';

function AppRouter() {
  const [router] = useState(createAppRouter);
  const { markMaintenance } = usePublicConfigState();
  useEffect(() => {
    setSessionExpiredNavigator((path, state) => void router.navigate(path, { replace: true, state }));
    setMaintenanceHandler(markMaintenance);
  }, [router, markMaintenance]);
  return <RouterProvider router={router} />;
}

export function App() {
  return (
    <MantineProvider theme={theme} cssVariablesResolver={cssVariablesResolver} defaultColorScheme="light">
      <Notifications position="top-right" limit={TOAST_LIMIT} />
      <PublicConfigProvider>
        <AppRouter />
      </PublicConfigProvider>
    </MantineProvider>
  );
}
