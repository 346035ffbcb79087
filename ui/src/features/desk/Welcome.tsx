// My desktop (SPEC §2): application launcher (BIM/ERP/BBC/PMS, URLs from site.apps, each a
// separate site in a new window), the user's urgent tasks and approval counts from the approval engine, the
// tenant's latest notices as its system messages, and the project map and completion-problem pie (from the
// projects where there are some). Every figure is the tenant's own within the user's scope: a card the user may
// not see is left out, never filled with invented numbers.
import { useEffect, useState } from 'react';
import { useTranslation } from '../../i18n/react';
import { useApp, useProps } from '../../app';
import { ApiError, get } from '../../lib/api';
import { useL } from '../../lib/words';
import { CK_STATUS, RK_STATUS } from '../../lib/wms';
import { ChinaMap } from './ChinaMap';
import { ProblemPie } from './ProblemPie';
import { Business } from './Business';

const pad = (n: number) => String(n).padStart(2, '0');
/** yyyy-MM-dd from props.now; UTC+8 (the product's home zone) without locale lookups. */
export function formatDate(ms: number) {
  const d = new Date(ms + 8 * 3600_000);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
}

export function Launcher() {
  const { t } = useTranslation();
  const props = useProps();
  return (
    <section className="card" aria-labelledby="desk-apps">
      <h3 id="desk-apps">{t('desk.apps')}</h3>
      <ul className="launcher">
        {props.site.apps.map((a) => (
          <li key={a.name}>
            {a.url
              ? <a href={a.url} target="_blank" rel="noopener noreferrer"><span className="app-icon" aria-hidden="true">{a.name.slice(0, 1)}</span>{a.name}</a>
              : <span className="app-unset" title={t('common.notConfiguredHint', { key: `site.app.${a.name.toLowerCase()}` })}><span className="app-icon" aria-hidden="true">{a.name.slice(0, 1)}</span>{a.name}<small>{t('common.notConfigured')}</small></span>}
          </li>
        ))}
      </ul>
    </section>
  );
}

type Counts = { processes: number; todo: number; claim: number; done: number; send: number; urgent: Record<string, any>[]; orders?: Record<string, any>[] };

/** The signed-in user's approval counts and urgent tasks from the engine (after the page hydrates):
 * undefined while loading, null when the user has no work screens (the cards are left out). */
export function useCounts(): Counts | null | undefined {
  const props = useProps();
  const can = props.permissions.some((p) => p.startsWith('work_'));
  const [c, setC] = useState<Counts | null | undefined>(can ? undefined : null);
  useEffect(() => {
    if (!can) return;
    get<Counts>('/api/blade-flow/work/counts').then(setC, () => setC(null));
  }, [can]);
  return c;
}

/** The desk's approval figures, each opening its own list; "…" while loading. */
export function approvalRows(counts: Pick<Counts, 'todo' | 'claim' | 'done' | 'send'> | undefined): { key: string; n: number | string; to: string }[] {
  // 待办 and 待签 apart: the desk said 待办 2 while 待办事务 was empty (both were to claim).
  const n = (v: number | undefined) => (counts ? v ?? 0 : '…');
  return [{ key: 'desk.approval.todo', n: n(counts?.todo), to: '/work/todo' }, { key: 'desk.approval.claim', n: n(counts?.claim), to: '/work/claim' },
    { key: 'desk.approval.done', n: n(counts?.done), to: '/work/done' }, { key: 'desk.approval.sent', n: n(counts?.send), to: '/work/send' }];
}

export function Approvals({ counts }: { counts: Counts | null | undefined }) {
  const { t } = useTranslation();
  const { navigate } = useApp();
  if (counts === null) return null;
  const rows = approvalRows(counts);
  return (
    <section className="card" aria-labelledby="desk-appr" aria-busy={counts === undefined}>
      <h3 id="desk-appr">{t('desk.approvals')}</h3>
      <dl className="desk-counts">
        {rows.map((a) => <div key={a.key}><dt>{t(a.key)}</dt><dd className="big-number"><a href={a.to} onClick={(e) => { e.preventDefault(); navigate(a.to); }}>{a.n}</a></dd></div>)}
      </dl>
    </section>
  );
}

type Notice = { id: string; title: string; releaseTime?: string };

/** 系统消息: the tenant's latest notices (通知公告), newest first, each opening the notice screen. Left out for a
 * user who may not read the notices. */
export function Messages() {
  const { t } = useTranslation();
  const { navigate } = useApp();
  // undefined: not asked yet (the server's render); null: not readable here.
  const [notices, setNotices] = useState<Notice[] | null | undefined>(undefined);
  useEffect(() => {
    get<{ records: Notice[] }>('/api/blade-desk/notice/list', { current: 1, size: 5, descs: 'releaseTime' }).then((p) => setNotices(p.records ?? []), () => setNotices(null));
  }, []);
  if (notices === null) return null;
  return (
    <section className="card" aria-labelledby="desk-msg" aria-busy={notices === undefined}>
      <h3 id="desk-msg">{t('desk.messages')}</h3>
      {notices === undefined ? <p className="muted">{t('common.loading')}</p>
        : notices.length === 0 ? <p className="muted">{t('desk.noNotices')}</p>
        : <ul>{notices.map((n) => (
          <li key={n.id}><a href={`/desk/notice?open=${n.id}`} onClick={(e) => { e.preventDefault(); navigate(`/desk/notice?open=${n.id}`); }}>{n.title}</a>{n.releaseTime && <span className="muted"> {n.releaseTime.slice(0, 10)}</span>}</li>
        ))}</ul>}
    </section>
  );
}

function Urgent({ counts }: { counts: Counts | null | undefined }) {
  const { t } = useTranslation();
  const { navigate } = useApp();
  if (counts === null) return null;
  if (counts === undefined) return <section className="card" aria-labelledby="desk-urgent" aria-busy="true"><h3 id="desk-urgent">{t('desk.urgent')}</h3><p className="muted">{t('common.loading')}</p></section>;
  const kind = (c: string) => (c === '1' ? 'leave' : 'flow');
  return (
    <section className="card" aria-labelledby="desk-urgent">
      <h3 id="desk-urgent">{t('desk.urgent')}</h3>
      {counts.urgent.length === 0 && !counts.orders?.length ? <p className="muted">{t('desk.noUrgent')}</p> : (
        <ul>{(counts.orders ?? []).map((o) => (
          <li key={o.id}><a href={`/worklist/view/${o.orderNo}`} onClick={(e) => { e.preventDefault(); navigate(`/worklist/view/${o.orderNo}`); }}>{t('desk.workOrder')} · {o.title}</a>
            <span className={o.overdue ? 'overdue' : 'muted'}> {o.overdue ? t('desk.overdue', { time: o.dueTime }) : t('desk.due', { time: o.dueTime })}</span></li>
        ))}{counts.urgent.map((u) => (
          <li key={u.taskId}><a href="#" onClick={(e) => { e.preventDefault(); navigate(`/work/process/${kind(u.category)}/handle/${u.taskId}/${u.processInstanceId}/${u.businessId || 0}`); }}>{u.processDefinitionName} · {u.taskName} · {u.startUserName}</a>{u.dueTime ? <span className={u.overdue ? 'overdue' : 'muted'}> {u.overdue ? t('desk.overdue', { time: u.dueTime }) : t('desk.due', { time: u.dueTime })}</span> : u.arriveTime && <span className="muted"> {t('desk.arrived', { time: String(u.arriveTime).slice(5, 16) })}</span>}</li>
        ))}</ul>
      )}
    </section>
  );
}

type Order = { id: string; orderNo: string; orderStatus?: number | string; storeName?: string; orderTypeName?: string; expectedDate?: string; createTime?: string; supplierName?: string; projectName?: string; consignee?: string };
type Open = { total: number; records: Order[] };
const OPEN = 4; // an order below 4 (已完成 / 已发货) and not 9 (已取消) still has work in the store

/** 仓库作业: the inbound and outbound orders still open in the stores the user works in (the server limits the
 * lists to them), oldest first, each opening its order; the totals open the lists. Left out for a user who may
 * read neither kind of order. */
export function StoreWork({ today }: { today: string }) {
  const { t } = useTranslation();
  const { st } = useL();
  const { navigate } = useApp();
  const props = useProps();
  const may = (code: string) => props.permissions.includes(code);
  // One sort key each (a second key would have the store sort every order of the tenant on each desk view).
  const kinds = ([['rk', 'order_rk', 'expectedDate'], ['ck', 'order_ck', 'id']] as const).filter(([, code]) => may(code));
  // undefined: not read yet; null: refused (403: not this user's to read); a string: why it could not be read.
  const [open, setOpen] = useState<Record<string, Open | null | string | undefined>>({});
  useEffect(() => {
    for (const [kind, , by] of kinds) {
      get<Open>(`/api/blade-api/wms/order/${kind}/list`, { current: 1, size: 5, orderStatus_lt: OPEN, ascs: by })
        .then((p) => setOpen((o) => ({ ...o, [kind]: { total: p.total ?? 0, records: p.records ?? [] } })),
          (e) => setOpen((o) => ({ ...o, [kind]: e instanceof ApiError && e.code === 403 ? null : e instanceof ApiError ? e.message : String(e) })));
    }
  }, [kinds.map(([k]) => k).join()]);
  if (kinds.length === 0 || kinds.every(([k]) => open[k] === null)) return null;
  const failed = kinds.map(([k]) => open[k]).find((v): v is string => typeof v === 'string');
  const go = (to: string) => (e: { preventDefault(): void }) => { e.preventDefault(); navigate(to); };
  const loading = kinds.some(([k]) => open[k] === undefined);
  const list = (k: string) => (typeof open[k] === 'object' && open[k] ? (open[k] as Open) : null);
  const shown = kinds.filter(([k]) => list(k));
  const rows = shown.flatMap(([k]) => list(k)!.records.map((o) => ({ k, o })));
  return (
    <section className="card desk-store" aria-labelledby="desk-store" aria-busy={loading}>
      <h3 id="desk-store">{t('desk.storeWork')}</h3>
      {loading ? <p className="muted">{t('common.loading')}</p> : <>
        <dl className="desk-counts">
          {shown.map(([k]) => <div key={k}><dt>{t(`desk.open.${k}`)}</dt><dd className="big-number"><a href={`/wms/order/${k}`} onClick={go(`/wms/order/${k}`)}>{list(k)!.total}</a></dd></div>)}
        </dl>
        {failed && <p className="form-err" role="alert">{failed}</p>}
        {rows.length === 0 ? (!failed && <p className="muted">{t('desk.noStoreWork')}</p>) : (
          <ul className="desk-orders">{rows.map(({ k, o }) => {
            // late: nothing or only part received by the day the goods were due (once received, the date is history).
            const late = k === 'rk' && Number(o.orderStatus) <= 1 && !!o.expectedDate && o.expectedDate < today;
            const who = k === 'rk' ? o.supplierName : o.projectName ?? o.consignee;
            return (
              <li key={o.id}>
                <a href={`/wms/order/${k}/detail/${o.orderNo}`} onClick={go(`/wms/order/${k}/detail/${o.orderNo}`)}>{t(`desk.order.${k}`)} {o.orderNo}</a>
                <span className="desk-state">{st(k === 'rk' ? RK_STATUS : CK_STATUS, o.orderStatus)}</span>
                <span className="muted">{[o.storeName, o.orderTypeName, who].filter(Boolean).join(' · ')}</span>
                {k === 'rk' && o.expectedDate
                  ? <span className={late ? 'overdue' : 'muted'}>{late ? t('desk.lateArrival', { date: o.expectedDate }) : t('desk.arrival', { date: o.expectedDate })}</span>
                  : o.createTime && <span className="muted">{t('desk.made', { date: o.createTime.slice(0, 10) })}</span>}
              </li>
            );
          })}</ul>
        )}
      </>}
    </section>
  );
}

export function Welcome() {
  const { t } = useTranslation();
  const props = useProps();
  const today = formatDate(props.now);
  const counts = useCounts();
  return (
    <div className="desk">
      <section className="card desk-hello">
        <h2>{t('desk.welcome', { name: props.user?.realName ?? '' })}</h2>
        <p className="muted">{t('desk.today', { date: today })}</p>
      </section>
      <StoreWork today={today} />
      <Launcher />
      <div className="desk-grid">
        <Urgent counts={counts} />
        <Messages />
        <Approvals counts={counts} />
      </div>
      {/* The company's figures (合同总额, 已收款, 未收款, 产值) for those who keep the ledgers (会计): on their desk, not
          only on the 控制台. Nothing for anyone else. */}
      <Business />
      <div className="desk-charts">
        <ChinaMap today={today} />
        <ProblemPie />
      </div>
    </div>
  );
}
