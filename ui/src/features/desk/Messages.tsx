// 站内消息: the header's bell with the unread count (polled every 30 s and when the window regains focus — a short
// poll, no connection held open), its newest unread messages, and the message list page (/desk/message) with
// mark read and mark all read. A message opens what it tells of (a task, an approval, a work order, a notice).
import { useCallback, useEffect, useState } from 'react';
import * as Popover from '@radix-ui/react-popover';
import { useApp } from '../../app';
import { get, post } from '../../lib/api';
import { useL } from '../../lib/words';
import { Pager } from '../../components/ui/pager';

const M = '/api/blade-desk/message';
type Msg = { id: string; kind: number; kindName: string; title: string; content: string; link: string; unread: boolean; createTime: string };
const POLL_MS = 30_000;

/** The count shown on the bell: "99+" past 99, nothing at 0. */
export const badge = (n: number) => (n <= 0 ? '' : n > 99 ? '99+' : String(n));

const Bell = () => (
  <svg width="18" height="18" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round" aria-hidden="true">
    <path d="M18 8a6 6 0 0 0-12 0c0 7-3 9-3 9h18s-3-2-3-9" /><path d="M13.7 21a2 2 0 0 1-3.4 0" />
  </svg>
);

export function MessageBell() {
  const { L } = useL();
  const { navigate } = useApp();
  const [count, setCount] = useState(0);
  const [latest, setLatest] = useState<Msg[]>([]);
  const [open, setOpen] = useState(false);
  const load = useCallback(() => {
    get<{ count: number; latest: Msg[] }>(`${M}/unread-count`).then((d) => { setCount(d?.count ?? 0); setLatest(d?.latest ?? []); }, () => {});
  }, []);
  useEffect(() => {
    load();
    const timer = window.setInterval(() => { if (document.visibilityState === 'visible') load(); }, POLL_MS);
    window.addEventListener('focus', load);
    window.addEventListener('zz:messages', load);
    return () => { window.clearInterval(timer); window.removeEventListener('focus', load); window.removeEventListener('zz:messages', load); };
  }, [load]);
  const openOne = async (m: Msg) => {
    setOpen(false);
    await post(`${M}/read`, { ids: m.id }).catch(() => {});
    load();
    if (m.link) navigate(m.link);
  };
  const readAll = async () => { await post(`${M}/read-all`, {}).catch(() => {}); load(); };
  const b = badge(count);
  return (
    <Popover.Root open={open} onOpenChange={(o) => { setOpen(o); if (o) load(); }}>
      <Popover.Trigger asChild>
        <button type="button" className="icon-btn bell" aria-label={b ? L(`站内消息,${count} 条未读`, `Messages, ${count} unread`) : L('站内消息', 'Messages')} title={L('站内消息', 'Messages')}>
          <Bell />{b && <span className="bell-badge" aria-hidden="true">{b}</span>}
        </button>
      </Popover.Trigger>
      <Popover.Portal>
        <Popover.Content className="bell-panel" align="end" sideOffset={6} aria-label={L('未读消息', 'Unread messages')}>
          <div className="bell-head"><b>{L('未读消息', 'Unread')} {count}</b>{count > 0 && <button type="button" className="link" onClick={readAll}>{L('全部已读', 'Mark all read')}</button>}</div>
          {latest.length === 0 ? <p className="muted">{L('没有未读消息', 'No unread messages')}</p> : (
            <ul className="bell-list">
              {latest.map((m) => (
                <li key={m.id}><button type="button" className="bell-item" onClick={() => void openOne(m)}><span className="bell-title">{m.title}</span>{m.content && <span className="small bell-content">{m.content}</span>}<span className="muted small">{m.kindName} · {(m.createTime ?? '').slice(5, 16)}</span></button></li>
              ))}
            </ul>
          )}
          <div className="bell-foot"><button type="button" className="link" onClick={() => { setOpen(false); navigate('/desk/message'); }}>{L('查看全部消息', 'All messages')}</button></div>
        </Popover.Content>
      </Popover.Portal>
    </Popover.Root>
  );
}

/** /desk/message: every message of the signed-in user, newest first; unread ones marked, with 全部已读. */
export function MessagesPage() {
  const { L } = useL();
  const { navigate } = useApp();
  const [page, setPage] = useState({ current: 1, size: 20 });
  const [unreadOnly, setUnreadOnly] = useState(false);
  const [data, setData] = useState<{ records: Msg[]; total: number; pages: number } | null>(null);
  const [err, setErr] = useState<string | null>(null);
  const load = useCallback(() => {
    get(`${M}/list`, { current: page.current, size: page.size, unread: unreadOnly ? 1 : undefined }).then(setData, (e) => setErr(String(e?.message ?? e)));
  }, [page, unreadOnly]);
  useEffect(load, [load]);
  const changed = () => { load(); window.dispatchEvent(new Event('zz:messages')); };
  const open = async (m: Msg) => {
    if (m.unread) await post(`${M}/read`, { ids: m.id }).catch(() => {});
    changed();
    if (m.link) navigate(m.link);
  };
  return (
    <section className="card messages-page" aria-label={L('站内消息', 'Messages')}>
      <div className="card-head">
        <h2>{L('站内消息', 'Messages')}</h2>
        <label className="inline"><input type="checkbox" checked={unreadOnly} onChange={(e) => { setUnreadOnly(e.target.checked); setPage({ ...page, current: 1 }); }} /> {L('只看未读', 'Unread only')}</label>
        <button type="button" className="btn" onClick={async () => { await post(`${M}/read-all`, {}).catch(() => {}); changed(); }}>{L('全部已读', 'Mark all read')}</button>
      </div>
      {err && <div className="form-err" role="alert">{err}</div>}
      {data && data.records.length === 0 && <p className="empty">{unreadOnly ? L('没有未读消息', 'No unread messages') : L('还没有消息', 'No messages yet')}</p>}
      <ul className="message-list">
        {(data?.records ?? []).map((m) => (
          <li key={m.id} className={m.unread ? 'unread' : ''}>
            <span className="tag">{m.kindName}</span>
            <button type="button" className="link" onClick={() => void open(m)}>{m.title}</button>
            {m.content && <span className="muted"> {m.content}</span>}
            <span className="muted small msg-time">{m.createTime}{m.unread ? ' · ' + L('未读', 'unread') : ''}</span>
            {m.unread && <button type="button" className="link small" onClick={async () => { await post(`${M}/read`, { ids: m.id }).catch(() => {}); changed(); }}>{L('标为已读', 'Mark read')}</button>}
          </li>
        ))}
      </ul>
      {data && data.pages > 1 && <Pager current={page.current} pages={data.pages} total={data.total} size={page.size} go={(o) => setPage({ current: o.current ?? page.current, size: o.size ?? page.size })} />}
    </section>
  );
}
