/** App providers: Mantine theme, toasts (top-right, at most 20), public config, and the router. */
import './mantine-styles';
import { MantineProvider } from '@mantine/core';
import { Notifications } from '@mantine/notifications';
import { useEffect } from 'react';
import { BrowserRouter } from 'react-router';
import { setMaintenanceHandler } from '../lib/api';
import { PublicConfigProvider, usePublicConfigState } from '../lib/public-config';
import { TOAST_LIMIT } from '../lib/toasts';
import { AppRoutes } from './router';
import { cssVariablesResolver, theme } from './theme';

function AppRouter() {
  const { markMaintenance } = usePublicConfigState();
  useEffect(() => setMaintenanceHandler(markMaintenance), [markMaintenance]);
  return (
    <BrowserRouter>
      <AppRoutes />
    </BrowserRouter>
  );
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
