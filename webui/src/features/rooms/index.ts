/** Rooms feature entry: the router lazy-loads `RoomsPage` from here. */
export { RoomsPage } from './components/RoomsPage';
