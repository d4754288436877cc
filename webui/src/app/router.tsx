/** The one route table of the web client. Only the landing page is in the first bundle; the rest loads lazily. */
import { Navigate, createBrowserRouter, type RouteObject } from 'react-router';
import { LoadingState } from '../components/LoadingState';
import { LandingPage } from '../features/landing/components/LandingPage';
import { RootLayout } from './RootLayout';
import { RouteErrorPage } from './RouteErrorPage';

/** Builds a lazy route from a module and the name of the component it exports. */
function page<M>(load: () => Promise<M>, name: keyof M & string): Pick<RouteObject, 'lazy'> {
  return {
    lazy: async () => {
      const module = await load();
      return { Component: module[name] as React.ComponentType };
    },
  };
}

export const routes: RouteObject[] = [
  {
    element: <RootLayout />,
    errorElement: <RouteErrorPage />,
    // Shown while the first page's lazy module loads (without it the screen stays blank and React Router warns).
    hydrateFallbackElement: <LoadingState />,
    children: [
      { path: '/', element: <LandingPage /> },
      { path: '/plans', ...page(() => import('../features/plans/components/PublicPlansPage'), 'PublicPlansPage') },
      { path: '/pagar/:token', ...page(() => import('../features/plans/components/PayForOtherPage'), 'PayForOtherPage') },
      { path: '/pase/:token', ...page(() => import('../features/rooms/components/ClaimPassPage'), 'ClaimPassPage') },
      { path: '/login', ...page(() => import('../features/auth/components/LoginPage'), 'LoginPage') },
      { path: '/register', ...page(() => import('../features/auth/components/RegisterPage'), 'RegisterPage') },
      {
        path: '/password-recovery',
        ...page(() => import('../features/auth/components/PasswordRecoveryPage'), 'PasswordRecoveryPage'),
      },
      {
        path: '/password-reset',
        ...page(() => import('../features/auth/components/PasswordResetPage'), 'PasswordResetPage'),
      },
      { path: '/verify-email', ...page(() => import('../features/auth/components/VerifyEmailPage'), 'VerifyEmailPage') },
      {
        path: '/maintenance',
        ...page(() => import('../features/maintenance/components/MaintenancePage'), 'MaintenancePage'),
      },
      {
        path: '/dashboard',
        ...page(() => import('./dashboard/DashboardLayout'), 'DashboardLayout'),
        errorElement: <RouteErrorPage />,
        children: [
          { index: true, element: <Navigate to="/dashboard/home" replace /> },
          { path: 'home', ...page(() => import('../features/home/components/HomePage'), 'HomePage') },
          { path: 'peers', ...page(() => import('../features/peers'), 'PeersPage') },
          { path: 'partys', ...page(() => import('../features/rooms'), 'RoomsPage') },
          { path: 'plans', ...page(() => import('../features/plans/components/DashboardPlansPage'), 'DashboardPlansPage') },
          { path: 'help', ...page(() => import('../features/help/components/HelpPage'), 'HelpPage') },
          { path: 'settings', ...page(() => import('../features/settings/components/SettingsPage'), 'SettingsPage') },
          { path: 'payment', ...page(() => import('../features/payment/components/PaymentResultPage'), 'PaymentResultPage') },
          { path: 'invoices', ...page(() => import('../features/invoices/components/InvoicesPage'), 'InvoicesPage') },
          {
            path: 'invoices/:remoteId',
            ...page(() => import('../features/invoices/components/ReceiptPage'), 'ReceiptPage'),
          },
          { path: 'sessions', ...page(() => import('../features/sessions/components/SessionsPage'), 'SessionsPage') },
        ],
      },
      { path: '/manager/login', ...page(() => import('../features/manager'), 'ManagerLoginPage') },
      {
        path: '/manager/dashboard',
        ...page(() => import('../features/manager'), 'ManagerLayout'),
        errorElement: <RouteErrorPage />,
        children: [
          { index: true, ...page(() => import('../features/manager'), 'OverviewPage') },
          { path: 'users', ...page(() => import('../features/manager'), 'UsersPage') },
          { path: 'servers', ...page(() => import('../features/manager'), 'ServersPage') },
          { path: 'peers', ...page(() => import('../features/manager'), 'ManagerPeersPage') },
          { path: 'plans', ...page(() => import('../features/manager'), 'ManagerPlansPage') },
          { path: 'invoices', ...page(() => import('../features/manager'), 'InvoicesPage') },
          { path: 'announcements', ...page(() => import('../features/manager'), 'AnnouncementsPage') },
          { path: 'switches', ...page(() => import('../features/manager'), 'SwitchesPage') },
          { path: 'audit', ...page(() => import('../features/manager'), 'AuditPage') },
        ],
      },
      { path: '/manager', element: <Navigate to="/manager/dashboard" replace /> },
      { path: '*', ...page(() => import('../features/not-found/components/NotFoundPage'), 'NotFoundPage') },
    ],
  },
];

export function createAppRouter() {
  return createBrowserRouter(routes);
}
