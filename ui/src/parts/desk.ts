// The desk and console (their charts and the map), fetched when a page needs them (../parts.ts).
export { Welcome } from '../features/desk/Welcome';
export { Dashboard } from '../features/desk/Dashboard';
export { MessagesPage } from '../features/desk/Messages';
