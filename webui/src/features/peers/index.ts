/** Peers feature entry: the router lazy-loads `PeersPage` from here (placeholder until the peers screen lands). */
export { PeersPage } from './components/PeersPage';
