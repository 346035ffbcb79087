// The desk and console (their charts and the map), fetched when a page needs them (../parts.ts). 站内消息's page
// is the frame's (the bell shares its code).
export { Welcome } from '../features/desk/Welcome';
export { Dashboard } from '../features/desk/Dashboard';
