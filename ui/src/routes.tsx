// The one route table (SPEC §2). Pages are thin: each entry maps a URL pattern to a feature.
// Any other path is the generic list screen when the server sent a list page, a menu page
// placeholder when it is in the user's menus, otherwise /404.
import type { ReactNode } from 'react';
import { parse } from 'regexparam';
import type { Props } from './types';
import { LoginPage } from './features/auth/LoginPage';
import { LockPage } from './features/auth/LockPage';
import { ErrorPage } from './features/errors/ErrorPage';
import { MainLayout } from './features/layout/MainLayout';
import { ListPage } from './features/crud/ListPage';
import { Welcome } from './features/desk/Welcome';
import { Dashboard } from './features/desk/Dashboard';
import { MessagesPage } from './features/desk/Messages';
import { PrintPage } from './features/print/Print';
import { InfoPage } from './features/info/InfoPage';
import { Placeholder, FramePage } from './features/misc/Placeholder';
import { leaves } from './lib/menu';
import { DictPage } from './features/admin/DictPage';
import { UserPage } from './features/admin/UserPage';
import { RolePage, MenuPage, DeptPage, TenantPage } from './features/admin/pages';
import { StatusPage } from './features/monitor/StatusPage';
import { ProjectDetail, ContractDetail } from './features/scm/ProjectDetail';
import { ProcessDetail } from './features/scm/Site';
import { ConstructInfo } from './features/scm/Construct';
import { ReplayDetail } from './features/scm/Replay';
import { CategoryTree } from './features/scm/Categories';
import { LedgerDetail, ReceivablesPage } from './features/finance/Ledger';
import { CostPage } from './features/finance/Cost';
import { AddWorkOrder, WorkOrderDetail } from './features/worklist/WorkOrders';
import { InboundDetail, OutboundDetail, StockCard } from './features/wms/Orders';
import { WorkList, HandleTask, ProcessDetail as FlowDetail, LeaveForm, LeaveList, StartForm } from './features/flow/Work';
import { ModelPage, ManagerPage, FollowPage } from './features/flow/Admin';
import { ApprovalTasks, ApprovalDetail, ApprovalFiles, ApprovalRecords } from './features/flow/Approval';

/** Administration screens specialised beyond the generic list (SPEC §2, §7); shown when the path is in the user's menus. */
export const ADMIN_SCREENS: Record<string, () => ReactNode> = {
  '/system/dict': () => <DictPage biz={false} />,
  '/system/dictbiz': () => <DictPage biz />,
  '/system/user': () => <UserPage />,
  '/authority/role': () => <RolePage />,
  '/system/menu': () => <MenuPage />,
  '/system/dept': () => <DeptPage />,
  '/system/tenant': () => <TenantPage />,
  '/monitor/status': () => <StatusPage />,
  '/work/start': () => <WorkList mode="start" />,
  '/work/claim': () => <WorkList mode="claim" />,
  '/work/todo': () => <WorkList mode="todo" />,
  '/work/send': () => <WorkList mode="send" />,
  '/work/done': () => <WorkList mode="done" />,
  '/flow/model': () => <ModelPage />,
  '/finance/receivables': () => <ReceivablesPage />,
  '/productCategory/index': () => <CategoryTree />,
  '/flow/deploy': () => <ManagerPage />,
  '/flow/manager': () => <ManagerPage />,
  '/flow/follow': () => <FollowPage />,
  '/approval/index': () => <ApprovalTasks />,
  '/approval/file': () => <ApprovalFiles />,
  '/approval/record': () => <ApprovalRecords />,
};

export type RouteDef = {
  path: string;
  /** Reachable without a token (SPEC §2 "routes without authentication"). */
  public?: boolean;
  /** i18n key of the tag label. */
  title?: string;
  /** HTTP status the server should answer with. */
  status?: number;
  render: (params: Record<string, string>) => ReactNode;
};

const main = (title: string, node: ReactNode) => <MainLayout title={title}>{node}</MainLayout>;
const placeholder = (title: string) => (p: Record<string, string>) => main(title, <Placeholder title={title} params={p} />);

export const routes: RouteDef[] = [
  { path: '/login', public: true, render: () => <LoginPage /> },
  { path: '/lock', public: true, render: () => <LockPage /> },
  { path: '/404', public: true, status: 404, render: () => <ErrorPage code={404} /> },
  { path: '/403', public: true, status: 403, render: () => <ErrorPage code={403} /> },
  { path: '/500', public: true, status: 500, render: () => <ErrorPage code={500} /> },
  { path: '/wel/index', title: 'menu.wel', render: () => main('menu.wel', <Welcome />) },
  { path: '/wel/dashboard', title: 'menu.dashboard', render: () => main('menu.dashboard', <Dashboard />) },
  { path: '/info/index', title: 'menu.info', render: () => main('menu.info', <InfoPage />) },
  { path: '/desk/message', title: 'menu.messages', render: () => main('menu.messages', <MessagesPage />) },
  { path: '/test/index', title: 'menu.test', render: placeholder('menu.test') },
  { path: '/worklist/addworklist', title: 'menu.addworklist', render: () => main('menu.addworklist', <AddWorkOrder />) },
  { path: '/worklist/view/:orderNo', title: 'menu.workOrder', render: (p) => main('menu.workOrder', <WorkOrderDetail no={p.orderNo} />) },
  { path: '/myiframe/:routerPath*', title: 'menu.iframe', render: () => main('menu.iframe', <FramePage />) },
  { path: '/approval/detail', title: 'menu.approvalDetail', render: () => main('menu.approvalDetail', <ApprovalDetail />) },
  { path: '/process/detail/:constructCode', title: 'menu.processDetail', render: (p) => main('menu.processDetail', <ProcessDetail code={p.constructCode} />) },
  { path: '/finance/contractLedger/detail', title: 'menu.ledgerDetail', render: () => main('menu.ledgerDetail', <LedgerDetail />) },
  { path: '/bim/projectcost/detail/:projectId', title: 'menu.costDetail', render: (p) => main('menu.costDetail', <CostPage projectId={p.projectId} />) },
  { path: '/replay/detail/:replayCode', title: 'menu.replayDetail', render: (p) => main('menu.replayDetail', <ReplayDetail code={p.replayCode} />) },
  // Print layouts: a page of their own (no menu or header), signed in.
  { path: '/print/:kind/:no', title: 'menu.print', render: (p) => <PrintPage kind={p.kind} no={p.no} /> },
  { path: '/contract/detail/:contractCode', title: 'menu.contractDetail', render: (p) => main('menu.contractDetail', <ContractDetail code={p.contractCode} />) },
  { path: '/project/detail/:projectCode', title: 'menu.projectDetail', render: (p) => main('menu.projectDetail', <ProjectDetail code={p.projectCode} />) },
  { path: '/wms/order/rk/detail/:orderNo', title: 'menu.rkDetail', render: (p) => main('menu.rkDetail', <InboundDetail no={p.orderNo} />) },
  { path: '/wms/order/ck/detail/:orderNo', title: 'menu.ckDetail', render: (p) => main('menu.ckDetail', <OutboundDetail no={p.orderNo} />) },
  { path: '/wms/stock/card/:goodsId', title: 'menu.stockCard', render: (p) => main('menu.stockCard', <StockCard goodsId={p.goodsId} />) },
  { path: '/work/process/leave', title: 'menu.leave', render: () => main('menu.leave', <LeaveList />) },
  { path: '/work/process/leave/form/:processDefinitionId', title: 'menu.leaveForm', render: (p) => main('menu.leaveForm', <LeaveForm processId={p.processDefinitionId} />) },
  { path: '/work/process/flow/form/:processDefinitionId', title: 'menu.flowStart', render: (p) => main('menu.flowStart', <StartForm processId={p.processDefinitionId} />) },
  { path: '/work/process/:kind/handle/:taskId/:processInstanceId/:businessId?', title: 'menu.flowHandle', render: (p) => main('menu.flowHandle', <HandleTask kind={p.kind} taskId={p.taskId} instanceId={p.processInstanceId} businessId={p.businessId ?? '0'} />) },
  { path: '/work/process/:kind/detail/:processInstanceId/:businessId?', title: 'menu.flowDetail', render: (p) => main('menu.flowDetail', <FlowDetail kind={p.kind} instanceId={p.processInstanceId} businessId={p.businessId ?? '0'} />) },
  { path: '/construct/info/:constructCode?/:edit?/:tagname?', title: 'menu.constructInfo', render: (p) => main('menu.constructInfo', <ConstructInfo code={p.constructCode} edit={p.edit} tag={p.tagname} />) },
];

const compiled = routes.map((r) => ({ r, ...parse(r.path) }));
const notFound = routes.find((r) => r.path === '/404')!;
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
  if (admin && menu) return { route: { path: clean, title: menu.name, render: () => main(menu.name, admin()) }, params: {} };
  if (props.page.kind === 'list') {
    const title = menu?.name ?? (props.locale === 'en' ? (props.page as any).resource.labelEn : (props.page as any).resource.label);
    return { route: { path: clean, title, render: () => main(title, <ListPage />) }, params: {} };
  }
  if (menu) return { route: { path: clean, title: menu.name, render: () => main(menu.name, <Placeholder title={menu.name} params={{}} />) }, params: {} };
  // Signed out, the user's menus are unknown: a path that is some screen asks for sign-in first; any other
  // path is /404 at once (SPEC §2: any unknown path goes to /404).
  return { route: props.user || !props.knownPath ? notFound : { ...notFound, public: false }, params: {} };
}
