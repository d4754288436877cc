/** Rooms feature entry: the router lazy-loads `PartysPage` from here. */
export { PartysPage } from './components/PartysPage';
