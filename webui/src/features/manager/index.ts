/** Manager pages (`/manager/...`), loaded lazily by the router: none of this is in the landing bundle. */
import './mantine-styles';
export { ManagerLoginPage } from './components/ManagerLoginPage';
export { ManagerLayout } from './components/ManagerLayout';
export { OverviewPage } from './components/OverviewPage';
export { UsersPage } from './components/UsersPage';
export { ServersPage } from './components/ServersPage';
export { PeersPage as ManagerPeersPage } from './components/PeersPage';
export { PlansPage as ManagerPlansPage } from './components/PlansPage';
export { AnnouncementsPage } from './components/AnnouncementsPage';
export { SwitchesPage } from './components/SwitchesPage';
export { AuditPage } from './components/AuditPage';
export { InvoicesPage } from './components/InvoicesPage';
