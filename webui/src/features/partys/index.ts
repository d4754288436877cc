/** Rooms feature entry: the router lazy-loads `PartysPage` from here (placeholder until the rooms screen lands). */
export { PartysPage } from './components/PartysPage';
