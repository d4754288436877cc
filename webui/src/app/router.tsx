/**
 * The one route table of the web client. Only the landing page is in the first bundle; the rest loads lazily.
 *
 * Declarative routes (`<BrowserRouter>` and `<Routes>`), not React Router's data router (`createBrowserRouter`):
 * the client uses no loaders, actions, fetchers or blockers, and the data router's code was 26 KB of the 135 KB
 * brotli `vendor` chunk every visitor downloads; declarative, React Router is 12 KB (docs/webui.md, "Routing").
 * Lazy pages are `React.lazy`; `<BrowserRouter>` moves between pages in a transition, so the page shown stays until
 * the next one's chunk has arrived, as the data router's lazy routes did.
 */
import { lazy, Suspense, useEffect, type ComponentType } from 'react';
import { createRoutesFromChildren, matchRoutes, Navigate, Route, Routes, useLocation, useNavigate } from 'react-router';
import { ErrorBoundary } from '../components/ErrorBoundary';
import { LoadingState } from '../components/LoadingState';
import { LandingPage } from '../features/landing/components/LandingPage';
import { setSessionExpiredNavigator } from '../lib/api';
import { RootLayout } from './RootLayout';

/** What loads each lazy page's chunk, by the page's element (for `preloadFirstPage`). */
const loaders = new Map<unknown, () => Promise<unknown>>();

/** A lazy page from a module and the name of the component it exports. */
function page<M>(load: () => Promise<M>, name: keyof M & string) {
  const Page = lazy(async () => ({ default: (await load())[name] as ComponentType }));
  const element = <Page />;
  loaders.set(element, load);
  return element;
}

const manager = () => import('../features/manager');
// Each page's element (not component) is made once: a `lazy()` made during a render would be a new component each time.
const publicPlansPage = page(() => import('../features/plans/components/PublicPlansPage'), 'PublicPlansPage');
const payForOtherPage = page(() => import('../features/plans/components/PayForOtherPage'), 'PayForOtherPage');
const claimPassPage = page(() => import('../features/rooms/components/ClaimPassPage'), 'ClaimPassPage');
const loginPage = page(() => import('../features/auth/components/LoginPage'), 'LoginPage');
const registerPage = page(() => import('../features/auth/components/RegisterPage'), 'RegisterPage');
const passwordRecoveryPage = page(() => import('../features/auth/components/PasswordRecoveryPage'), 'PasswordRecoveryPage');
const passwordResetPage = page(() => import('../features/auth/components/PasswordResetPage'), 'PasswordResetPage');
const verifyEmailPage = page(() => import('../features/auth/components/VerifyEmailPage'), 'VerifyEmailPage');
const maintenancePage = page(() => import('../features/maintenance/components/MaintenancePage'), 'MaintenancePage');
const dashboardLayout = page(() => import('./dashboard/DashboardLayout'), 'DashboardLayout');
const homePage = page(() => import('../features/home/components/HomePage'), 'HomePage');
const peersPage = page(() => import('../features/peers'), 'PeersPage');
const roomsPage = page(() => import('../features/rooms'), 'RoomsPage');
const dashboardPlansPage = page(() => import('../features/plans/components/DashboardPlansPage'), 'DashboardPlansPage');
const helpPage = page(() => import('../features/help/components/HelpPage'), 'HelpPage');
const settingsPage = page(() => import('../features/settings/components/SettingsPage'), 'SettingsPage');
const paymentResultPage = page(() => import('../features/payment/components/PaymentResultPage'), 'PaymentResultPage');
const invoicesPage = page(() => import('../features/invoices/components/InvoicesPage'), 'InvoicesPage');
const receiptPage = page(() => import('../features/invoices/components/ReceiptPage'), 'ReceiptPage');
const sessionsPage = page(() => import('../features/sessions/components/SessionsPage'), 'SessionsPage');
const managerLoginPage = page(manager, 'ManagerLoginPage');
const managerLayout = page(manager, 'ManagerLayout');
const overviewPage = page(manager, 'OverviewPage');
const usersPage = page(manager, 'UsersPage');
const serversPage = page(manager, 'ServersPage');
const managerPeersPage = page(manager, 'ManagerPeersPage');
const managerPlansPage = page(manager, 'ManagerPlansPage');
const managerInvoicesPage = page(manager, 'InvoicesPage');
const announcementsPage = page(manager, 'AnnouncementsPage');
const switchesPage = page(manager, 'SwitchesPage');
const auditPage = page(manager, 'AuditPage');
const notFoundPage = page(() => import('../features/not-found/components/NotFoundPage'), 'NotFoundPage');

/**
 * A page that failed to render or whose chunk failed to load: the 'Algo salió mal' panel. Retrying reloads the
 * whole page, which also fetches a chunk again after a deployment replaced it; moving to another page clears it.
 */
function RouteErrors({ children }: { children: React.ReactNode }) {
  const { pathname } = useLocation();
  const startPath = pathname.startsWith('/dashboard') ? '/dashboard/home' : '/';
  return (
    <ErrorBoundary startPath={startPath} resetKey={pathname} onRetry={() => window.location.reload()}>
      {children}
    </ErrorBoundary>
  );
}

/** Lets the API client send the customer to the login page when the session ends (src/lib/api.ts). */
function SessionExpiredNavigator() {
  const navigate = useNavigate();
  useEffect(() => {
    setSessionExpiredNavigator((path, state) => void navigate(path, { replace: true, state }));
  }, [navigate]);
  return null;
}

const routeTree = (
  <Route element={<RootLayout />}>
    <Route path="/" element={<LandingPage />} />
    <Route path="/plans" element={publicPlansPage} />
    <Route path="/pagar/:token" element={payForOtherPage} />
    <Route path="/pase/:token" element={claimPassPage} />
    <Route path="/login" element={loginPage} />
    <Route path="/register" element={registerPage} />
    <Route path="/password-recovery" element={passwordRecoveryPage} />
    <Route path="/password-reset" element={passwordResetPage} />
    <Route path="/verify-email" element={verifyEmailPage} />
    <Route path="/maintenance" element={maintenancePage} />
    <Route path="/dashboard" element={dashboardLayout}>
      <Route index element={<Navigate to="/dashboard/home" replace />} />
      <Route path="home" element={homePage} />
      <Route path="peers" element={peersPage} />
      <Route path="partys" element={roomsPage} />
      <Route path="plans" element={dashboardPlansPage} />
      <Route path="help" element={helpPage} />
      <Route path="settings" element={settingsPage} />
      <Route path="payment" element={paymentResultPage} />
      <Route path="invoices" element={invoicesPage} />
      <Route path="invoices/:remoteId" element={receiptPage} />
      <Route path="sessions" element={sessionsPage} />
    </Route>
    <Route path="/manager/login" element={managerLoginPage} />
    <Route path="/manager/dashboard" element={managerLayout}>
      <Route index element={overviewPage} />
      <Route path="users" element={usersPage} />
      <Route path="servers" element={serversPage} />
      <Route path="peers" element={managerPeersPage} />
      <Route path="plans" element={managerPlansPage} />
      <Route path="invoices" element={managerInvoicesPage} />
      <Route path="announcements" element={announcementsPage} />
      <Route path="switches" element={switchesPage} />
      <Route path="audit" element={auditPage} />
    </Route>
    <Route path="/manager" element={<Navigate to="/manager/dashboard" replace />} />
    <Route path="*" element={notFoundPage} />
  </Route>
);

/**
 * Starts loading the chunks of the page the browser opened, before the public configuration has answered:
 * `RootLayout` renders the page only after it, and `React.lazy` would ask for the chunk only then, one round trip
 * (about 300 ms on a Cuban mobile link) later than the data router's lazy routes did. The import is the same one
 * `React.lazy` makes later, so the chunk is fetched once.
 */
function preloadFirstPage() {
  for (const match of matchRoutes(createRoutesFromChildren(routeTree), window.location) ?? []) {
    void loaders.get(match.route.element)?.().catch(() => undefined); // a failure shows when the page renders
  }
}
preloadFirstPage();

export function AppRoutes() {
  return (
    <RouteErrors>
      <SessionExpiredNavigator />
      {/* Shown while the first page's lazy module loads. */}
      <Suspense fallback={<LoadingState />}>
        <Routes>{routeTree}</Routes>
      </Suspense>
    </RouteErrors>
  );
}
