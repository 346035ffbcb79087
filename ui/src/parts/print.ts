// Print layouts (../parts.ts).
export { PrintPage } from '../features/print/Print';
