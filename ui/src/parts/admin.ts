// Platform administration and the personal page (../parts.ts).
export { DictPage } from '../features/admin/DictPage';
export { UserPage } from '../features/admin/UserPage';
export { RolePage, MenuPage, DeptPage, TenantPage } from '../features/admin/pages';
export { StatusPage } from '../features/monitor/StatusPage';
export { InfoPage } from '../features/info/InfoPage';
