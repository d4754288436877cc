/** Peers feature entry: the router lazy-loads `PeersPage` from here. */
export { PeersPage } from './components/PeersPage';
