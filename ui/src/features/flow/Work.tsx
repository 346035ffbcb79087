// 我的事务: the five work lists (发起/待签/待办/已发/办结), the task page an approver decides on, an
// instance's detail (business form, history, diagram), and the start forms (leave; any other process from its
// declared variables). Every list is one page from the server; every action answers with the server's message.
import { useCallback, useEffect, useMemo, useState, type ReactNode } from 'react';
import { useApp } from '../../app';
import { get, post, ApiError } from '../../lib/api';
import { useToast } from '../../components/ui/toast';
import { Dialog, useAsk } from '../../components/ui/dialog';
import { Pager } from '../../components/ui/pager';
import { Facts, Table } from '../../components/ui/record';
import { useL } from '../../lib/words';
import { useTagName } from '../../lib/tagname';
import { Diagram, type Definition } from './Diagram';

type Row = Record<string, any>;
export const F = '/api/blade-flow';
const LEAVE = '/api/blade-desk/process/leave';

export type WorkMode = 'start' | 'claim' | 'todo' | 'send' | 'done';

/** The screen family of a process category: 1 is leave (its own form), the rest the generic one. */
export const kindOf = (category: unknown) => (String(category) === '1' ? 'leave' : 'flow');

const msg = (e: unknown) => (e instanceof ApiError ? e.message : String(e));

/** A diagram in a dialog: of a deployed process or of an instance (with its path). */
export function DiagramDialog({ open, onOpenChange, processId, instanceId }: { open: boolean; onOpenChange: (o: boolean) => void; processId?: string; instanceId?: string }) {
  const { L } = useL();
  const [d, setD] = useState<Row | null>(null);
  const [err, setErr] = useState<string | null>(null);
  useEffect(() => {
    if (!open) return;
    setD(null);
    setErr(null);
    get(`${F}/process/diagram`, instanceId ? { processInstanceId: instanceId } : { processDefinitionId: processId }).then(setD, (e) => setErr(msg(e)));
  }, [open, processId, instanceId]);
  return (
    <Dialog open={open} onOpenChange={onOpenChange} title={L('流程图', 'Diagram')} width={900}>
      {err && <div className="form-err" role="alert">{err}</div>}
      {d && <div className="flow-canvas"><Diagram def={d.definition} path={d.path} current={d.current} label={`${d.name} v${d.version}`} /></div>}
      {!d && !err && <p className="muted">{L('加载中…', 'Loading…')}</p>}
    </Dialog>
  );
}

export function WorkList({ mode }: { mode: WorkMode }) {
  const { navigate, props } = useApp();
  const { L, en } = useL();
  const toast = useToast();
  const perms = useMemo(() => new Set(props.permissions), [props.permissions]);
  const [page, setPage] = useState({ current: 1, size: 10 });
  const [name, setName] = useState('');
  const [query, setQuery] = useState('');
  const [data, setData] = useState<{ records: Row[]; total: number; pages: number } | null>(null);
  const [err, setErr] = useState<string | null>(null);
  const [diagram, setDiagram] = useState<{ processId?: string; instanceId?: string } | null>(null);
  const load = useCallback(async () => {
    try {
      setErr(null);
      setData(await get(`${F}/work/${mode}-list`, { current: page.current, size: page.size, name: query || undefined, processDefinitionName: query || undefined }));
    } catch (e) {
      setErr(msg(e));
    }
  }, [mode, page, query]);
  useEffect(() => { void load(); }, [load]);
  const act = async (f: () => Promise<unknown>, ok: string) => {
    try {
      await f();
      toast(ok);
      await load();
    } catch (e) {
      toast(msg(e), 'error');
    }
  };
  const [asking, ask] = useAsk();
  // 撤回 ends the application for good (its approvers' tasks go): asked first.
  const withdraw = async (r: Row) => {
    if (await ask({ text: L(`撤回「${r.processDefinitionName}」?撤回后审批人不再处理,申请结束`, `Withdraw "${r.processDefinitionName}"? Its approvers no longer see it and the application ends`) }) === null) return;
    await act(() => post(`${F}/work/withdraw`, undefined, { processInstanceId: r.processInstanceId }), L('已撤回', 'Withdrawn'));
  };
  const detail = (r: Row) => navigate(`/work/process/${kindOf(r.category)}/detail/${r.processInstanceId}/${r.businessId || 0}`);
  const pic = (r: Row) => <button type="button" className="link" onClick={() => setDiagram(mode === 'start' ? { processId: r.id } : { instanceId: r.processInstanceId })}>{L('流程图', 'Diagram')}</button>;
  const version = (r: Row) => <span className="tag">v{r.version ?? r.processDefinitionVersion}</span>;
  const cols: Record<WorkMode, [string, (r: Row) => ReactNode][]> = {
    // What can be started; its key, version and deployment only for whoever manages processes (an employee
    // read 流程标识 leave and a deployment time).
    start: [
      [L('流程分类', 'Category'), (r) => r.categoryName],
      ...(perms.has('flow_manager') ? [[L('流程标识', 'Key'), (r: Row) => r.key] as [string, (r: Row) => ReactNode]] : []),
      [L('流程名称', 'Process'), (r) => r.name],
      ...(perms.has('flow_manager') ? [[L('版本', 'Version'), version], [L('部署时间', 'Deployed'), (r: Row) => r.deploymentTime]] as [string, (r: Row) => ReactNode][] : []),
      [L('操作', 'Actions'), (r) => <span className="row-actions">
        {perms.has('work_start_flow') && <button type="button" className="link" onClick={() => navigate(`/work/process/${kindOf(r.category)}/form/${r.id}`)}>{L('发起', 'Start')}</button>}
        {pic(r)}
      </span>],
    ],
    claim: [
      [L('流程名称', 'Process'), (r) => r.processDefinitionName],
      [L('当前步骤', 'Step'), (r) => r.taskName],
      [L('发起人', 'Started by'), (r) => r.startUserName],
      [L('版本', 'Version'), version],
      [L('申请时间', 'Applied'), (r) => r.createTime],
      [L('操作', 'Actions'), (r) => <span className="row-actions">
        {perms.has('work_claim_sign') && <button type="button" className="link" onClick={() => act(() => post(`${F}/work/claim-task`, undefined, { taskId: r.taskId }), L('已签收,请在待办事务中办理', 'Claimed: it is in your to-do list'))}>{L('签收', 'Claim')}</button>}
        <button type="button" className="link" onClick={() => detail(r)}>{L('详情', 'Details')}</button>
        {pic(r)}
      </span>],
    ],
    todo: [
      [L('流程名称', 'Process'), (r) => r.processDefinitionName],
      [L('当前步骤', 'Step'), (r) => r.taskName],
      [L('发起人', 'Started by'), (r) => r.startUserName],
      [L('版本', 'Version'), version],
      [L('到达时间', 'Arrived'), (r) => r.claimTime || r.createTime],
      [L('到期时间', 'Due'), (r) => <span className={r.dueTime && r.dueTime < nowText() ? 'overdue' : undefined}>{r.dueTime || '—'}</span>],
      [L('操作', 'Actions'), (r) => <span className="row-actions">
        {perms.has('work_todo_handle') && <button type="button" className="link" onClick={() => navigate(`/work/process/${kindOf(r.category)}/handle/${r.taskId}/${r.processInstanceId}/${r.businessId || 0}`)}>{L('处理', 'Handle')}</button>}
        <button type="button" className="link" onClick={() => detail(r)}>{L('详情', 'Details')}</button>
        {pic(r)}
      </span>],
    ],
    send: [
      [L('流程名称', 'Process'), (r) => r.processDefinitionName],
      [L('当前步骤', 'Step'), (r) => r.taskName || '—'],
      [L('状态', 'Status'), (r) => <span className={'flow-status s' + r.status}>{(en && r.statusNameEn) || r.statusName}</span>],
      [L('发起时间', 'Started'), (r) => r.startTime],
      [L('结束时间', 'Ended'), (r) => r.endTime || '—'],
      [L('操作', 'Actions'), (r) => <span className="row-actions">
        <button type="button" className="link" onClick={() => detail(r)}>{L('详情', 'Details')}</button>
        {r.withdrawable && perms.has('work_send') && <button type="button" className="link" onClick={() => void withdraw(r)}>{L('撤回', 'Withdraw')}</button>}
        {pic(r)}
      </span>],
    ],
    done: [
      [L('流程名称', 'Process'), (r) => r.processDefinitionName],
      [L('办理步骤', 'Step'), (r) => r.taskName],
      // The applicant's own step (调整申请) was sent again or given up, not agreed or rejected.
      [L('结果', 'Result'), (r) => (r.result === 1 ? (r.ownStep ? L('重新提交', 'Sent again') : L('同意', 'Agreed')) : r.result === 2 ? (r.ownStep ? L('放弃申请', 'Gave up') : L('驳回', 'Rejected')) : '—')],
      [L('批复意见', 'Comment'), (r) => r.comment],
      [L('办理时间', 'Done'), (r) => r.endTime],
      [L('发起人', 'Started by'), (r) => r.startUserName],
      [L('流程状态', 'Process'), (r) => (en && r.processStatusNameEn) || r.processStatusName],
      [L('操作', 'Actions'), (r) => <span className="row-actions">
        <button type="button" className="link" onClick={() => detail(r)}>{L('详情', 'Details')}</button>
        {pic(r)}
      </span>],
    ],
  };
  const labels: Record<WorkMode, string> = { start: L('发起事务', 'Start'), claim: L('待签事务', 'To claim'), todo: L('待办事务', 'To do'), send: L('已发事务', 'Sent'), done: L('办结事务', 'Done') };
  return (
    <section className="card flow-work" aria-label={labels[mode]}>
      {asking}
      <form className="crud-search" role="search" onSubmit={(e) => { e.preventDefault(); setQuery(name.trim()); setPage({ ...page, current: 1 }); }}>
        <input aria-label={L('流程名称', 'Process')} placeholder={L('流程名称', 'Process name')} value={name} onChange={(e) => setName(e.target.value)} />
        <button type="submit" className="btn btn-primary">{L('搜索', 'Search')}</button>
        <button type="button" className="btn" onClick={() => { setName(''); setQuery(''); }}>{L('清空', 'Clear')}</button>
      </form>
      {err && <div className="form-err" role="alert">{err}</div>}
      <Table cols={cols[mode]} rows={(data?.records ?? []).map((r) => ({ ...r, id: r.taskId || r.id }))} empty={data ? L('暂无数据', 'No data') : L('加载中…', 'Loading…')} label={labels[mode]} />
      {data && <Pager total={data.total} current={page.current} pages={data.pages} size={page.size} go={(o) => setPage({ ...page, ...o })} />}
      <DiagramDialog open={!!diagram} onOpenChange={(o) => { if (!o) setDiagram(null); }} processId={diagram?.processId} instanceId={diagram?.instanceId} />
    </section>
  );
}

function nowText() {
  const d = new Date();
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

/** A step's time in English words, as the server's 历时 says it in Chinese (1天2小时, 5分29秒). */
function tookEn(ms: number): string {
  const s = Math.floor(ms / 1000);
  const [d, h, m, sec] = [Math.floor(s / 86400), Math.floor((s % 86400) / 3600), Math.floor((s % 3600) / 60), s % 60];
  const out = [d && `${d} d`, h && `${h} h`, m && `${m} min`].filter(Boolean) as string[];
  if (out.length === 0 || (d === 0 && h === 0)) out.push(`${sec} s`);
  return out.join(' ');
}

/** The history of an instance as a timeline: who, which step, when they acted (the step's end: its createTime is when
 * it arrived), how long it took, what they said. */
function History({ rows }: { rows: Row[] }) {
  const { L, en } = useL();
  const act: Record<string, [string, string]> = {
    start: ['发起', 'Started'], pass: ['同意', 'Agreed'], reject: ['驳回', 'Rejected'], claim: ['签收', 'Claimed'], withdraw: ['撤回', 'Withdrawn'],
    delete: ['删除', 'Deleted'], reassign: ['转办', 'Reassigned'], auto: ['自动通过', 'Passed automatically'], end: ['结束', 'Ended'], stop: ['终止', 'Stopped'],
  };
  return (
    <ol className="flow-history" aria-label={L('流程历史', 'History')}>
      {rows.map((h) => (
        <li key={h.id} className={'h-' + h.action}>
          <div><b>{h.assigneeName}</b> {L('在', 'at')} {h.endTime || h.createTime} {L('处理', 'worked on')} [{h.historyActivityName}] <span className="tag">{h.actionName ? (en ? h.actionNameEn : h.actionName) : (act[h.action] ?? [h.action, h.action])[en ? 1 : 0]}</span></div>
          {h.historyActivityDurationTime && <div className="muted">{L('历时', 'Took')} {en ? tookEn(Number(h.durationMs)) : h.historyActivityDurationTime}</div>}
          {h.comment && <div>{L('意见', 'Comment')}:{h.comment}</div>}
        </li>
      ))}
    </ol>
  );
}

/** An instance's business record (leave) or variables, its history and diagram. */
function useInstance(instanceId: string, kind: string, businessId: string) {
  const [hist, setHist] = useState<Row[]>([]);
  const [diagram, setDiagram] = useState<Row | null>(null);
  const [leave, setLeave] = useState<Row | null>(null);
  const [err, setErr] = useState<string | null>(null);
  const load = useCallback(async () => {
    try {
      const [h, d] = await Promise.all([get(`${F}/process/history-flow-list`, { processInstanceId: instanceId }), get(`${F}/process/diagram`, { processInstanceId: instanceId })]);
      setHist(h);
      setDiagram(d);
      if (kind === 'leave' && businessId && businessId !== '0') setLeave(await get(`${LEAVE}/detail`, { businessId }));
    } catch (e) {
      setErr(msg(e));
    }
  }, [instanceId, kind, businessId]);
  useEffect(() => { void load(); }, [load]);
  return { hist, diagram, leave, err };
}

/** What a process page's tab says it is about: whose leave of which kind, or the construction it approves (its
 * summary without the 施工单 code, which the page shows), else the process. */
function tagNameOf(leave: Row | null, diagram: Row | null): string | undefined {
  if (leave) return [leave.applyUserName, leave.leaveTypeName].filter(Boolean).join(' · ') || undefined;
  if (!diagram) return undefined;
  return String(diagram.summary ?? '').replace(/^施工单 \S+ /, '') || diagram.name || undefined;
}

/** Who a running instance waits on: each open step with its assignee, or that it waits to be claimed. */
function waitingOn(diagram: Row | null, L: (zh: string, en: string) => string): string {
  const tasks: Row[] = Array.isArray(diagram?.tasks) ? diagram!.tasks : [];
  return tasks.map((t) => `${t.taskName} · ${t.assigneeName || (t.claimable ? L('待签收', 'to be claimed') : '—')}`).join('、');
}

function Business({ leave, diagram }: { leave: Row | null; diagram: Row | null }) {
  const { L, en } = useL();
  // While it runs, whom it waits on (审批中 alone left the applicant guessing).
  const waiting = waitingOn(diagram, L);
  const at: [string, string][] = waiting ? [[L('当前待办', 'Waiting on'), waiting]] : [];
  if (leave) {
    return <Facts rows={[
      [L('申请人', 'Applicant'), leave.applyUserName], [L('申请时间', 'Applied'), leave.applyTime],
      [L('请假类型', 'Leave type'), leave.leaveTypeName || '—'],
      [L('开始时间', 'From'), leave.startTime], [L('结束时间', 'To'), leave.endTime],
      [L('请假天数', 'Days'), leave.days], [L('审批状态', 'Status'), (en && leave.statusNameEn) || leave.statusName], ...at,
      [L('请假理由', 'Reason'), leave.reason, 'wide'],
    ]} />;
  }
  if (!diagram) return null;
  // What it is about (施工单 SG… 名称 · 量房 日期): it said only the process and its state.
  return <Facts rows={[[L('流程', 'Process'), `${diagram.name} v${diagram.version}`], [L('状态', 'Status'), (en && diagram.statusNameEn) || diagram.statusName], ...at, ...(diagram.summary ? [[L('业务', 'About'), diagram.summary, 'wide'] as [string, string, 'wide']] : [])]} />;
}

export function ProcessDetail({ kind, instanceId, businessId }: { kind: string; instanceId: string; businessId: string }) {
  const { L } = useL();
  const { hist, diagram, leave, err } = useInstance(instanceId, kind, businessId);
  useTagName(tagNameOf(leave, diagram));
  if (err) return <section className="detail-page"><div className="form-err" role="alert">{err}</div></section>;
  return (
    <section className="detail-page flow-detail" aria-label={L('流程详情', 'Process details')}>
      <div className="card"><h3>{L('业务信息', 'Application')}</h3><Business leave={leave} diagram={diagram} /></div>
      <div className="card"><h3>{L('流程信息', 'History')}</h3><History rows={hist} /></div>
      <div className="card"><h3>{L('流程跟踪', 'Diagram')}</h3>{diagram && <div className="flow-canvas"><Diagram def={diagram.definition} path={diagram.path} current={diagram.current} label={L('流程跟踪', 'Diagram')} /></div>}</div>
    </section>
  );
}

export function HandleTask({ kind, taskId, instanceId, businessId }: { kind: string; taskId: string; instanceId: string; businessId: string }) {
  const { L } = useL();
  const { navigate, props } = useApp();
  const toast = useToast();
  const { hist, diagram, leave, err } = useInstance(instanceId, kind, businessId);
  const [comment, setComment] = useState('');
  const [busy, setBusy] = useState(false);
  // Whether the task is still this user's to do (a message or an old tab can open one already decided, handed
  // on or withdrawn): undefined while asked; no decision is offered on a task that is not.
  const [open, setOpen] = useState<boolean | undefined>(undefined);
  // Whether it is the applicant's own 调整申请 (the server decides: his leave, the step a rejection sends back to).
  const [adjust, setAdjust] = useState(false);
  useEffect(() => {
    // Only an answer saying it is not there closes it: a failed question leaves the decision offered (the server
    // refuses a second decision anyway).
    get<{ total: number; records?: { adjust?: boolean }[] }>(`${F}/work/todo-list`, { taskId, current: 1, size: 1 }).then((p) => {
      setOpen((p?.total ?? 0) > 0);
      setAdjust(!!p?.records?.[0]?.adjust);
    }, () => setOpen(true));
  }, [taskId]);
  // The applicant's own step is 调整申请 in its tab too (it read 审批处理).
  useTagName(tagNameOf(leave, diagram), open && adjust && leave ? L('调整申请', 'Adjust the application') : undefined);
  const decide = async (pass: boolean) => {
    // A rejection says why (the applicant reads it to adjust); an approval may go without words (it reads 同意).
    if (!pass && !comment.trim()) {
      toast(L('请填写驳回原因', 'Say why it is rejected'), 'warning');
      return;
    }
    setBusy(true);
    try {
      await post(`${F}/work/complete-task`, { taskId, processInstanceId: instanceId, pass, comment });
      toast(pass ? L('已同意', 'Agreed') : L('已驳回', 'Rejected'));
      navigate('/work/todo');
    } catch (e) {
      toast(msg(e), 'error');
    } finally {
      setBusy(false);
    }
  };
  if (err) return <section className="detail-page"><div className="form-err" role="alert">{err}</div></section>;
  // A leave given back to its applicant (调整申请): changed and sent again, or given up — not agreed or rejected.
  if (open && adjust && leave) {
    return (
      <section className="detail-page flow-detail" aria-label={L('调整申请', 'Adjust the application')}>
        <AdjustLeave leave={leave} taskId={taskId} instanceId={instanceId} hist={hist} />
        <div className="card"><h3>{L('流程信息', 'History')}</h3><History rows={hist} /></div>
      </section>
    );
  }
  return (
    <section className="detail-page flow-detail" aria-label={L('审批', 'Decide')}>
      <div className="card">
        <h3>{L('审批信息', 'Application')}</h3>
        <Business leave={leave} diagram={diagram} />
        {open === false
          ? <p className="muted" role="status">{L('该任务已办理、已转办或已撤回，不再需要您处理；办理经过见下方流程信息。', 'This task has been decided, handed on or withdrawn: nothing is left for you to do. The history below tells what happened.')}</p>
          : (
            <label className="flow-comment">{L('批复意见', 'Comment')}
              <textarea aria-label={L('批复意见', 'Comment')} value={comment} maxLength={500} onChange={(e) => setComment(e.target.value)} placeholder={L('同意可不填;驳回请写明原因', 'Optional to agree; say why to reject')} />
            </label>
          )}
        <div className="flow-actions">
          {open && <button type="button" className="btn btn-primary" disabled={busy} onClick={() => decide(true)}>{L('同意', 'Agree')}</button>}
          {open && <button type="button" className="btn btn-danger" disabled={busy} onClick={() => decide(false)}>{L('驳回', 'Reject')}</button>}
          <button type="button" className="btn" onClick={() => navigate('/work/todo')}>{L('关闭', 'Close')}</button>
        </div>
      </div>
      <div className="card"><h3>{L('流程信息', 'History')}</h3><History rows={hist} /></div>
      <div className="card"><h3>{L('流程跟踪', 'Diagram')}</h3>{diagram && <div className="flow-canvas"><Diagram def={diagram.definition} path={diagram.path} current={diagram.current} label={L('流程跟踪', 'Diagram')} /></div>}</div>
    </section>
  );
}

/** 调整申请: the applicant's leave as it was, to change and send again (重新提交) or to give up (放弃申请); what the
 * approver said is shown above it. */
function AdjustLeave({ leave, taskId, instanceId, hist }: { leave: Row; taskId: string; instanceId: string; hist: Row[] }) {
  const { L } = useL();
  const { navigate } = useApp();
  const toast = useToast();
  const [asking, ask] = useAsk();
  const local = (v: unknown) => (v ? String(v).slice(0, 16).replace(' ', 'T') : '');
  const [f, setF] = useState<LeaveDraft>({ leaveType: leave.leaveType == null ? '' : String(leave.leaveType), startTime: local(leave.startTime), endTime: local(leave.endTime), reason: String(leave.reason ?? '') });
  const [comment, setComment] = useState('');
  const [busy, setBusy] = useState(false);
  const back = [...hist].reverse().find((h) => h.action === 'reject');
  const run = async (f2: () => Promise<unknown>, done: string) => {
    setBusy(true);
    try { await f2(); toast(done); navigate('/work/process/leave'); } catch (e) { toast(msg(e), 'error'); } finally { setBusy(false); }
  };
  const resubmit = (e: React.FormEvent) => {
    e.preventDefault();
    if (draftMissing(f)) {
      toast(L('请选择请假类型,填写开始时间、结束时间和请假理由', 'Choose the type and fill in the start, the end and the reason'), 'warning');
      return;
    }
    void run(() => post(`${LEAVE}/resubmit`, { taskId, leaveType: f.leaveType, startTime: toServer(f.startTime), endTime: toServer(f.endTime), reason: f.reason, comment }), L('已重新提交', 'Sent again'));
  };
  const giveUp = async () => {
    if ((await ask({ text: L('放弃后这次请假申请结束为未通过,不能恢复。确定放弃？', 'Given up, this application ends as not approved and cannot be taken back. Give it up?') })) === null) return;
    void run(() => post(`${F}/work/complete-task`, { taskId, processInstanceId: instanceId, pass: false, comment: comment.trim() || '放弃申请' }), L('已放弃申请', 'Application given up'));
  };
  return (
    <form className="card flow-form" onSubmit={resubmit} aria-label={L('调整申请', 'Adjust the application')}>
      {asking}
      <h3>{L('调整申请', 'Adjust the application')}</h3>
      {back && <p className="form-err" role="note">{L(`${back.assigneeName} 驳回:${back.comment || '未写原因'}`, `${back.assigneeName} rejected it: ${back.comment || 'no reason given'}`)}</p>}
      <LeaveFields f={f} set={setF} />
      <label className="wide">{L('调整说明', 'Note')}<textarea aria-label={L('调整说明', 'Note')} value={comment} maxLength={500} onChange={(e) => setComment(e.target.value)} placeholder={L('向审批人说明做了哪些调整(可不填)', 'What you changed, for the approver (optional)')} /></label>
      <div className="flow-actions">
        <button type="submit" className="btn btn-primary" disabled={busy}>{L('重新提交', 'Send again')}</button>
        <button type="button" className="btn btn-danger" disabled={busy} onClick={() => void giveUp()}>{L('放弃申请', 'Give up')}</button>
        <button type="button" className="btn" onClick={() => navigate('/work/todo')}>{L('关闭', 'Close')}</button>
      </div>
    </form>
  );
}

/** Users one may name as an approver: people who can handle a task, with their departments. */
function UserSelect({ value, onChange, label, exceptSelf }: { value: string; onChange: (v: string) => void; label: string; exceptSelf?: boolean }) {
  const [users, setUsers] = useState<Row[]>([]);
  useEffect(() => { get(`${F}/work/users`, exceptSelf ? { exceptSelf: '1' } : undefined).then(setUsers, () => setUsers([])); }, [exceptSelf]);
  return (
    <select aria-label={label} value={value} onChange={(e) => onChange(e.target.value)}>
      <option value="">—</option>
      {users.map((u) => <option key={u.id} value={u.id}>{u.realName}{u.deptName ? `(${u.deptName})` : ''}</option>)}
    </select>
  );
}

function useProcess(processId: string) {
  const [d, setD] = useState<Row | null>(null);
  useEffect(() => { get(`${F}/process/diagram`, { processDefinitionId: processId }).then(setD, () => setD(null)); }, [processId]);
  return d;
}

const toServer = (v: string) => (v ? v.replace('T', ' ') + (v.length === 16 ? ':00' : '') : '');

type LeaveDraft = { leaveType: string; startTime: string; endTime: string; reason: string };

/** A leave's type, dates (with the days as the server counts them) and reason: the application form's and the
 * 调整申请's. `approver` goes between the type and the dates. */
function LeaveFields({ f, set, approver }: { f: LeaveDraft; set: (f: LeaveDraft) => void; approver?: ReactNode }) {
  const { L } = useL();
  // Where the holidays are set is said to whoever can set them; an employee is told whom to ask.
  const setsParams = useApp().props.permissions.includes('param');
  const [types, setTypes] = useState<Row[]>([]);
  useEffect(() => { get<Row[]>('/api/blade-system/dict/dictionary', { code: 'leave_type' }).then((d) => setTypes(d ?? []), () => setTypes([])); }, []);
  // The days as the server counts them (working days in half days; 产假 calendar days), or why it would refuse.
  const [count, setCount] = useState<{ days?: string; workingDays?: boolean; unset?: number[]; error?: string } | null>(null);
  useEffect(() => {
    if (!f.startTime || !f.endTime) { setCount(null); return; }
    let live = true;
    get<Row>(`${LEAVE}/days`, { startTime: toServer(f.startTime), endTime: toServer(f.endTime), leaveType: f.leaveType })
      .then((d) => live && setCount({ days: String(d.days), workingDays: !!d.workingDays, unset: d.holidaysUnset ?? [] }), (e) => live && setCount({ error: msg(e) }));
    return () => { live = false; };
  }, [f.startTime, f.endTime, f.leaveType]);
  const days = count?.days ? Number(count.days) : 0;
  return (
    <>
      {/* Without the approver beside it (调整申请), the type takes its line so that 开始 and 结束 share one. */}
      <label className={approver ? undefined : 'wide'}>{L('请假类型', 'Leave type')} *
        <select aria-label={L('请假类型', 'Leave type')} value={f.leaveType} onChange={(e) => set({ ...f, leaveType: e.target.value })}>
          <option value="">{L('请选择', 'Choose')}</option>
          {types.map((t) => <option key={t.dictKey} value={t.dictKey}>{t.dictValue}</option>)}
        </select>
      </label>
      {approver}
      <label>{L('开始时间', 'From')} *<input type="datetime-local" aria-label={L('开始时间', 'From')} value={f.startTime} onChange={(e) => set({ ...f, startTime: e.target.value })} /></label>
      <label>{L('结束时间', 'To')} *<input type="datetime-local" aria-label={L('结束时间', 'To')} value={f.endTime} onChange={(e) => set({ ...f, endTime: e.target.value })} /></label>
      <p className={count?.error ? 'form-err' : 'muted'} role="status" aria-label={L('请假天数', 'Days')}>
        {count?.error ? count.error
          : days > 0 ? (count?.workingDays
            ? L(`共 ${count.days} 个工作日(周末、节假日不计)${days > 3 ? ',超过3天需管理员审批' : ''}`, `${count.days} working days (weekends and holidays not counted)${days > 3 ? '; over 3 days an administrator approves too' : ''}`)
            : L(`共 ${count?.days} 天(按自然日)${days > 3 ? ',超过3天需管理员审批' : ''}`, `${count?.days} calendar days${days > 3 ? '; over 3 days an administrator approves too' : ''}`))
          : ''}
      </p>
      {days > 0 && !!count?.unset?.length && (
        <p className="form-warn" role="note">{setsParams
          ? L(`公司尚未设置 ${count.unset.join('、')} 年的法定节假日,天数只扣除了周末(节假日按工作日计);请在 参数管理 中补上(参数键 leave.holidays)`, `The company has not set its public holidays for ${count.unset.join(', ')}: only weekends are left out (holidays count as working days); add them in Parameters (key leave.holidays)`)
          : L(`公司尚未设置 ${count.unset.join('、')} 年的法定节假日,天数只扣除了周末(节假日按工作日计);如有出入请联系管理员`, `The company has not set its public holidays for ${count.unset.join(', ')}: only weekends are left out (holidays count as working days); ask an administrator if this looks wrong`)}</p>
      )}
      <label className="wide">{L('请假理由', 'Reason')} *<textarea aria-label={L('请假理由', 'Reason')} value={f.reason} maxLength={500} onChange={(e) => set({ ...f, reason: e.target.value })} /><small className="muted count">{[...(f.reason ?? '')].length}/500</small></label>
    </>
  );
}

const draftMissing = (f: LeaveDraft) => !f.leaveType || !f.startTime || !f.endTime || !f.reason.trim();

export function LeaveForm({ processId }: { processId: string }) {
  const { L } = useL();
  const { navigate } = useApp();
  const toast = useToast();
  const proc = useProcess(processId);
  const [f, setF] = useState({ leaveType: '', taskUser: '', startTime: '', endTime: '', reason: '' });
  const [busy, setBusy] = useState(false);
  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    if (draftMissing(f)) {
      toast(L('请选择请假类型,填写开始时间、结束时间和请假理由', 'Choose the type and fill in the start, the end and the reason'), 'warning');
      return;
    }
    setBusy(true);
    try {
      await post(`${LEAVE}/start-process`, { processDefinitionId: processId, leaveType: f.leaveType, taskUser: f.taskUser || undefined, startTime: toServer(f.startTime), endTime: toServer(f.endTime), reason: f.reason });
      toast(L('请假申请已提交', 'Leave application submitted'));
      navigate('/work/process/leave');
    } catch (err) {
      toast(msg(err), 'error');
    } finally {
      setBusy(false);
    }
  };
  return (
    <section className="detail-page flow-detail" aria-label={L('请假申请', 'Leave application')}>
      <form className="card flow-form" onSubmit={submit}>
        <h3>{L('请假基础信息', 'Leave')}</h3>
        <LeaveFields f={f} set={(d) => setF({ ...f, ...d })}
          approver={<label>{L('审批人员', 'Approver')}<UserSelect exceptSelf label={L('审批人员', 'Approver')} value={f.taskUser} onChange={(v) => setF({ ...f, taskUser: v })} /><span className="muted">{L('不选则由部门负责人审批', 'Left empty, your department leader approves')}</span></label>} />
        <div className="flow-actions"><button type="submit" className="btn btn-primary" disabled={busy}>{L('提交', 'Submit')}</button></div>
      </form>
      <div className="card"><h3>{L('流程图', 'Diagram')}</h3>{proc && <div className="flow-canvas"><Diagram def={proc.definition} label={proc.name} /></div>}</div>
    </section>
  );
}

/** Any other process: one input per declared variable, of its type. */
export function StartForm({ processId }: { processId: string }) {
  const { L } = useL();
  const { navigate } = useApp();
  const toast = useToast();
  const proc = useProcess(processId);
  // Two processes started side by side are told apart by name (they read 发起流程 · 1, · 2).
  useTagName(proc?.name);
  const [vals, setVals] = useState<Record<string, any>>({});
  const vars: Row[] = proc?.definition?.variables ?? [];
  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    const variables: Record<string, any> = {};
    for (const v of vars) {
      const x = vals[v.name];
      if (x === undefined || x === '') continue;
      variables[v.name] = v.type === 'bool' ? x === true || x === 'true' : x;
    }
    try {
      await post(`${F}/work/start-process`, { processDefinitionId: processId, variables });
      toast(L('已发起', 'Started'));
      navigate('/work/send');
    } catch (err) {
      toast(msg(err), 'error');
    }
  };
  return (
    <section className="detail-page flow-detail" aria-label={proc?.name ?? L('发起流程', 'Start')}>
      <form className="card flow-form" onSubmit={submit}>
        <h3>{proc?.name ?? '…'}</h3>
        {vars.map((v) => (
          <label key={v.name}>{(v.label || v.name) + (v.required ? ' *' : '')}
            {v.type === 'user' ? <UserSelect label={v.label || v.name} value={vals[v.name] ?? ''} onChange={(x) => setVals({ ...vals, [v.name]: x })} />
              : v.type === 'bool' ? <input type="checkbox" aria-label={v.label || v.name} checked={!!vals[v.name]} onChange={(e) => setVals({ ...vals, [v.name]: e.target.checked })} />
              : <input aria-label={v.label || v.name} type={v.type === 'date' ? 'date' : 'text'} inputMode={v.type === 'number' ? 'decimal' : undefined} value={vals[v.name] ?? ''} onChange={(e) => setVals({ ...vals, [v.name]: e.target.value })} />}
          </label>
        ))}
        <div className="flow-actions"><button type="submit" className="btn btn-primary">{L('发起', 'Start')}</button></div>
      </form>
      <div className="card"><h3>{L('流程图', 'Diagram')}</h3>{proc && <div className="flow-canvas"><Diagram def={proc.definition} label={proc.name} /></div>}</div>
    </section>
  );
}

/** 请假流程: the signed-in user's own leave applications — dates, days, approver, state and the step each waits
 * at, its details (history) and its path on the diagram — and 发起请假 on the latest leave process. */
export function LeaveList() {
  const { navigate, props } = useApp();
  const { L, en } = useL();
  const perms = useMemo(() => new Set(props.permissions), [props.permissions]);
  const [page, setPage] = useState({ current: 1, size: 10 });
  const [data, setData] = useState<{ records: Row[]; total: number; pages: number } | null>(null);
  const [err, setErr] = useState<string | null>(null);
  const [leaveProcess, setLeaveProcess] = useState<string | null | undefined>(undefined);
  const [diagram, setDiagram] = useState<string | null>(null);
  const [loaded, setLoaded] = useState(0);
  useEffect(() => {
    setErr(null);
    get(`${LEAVE}/list`, { current: page.current, size: page.size }).then(setData, (e) => setErr(msg(e)));
  }, [page, loaded]);
  const toast = useToast();
  const [asking, ask] = useAsk();
  // His own leave, still with its first approver (no step decided yet: the list's `withdrawable`), can be taken
  // back here as in 已发事务 — asked first, since it ends the application.
  const withdraw = async (r: Row) => {
    if (await ask({ text: L(`撤回 ${r.startTime} 起 ${r.days} 天的请假申请?撤回后审批人不再处理,申请结束`, `Withdraw the leave of ${r.days} days from ${r.startTime}? Its approvers no longer see it and the application ends`) }) === null) return;
    try {
      await post(`${F}/work/withdraw`, undefined, { processInstanceId: r.processInstanceId });
      toast(L('已撤回', 'Withdrawn'));
      setLoaded((n) => n + 1);
    } catch (e) {
      toast(msg(e), 'error');
    }
  };
  useEffect(() => {
    get(`${F}/work/start-list`, { current: 1, size: 100 }).then(
      // The leave process itself (key `leave`): another process of the leave category (a company's own) has
      // its own start form.
      (d: { records: Row[] }) => setLeaveProcess(d.records.find((r) => r.key === 'leave')?.id ?? null),
      () => setLeaveProcess(null),
    );
  }, []);
  const canStart = perms.has('work_start_flow');
  const cols: [string, (r: Row) => ReactNode][] = [
    [L('申请时间', 'Applied'), (r) => r.applyTime],
    [L('请假类型', 'Type'), (r) => r.leaveTypeName || '—'],
    [L('开始时间', 'From'), (r) => r.startTime],
    [L('结束时间', 'To'), (r) => r.endTime],
    [L('天数', 'Days'), (r) => String(Math.round(Number(r.days) * 100) / 100)],
    [L('请假理由', 'Reason'), (r) => <span className="clip" title={r.reason}>{r.reason}</span>],
    [L('审批人员', 'Approver'), (r) => r.taskUserName || L('部门负责人', 'Department leader')],
    [L('状态', 'Status'), (r) => <span className={'flow-status s' + r.status}>{en ? r.statusNameEn : r.statusName}</span>],
    [L('当前步骤', 'Waiting at'), (r) => (r.taskName ? (r.waitingOn ? `${r.taskName} · ${r.waitingOn === '待签收' ? L('待签收', 'to be claimed') : r.waitingOn}` : r.taskName) : r.endTimeOfProcess ? L(`${r.endTimeOfProcess} 结束`, `Ended ${r.endTimeOfProcess}`) : '—')],
    [L('操作', 'Actions'), (r) => <span className="row-actions">
      <button type="button" className="link" onClick={() => navigate(`/work/process/leave/detail/${r.processInstanceId}/${r.businessId}`)}>{L('详情', 'Details')}</button>
      <button type="button" className="link" onClick={() => setDiagram(r.processInstanceId)}>{L('流程图', 'Diagram')}</button>
      {r.withdrawable && perms.has('work_send') && <button type="button" className="link" onClick={() => void withdraw(r)}>{L('撤回', 'Withdraw')}</button>}
    </span>],
  ];
  return (
    <section className="card flow-work" aria-label={L('我的请假', 'My leave')}>
      {asking}
      <div className="crud-tools">
        {canStart && (
          <button type="button" className="btn btn-primary" disabled={!leaveProcess} title={leaveProcess === null ? L('没有已部署的请假流程,请联系管理员部署', 'No leave process is deployed: ask an administrator') : undefined}
            onClick={() => leaveProcess && navigate(`/work/process/leave/form/${leaveProcess}`)}>{L('发起请假', 'Apply for leave')}</button>
        )}
        {leaveProcess === null && <span className="muted">{L('没有已部署的请假流程,请联系管理员部署', 'No leave process is deployed: ask an administrator')}</span>}
      </div>
      {err && <div className="form-err" role="alert">{err}</div>}
      <Table cols={cols} rows={data?.records ?? []} empty={data ? L('还没有请假申请', 'No leave applications yet') : L('加载中…', 'Loading…')} label={L('我的请假', 'My leave')} />
      {data && <Pager total={data.total} current={page.current} pages={data.pages} size={page.size} go={(o) => setPage({ ...page, ...o })} />}
      <DiagramDialog open={!!diagram} onOpenChange={(o) => { if (!o) setDiagram(null); }} instanceId={diagram ?? undefined} />
    </section>
  );
}
