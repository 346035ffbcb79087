// The generic list screen with its forms and imports (../parts.ts).
export { ListPage } from '../features/crud/ListPage';
