// 工单: raising one (/worklist/addworklist, the top bar's + icon) and one order's page (/worklist/view/{orderNo}):
// its facts, the status steps (start, resolve, close, reopen) and the reply thread. Lists are the generic
// screens of the declarations (/worklist/order, /worklist/category, /worklist/reply).
import { useCallback, useEffect, useMemo, useState, type FormEvent } from 'react';
import { useApp } from '../../app';
import { get, post, errText } from '../../lib/api';
import { useToast } from '../../components/ui/toast';
import { RefPicker } from '../crud/FormDialog';
import { lookup } from '../../lib/resource';
import type { Field } from '../../types';
import { Facts } from '../../components/ui/record';
import { useL } from '../../lib/words';
import { FileLinks, FilesField, filesOf } from '../crud/FilesField';

type Row = Record<string, any>;
const O = '/worklist/order';
const RP = '/api/blade-biz/worklist/reply';
const PRIORITY: Record<string, [string, string]> = { 1: ['低', 'Low'], 2: ['中', 'Normal'], 3: ['高', 'High'], 4: ['紧急', 'Urgent'] };
const STATUS: Record<string, [string, string]> = { 1: ['待处理', 'Open'], 2: ['处理中', 'In progress'], 3: ['已解决', 'Resolved'], 4: ['已关闭', 'Closed'] };
const pick = (resource: string, list: string, title: string): Field =>
  ({ name: `${resource}Id`, kind: 'long', label: '', labelEn: '', required: false, filter: false, sort: false, search: false, list: false, form: true, refers: { resource, list, title } });
// People who can sign in and open work orders (one given to a 仓管员 or a technical worker could never be opened),
// as the declaration's 处理人 (`ui.holds`).
const USER: Field = { ...pick('user', 'GET /api/blade-user/page', 'realName'), refers: { resource: 'user', list: 'GET /api/blade-user/page', title: 'realName', staff: true, holds: 'worklist_order' } };
const PROJECT = pick('project', 'POST /api/blade-scm/project/list', 'projectName');

export function AddWorkOrder() {
  const { navigate, props } = useApp();
  const { L, st } = useL();
  const toast = useToast();
  const [cats, setCats] = useState<Row[]>([]);
  const [f, setF] = useState<Row>({ title: '', categoryId: '', priority: 2, dueTime: '', content: '' });
  const [err, setErr] = useState<string | null>(null);
  // The categories with their time limits for whoever manages them; for everyone else (a 员工 raising an order)
  // their names, through the lookup every form's picker uses.
  const manages = props.permissions.includes('worklist_category');
  useEffect(() => {
    const load = manages
      ? get('/api/blade-biz/worklist/category/list', { size: 100, ascs: 'sort' }).then((d) => (d?.records ?? []) as Row[])
      : lookup('worklist_category', { size: 50 }).then((d) => d.records.map((r) => ({ id: r.id, categoryName: r.title })));
    load.then(setCats).catch((e) => { setCats([]); setErr(errText(e)); });
  }, [manages]);
  if (!props.permissions.includes('worklist_order_add')) return <section className="detail-page"><p className="empty">{L('没有新建工单的权限', 'You may not raise work orders')}</p></section>;
  const send = async (e: FormEvent) => {
    e.preventDefault();
    setErr(null);
    if (!f.title.trim()) return setErr(L('请填写标题', 'Enter a title'));
    if (!f.categoryId) return setErr(L('请选择分类', 'Choose a category'));
    if (!f.content.trim()) return setErr(L('请填写内容', 'Describe the work'));
    try {
      const { projectName: _p, assigneeName: _a, ...body } = f;
      const saved = await post(`${O}/submit`, body);
      toast(L('工单已提交', 'Work order raised'));
      navigate(`/worklist/view/${saved.orderNo}`, { replace: true });
    } catch (e2) {
      setErr(errText(e2));
    }
  };
  return (
    <section className="detail-page" aria-label={L('新建工单', 'New work order')}>
      <div className="card">
        <h2>{L('新建工单', 'New work order')}</h2>
        <form className="flow-form" onSubmit={send} aria-label={L('工单', 'Work order')}>
          <label className="wide">{L('标题', 'Title')} *<input value={f.title} maxLength={100} onChange={(e) => setF({ ...f, title: e.target.value })} /></label>
          <label>{L('分类', 'Category')} *
            <select value={f.categoryId} onChange={(e) => setF({ ...f, categoryId: e.target.value })}>
              <option value="">{L('请选择', 'Choose')}</option>
              {cats.map((c) => <option key={c.id} value={c.id}>{c.categoryName}{c.defaultHours ? L(`(${c.defaultHours} 小时内)`, ` (within ${c.defaultHours} h)`) : ''}</option>)}
            </select>
          </label>
          <label>{L('优先级', 'Priority')}
            <select value={String(f.priority)} onChange={(e) => setF({ ...f, priority: Number(e.target.value) })}>
              {[1, 2, 3, 4].map((p) => <option key={p} value={p}>{st(PRIORITY, p)}</option>)}
            </select>
          </label>
          <label>{L('处理人', 'Assignee')}<RefPicker id="w-assignee" field={USER} value={String(f.assigneeId ?? '')} label={f.assigneeName ?? ''} onChange={(id, t) => setF({ ...f, assigneeId: id, assigneeName: t })} /></label>
          <label>{L('所属项目', 'Project')}<RefPicker id="w-project" field={PROJECT} value={String(f.projectId ?? '')} label={f.projectName ?? ''} onChange={(id, t) => setF({ ...f, projectId: id, projectName: t })} /></label>
          <label>{L('处理期限(空则按分类时限)', 'Due (empty: the category\'s limit)')}<input type="date" value={f.dueTime} onChange={(e) => setF({ ...f, dueTime: e.target.value })} /></label>
          <label className="wide">{L('内容', 'Details')} *<textarea value={f.content} maxLength={2000} onChange={(e) => setF({ ...f, content: e.target.value })} /></label>
          {err && <div className="form-err wide" role="alert">{err}</div>}
          <div className="flow-actions"><button type="submit" className="btn btn-primary">{L('提交工单', 'Raise it')}</button></div>
        </form>
      </div>
    </section>
  );
}

export function WorkOrderDetail({ no }: { no: string }) {
  const { props } = useApp();
  const { L, st } = useL();
  const toast = useToast();
  const perms = useMemo(() => new Set(props.permissions), [props.permissions]);
  const [o, setO] = useState<Row | null | undefined>(undefined);
  const [failed, setFailed] = useState<string | null>(null);
  const [replies, setReplies] = useState<Row[]>([]);
  const [text, setText] = useState('');
  const [links, setLinks] = useState('');
  const [sending, setSending] = useState(false);
  const load = useCallback(async () => {
    try {
      const d = await post(`${O}/list`, { orderNo_equal: no, size: 1 });
      const rec = d?.records?.[0];
      if (!rec) return setO(null);
      setO(await get(`${O}/detail`, { id: rec.id }));
      const r = await get(`${RP}/list`, { orderId: rec.id, size: 200, ascs: 'createTime' }).catch(() => ({ records: [] }));
      setReplies(r?.records ?? []);
    } catch (e) {
      // Shown where the order would be (a 403 left the page on 加载中… for good).
      setFailed(errText(e));
    }
  }, [no]);
  useEffect(() => { void load(); }, [load]);
  const act = async (fn: () => Promise<unknown>, done: string) => {
    try { await fn(); toast(done); await load(); } catch (e) { toast(errText(e), 'error'); }
  };
  if (o === undefined && failed) return <section className="detail-page"><p className="empty" role="alert">{L(`工单 ${no} 打不开:${failed}`, `Work order ${no} cannot be opened: ${failed}`)}</p></section>;
  if (o === undefined) return <section className="detail-page" aria-busy="true"><p className="muted">{L('加载中…', 'Loading…')}</p></section>;
  if (o === null) return <section className="detail-page"><p className="empty">{L(`工单 ${no} 不存在或无权查看`, `Work order ${no} does not exist or is not yours to see`)}</p></section>;
  const s = Number(o.orderStatus);
  // Who moves an order (as the server's worklist/order/move decides): its 处理人 starts and resolves it, its 提出人
  // closes or reopens it, whoever holds worklist_order_edit does any of it.
  const canEdit = perms.has('worklist_order_edit');
  const me = String(props.user?.userId ?? '');
  const handles = canEdit || (me !== '' && String(o.assigneeId) === me);
  const raised = canEdit || (me !== '' && String(o.requesterId) === me);
  const move = (to: number, done: string) => act(() => post(`${O}/move`, { id: o.id, orderStatus: to }), done);
  const today = new Date(Date.now() + 8 * 3600_000).toISOString().slice(0, 10);
  const overdue = s < 3 && o.dueTime && String(o.dueTime).slice(0, 10) < today;
  return (
    <section className="detail-page" aria-label={L('工单', 'Work order')}>
      <div className="card">
        <div className="card-head">
          <h2>{o.title} <span className="tag">{st(STATUS, s)}</span>{Number(o.priority) >= 3 && <span className={'tag' + (Number(o.priority) === 4 ? ' overdue' : '')}>{st(PRIORITY, o.priority)}</span>}</h2>
          {(handles || raised) && (
            <div className="row-actions">
              {handles && s === 1 && <button type="button" className="btn" onClick={() => move(2, L('已开始处理', 'Started'))}>{L('开始处理', 'Start')}</button>}
              {handles && s <= 2 && <button type="button" className="btn btn-primary" onClick={() => move(3, L('已标记解决', 'Resolved'))}>{L('标记解决', 'Resolve')}</button>}
              {raised && s === 3 && <button type="button" className="btn btn-primary" onClick={() => move(4, L('已关闭', 'Closed'))}>{L('确认关闭', 'Close')}</button>}
              {raised && s >= 3 && <button type="button" className="btn" onClick={() => move(2, L('已重新打开', 'Reopened'))}>{L('重新打开', 'Reopen')}</button>}
            </div>
          )}
        </div>
        <Facts rows={[
          [L('工单号', 'No.'), o.orderNo], [L('分类', 'Category'), o.categoryName], [L('提出人', 'Raised by'), o.requesterName], [L('处理人', 'Assignee'), o.assigneeName],
          [L('所属项目', 'Project'), o.projectName], [L('处理期限', 'Due'), <span className={overdue ? 'overdue' : ''}>{String(o.dueTime ?? '').slice(0, 10)}{overdue ? L('(已逾期)', ' (overdue)') : ''}</span>],
          [L('提交时间', 'Raised'), o.createTime], [L('解决时间', 'Resolved'), o.resolvedTime],
        ]} />
        <p className="wo-content">{o.content}</p>
      </div>
      <div className="card">
        <h3>{L(`回复(${replies.length})`, `Replies (${replies.length})`)}</h3>
        <ol className="flow-history" aria-label={L('回复', 'Replies')}>
          {replies.length === 0 && <li className="muted">{L('暂无回复', 'No replies yet')}</li>}
          {replies.map((r) => (
            <li key={r.id}>
              <b>{r.authorName}</b> <span className="muted small">{r.createTime}</span><span>{r.content}</span>
              {r.attachments && <FileLinks files={filesOf(r.attachments, r.attachNames, L)} />}
            </li>
          ))}
        </ol>
        {perms.has('worklist_reply_add') && s !== 4 && (
          <form className="flow-comment" onSubmit={(e) => {
            e.preventDefault();
            if (!text.trim()) return;
            const body = { orderId: o.id, content: text, attachments: links };
            void act(() => post(`${RP}/submit`, body), L('已回复', 'Replied')).then(() => { setText(''); setLinks(''); });
          }}>
            <label htmlFor="wo-reply">{L('回复', 'Reply')}</label>
            <textarea id="wo-reply" value={text} maxLength={2000} onChange={(e) => setText(e.target.value)} />
            <FilesField id="wo-files" value={links} names={undefined} label={L('添加附件', 'Attach files')} onBusy={setSending} onChange={setLinks} />
            <div className="flow-actions">
              <button type="submit" className="btn btn-primary" disabled={!text.trim() || sending}>{L('回复', 'Reply')}</button>
            </div>
          </form>
        )}
      </div>
    </section>
  );
}
