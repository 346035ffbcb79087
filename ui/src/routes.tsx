// The one route table (SPEC §2). Pages are thin: each entry maps a URL pattern to a feature.
// Any other path is the generic list screen when the server sent a list page, a menu page
// placeholder when it is in the user's menus, otherwise /404.
import type { ReactNode } from 'react';
import { parse } from 'regexparam';
import type { Props } from './types';
import { LoginPage } from './features/auth/LoginPage';
import { LockPage } from './features/auth/LockPage';
import { PasswordPage } from './features/auth/PasswordPage';
import { ErrorPage } from './features/errors/ErrorPage';
import { leaves } from './lib/menu';
import type { PartName, Parts } from './parts';
import { PartView } from './components/PartView';

/** A screen of a part: rendered from the part once it is here (see parts.ts). */
const inPart = <K extends PartName>(part: K, view: (m: Parts[K]) => ReactNode) => <PartView part={part} view={view as (m: any) => ReactNode} />;

/** Administration screens specialised beyond the generic list (SPEC §2, §7); shown when the path is in the user's menus. */
type Screen = { part: PartName; render: () => ReactNode };
const screen = <K extends PartName>(part: K, view: (m: Parts[K]) => ReactNode): Screen => ({ part, render: () => inPart(part, view) });

export const ADMIN_SCREENS: Record<string, Screen> = {
  '/system/dict': screen('admin', (m) => <m.DictPage biz={false} />),
  '/system/dictbiz': screen('admin', (m) => <m.DictPage biz />),
  '/system/user': screen('admin', (m) => <m.UserPage />),
  '/authority/role': screen('admin', (m) => <m.RolePage />),
  '/system/menu': screen('admin', (m) => <m.MenuPage />),
  '/system/dept': screen('admin', (m) => <m.DeptPage />),
  '/system/tenant': screen('admin', (m) => <m.TenantPage />),
  '/monitor/status': screen('admin', (m) => <m.StatusPage />),
  '/work/start': screen('flow', (m) => <m.WorkList mode="start" />),
  '/work/claim': screen('flow', (m) => <m.WorkList mode="claim" />),
  '/work/todo': screen('flow', (m) => <m.WorkList mode="todo" />),
  '/work/send': screen('flow', (m) => <m.WorkList mode="send" />),
  '/work/done': screen('flow', (m) => <m.WorkList mode="done" />),
  '/flow/model': screen('flow', (m) => <m.ModelPage />),
  '/finance/receivables': screen('finance', (m) => <m.ReceivablesPage />),
  '/productCategory/index': screen('scm', (m) => <m.CategoryTree />),
  '/flow/deploy': screen('flow', (m) => <m.ManagerPage />),
  '/flow/manager': screen('flow', (m) => <m.ManagerPage />),
  '/flow/follow': screen('flow', (m) => <m.FollowPage />),
  '/approval/index': screen('flow', (m) => <m.ApprovalTasks />),
  '/approval/file': screen('flow', (m) => <m.ApprovalFiles />),
  '/approval/record': screen('flow', (m) => <m.ApprovalRecords />),
};

export type RouteDef = {
  path: string;
  /** Reachable without a token (SPEC §2 "routes without authentication"). */
  public?: boolean;
  /** i18n key of the tag label. */
  title?: string;
  /** HTTP status the server should answer with. */
  status?: number;
  /** The part its screen is in (fetched before the page shows: parts.ts). */
  part?: PartName;
  /** Shown in the signed-in frame (the `layout` part). */
  layout?: boolean;
  render: (params: Record<string, string>) => ReactNode;
};

const main = (title: string, node: ReactNode) => inPart('layout', (m) => <m.MainLayout title={title}>{node}</m.MainLayout>);
const placeholder = (title: string) => (p: Record<string, string>) => inPart('layout', (m) => <m.MainLayout title={title}><m.Placeholder title={title} params={p} /></m.MainLayout>);
/** A signed-in page whose screen is in `part`. */
const on = <K extends PartName>(path: string, title: string, part: K, view: (m: Parts[K], p: Record<string, string>) => ReactNode): RouteDef =>
  ({ path, title, part, layout: true, render: (p) => main(title, inPart(part, (m) => view(m, p))) });

export const routes: RouteDef[] = [
  { path: '/login', public: true, render: () => <LoginPage /> },
  { path: '/lock', public: true, render: () => <LockPage /> },
  { path: '/password', render: () => <PasswordPage /> },
  { path: '/404', public: true, status: 404, render: () => <ErrorPage code={404} /> },
  { path: '/403', public: true, status: 403, render: () => <ErrorPage code={403} /> },
  { path: '/500', public: true, status: 500, render: () => <ErrorPage code={500} /> },
  on('/wel/index', 'menu.wel', 'desk', (m) => <m.Welcome />),
  on('/wel/dashboard', 'menu.dashboard', 'desk', (m) => <m.Dashboard />),
  on('/info/index', 'menu.info', 'admin', (m) => <m.InfoPage />),
  on('/desk/message', 'menu.messages', 'layout', (m) => <m.MessagesPage />),
  { path: '/test/index', title: 'menu.test', layout: true, render: placeholder('menu.test') },
  on('/worklist/addworklist', 'menu.addworklist', 'worklist', (m) => <m.AddWorkOrder />),
  on('/worklist/view/:orderNo', 'menu.workOrder', 'worklist', (m, p) => <m.WorkOrderDetail no={p.orderNo} />),
  { path: '/myiframe/:routerPath*', title: 'menu.iframe', layout: true, render: () => inPart('layout', (m) => <m.MainLayout title="menu.iframe"><m.FramePage /></m.MainLayout>) },
  on('/approval/detail', 'menu.approvalDetail', 'flow', (m) => <m.ApprovalDetail />),
  on('/process/detail/:constructCode', 'menu.processDetail', 'scm', (m, p) => <m.ProcessDetail code={p.constructCode} />),
  on('/finance/contractLedger/detail', 'menu.ledgerDetail', 'finance', (m) => <m.LedgerDetail />),
  on('/bim/projectcost/detail/:projectId', 'menu.costDetail', 'finance', (m, p) => <m.CostPage projectId={p.projectId} />),
  on('/replay/detail/:replayCode', 'menu.replayDetail', 'scm', (m, p) => <m.ReplayDetail code={p.replayCode} />),
  // Print layouts: a page of their own (no menu or header), signed in.
  { path: '/print/:kind/:no', title: 'menu.print', part: 'print', render: (p) => inPart('print', (m) => <m.PrintPage kind={p.kind} no={p.no} />) },
  on('/contract/detail/:contractCode', 'menu.contractDetail', 'scm', (m, p) => <m.ContractDetail code={p.contractCode} />),
  on('/project/detail/:projectCode', 'menu.projectDetail', 'scm', (m, p) => <m.ProjectDetail code={p.projectCode} />),
  on('/wms/order/rk/detail/:orderNo', 'menu.rkDetail', 'wms', (m, p) => <m.InboundDetail no={p.orderNo} />),
  on('/wms/order/ck/detail/:orderNo', 'menu.ckDetail', 'wms', (m, p) => <m.OutboundDetail no={p.orderNo} />),
  on('/wms/stock/card/:goodsId', 'menu.stockCard', 'wms', (m, p) => <m.StockCard goodsId={p.goodsId} />),
  on('/wms/stock/count', 'menu.stockCount', 'wms', (m) => <m.StockCount />),
  on('/work/process/leave', 'menu.leave', 'flow', (m) => <m.LeaveList />),
  on('/work/process/leave/form/:processDefinitionId', 'menu.leaveForm', 'flow', (m, p) => <m.LeaveForm processId={p.processDefinitionId} />),
  on('/work/process/flow/form/:processDefinitionId', 'menu.flowStart', 'flow', (m, p) => <m.StartForm processId={p.processDefinitionId} />),
  on('/work/process/:kind/handle/:taskId/:processInstanceId/:businessId?', 'menu.flowHandle', 'flow', (m, p) => <m.HandleTask kind={p.kind} taskId={p.taskId} instanceId={p.processInstanceId} businessId={p.businessId ?? '0'} />),
  on('/work/process/:kind/detail/:processInstanceId/:businessId?', 'menu.flowDetail', 'flow', (m, p) => <m.FlowDetail kind={p.kind} instanceId={p.processInstanceId} businessId={p.businessId ?? '0'} />),
  on('/construct/info/:constructCode?/:edit?/:tagname?', 'menu.constructInfo', 'scm', (m, p) => <m.ConstructInfo code={p.constructCode} edit={p.edit} tag={p.tagname} />),
];

const compiled = routes.map((r) => ({ r, ...parse(r.path) }));
const notFound = routes.find((r) => r.path === '/404')!;
const forbidden = routes.find((r) => r.path === '/403')!;
const REDIRECTS: Record<string, string> = { '/': '/wel/index', '/wel': '/wel/index' };

export type Match = { route: RouteDef; params: Record<string, string>; redirect?: string };

export function matchRoute(path: string, props: Props): Match {
  const clean = path.length > 1 ? path.replace(/\/+$/, '') : path;
  if (REDIRECTS[clean]) return { route: notFound, params: {}, redirect: REDIRECTS[clean] };
  for (const c of compiled) {
    const m = c.pattern.exec(clean);
    if (m) {
      const params: Record<string, string> = {};
      c.keys.forEach((k, i) => { if (m[i + 1] !== undefined) params[k] = decodeURIComponent(m[i + 1]); });
      return { route: c.r, params };
    }
  }
  // Menu-declared pages: the generic list screen, or a placeholder the business issues fill.
  const menu = leaves(props.menus).find((m) => m.path === clean);
  const admin = ADMIN_SCREENS[clean];
  if (admin && menu) return { route: { path: clean, title: menu.name, part: admin.part, layout: true, render: () => main(menu.name, admin.render()) }, params: {} };
  if (props.page.kind === 'list') {
    const title = menu?.name ?? (props.locale === 'en' ? (props.page as any).resource.labelEn : (props.page as any).resource.label);
    return { route: { path: clean, title, part: 'crud', layout: true, render: () => main(title, inPart('crud', (m) => <m.ListPage />)) }, params: {} };
  }
  if (menu) return { route: { path: clean, title: menu.name, layout: true, render: () => inPart('layout', (m) => <m.MainLayout title={menu.name}><m.Placeholder title={menu.name} params={{}} /></m.MainLayout>) }, params: {} };
  // Signed out, the user's menus are unknown: a path that is some screen asks for sign-in first; any other
  // path is /404 at once (SPEC §2: any unknown path goes to /404). Signed in, a screen of the product outside his
  // menus is one he may not open: 403, not 页面不存在.
  if (props.user) return { route: props.knownPath ? forbidden : notFound, params: {} };
  return { route: props.knownPath ? { ...notFound, public: false } : notFound, params: {} };
}

/** The parts a page needs (fetched before it shows). */
export const partsOf = (path: string, props: Props): PartName[] => {
  const { route } = matchRoute(path, props);
  return [...(route.layout ? ['layout' as const] : []), ...(route.part ? [route.part] : [])];
};
