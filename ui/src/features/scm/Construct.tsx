// 施工单 /construct/info/{constructCode?}/{edit?}/{tagname?} (SPEC §2): without a code, a new construct (project,
// one of its contracts no construct uses yet, mode, buildings, plan); with one, the construct across tabs —
// 基本信息 (viewed, or edited when the second segment is `edit`), 班组 (manager, crew), 点工 (day work), 量房
// (measures with their rooms, sent for approval), 审批 (crew organisation) — under a status line that moves it
// forward one step at a time, naming what is missing first. The first screen comes rendered with its data
// (`page.kind == "construct"`, app/api/scm construct_page); later changes reload from the same routes.
import { useCallback, useEffect, useMemo, useState, type FormEvent, type MouseEvent, type ReactNode } from 'react';
import { useApp } from '../../app';
import { post, errText } from '../../lib/api';
import { useToast } from '../../components/ui/toast';
import { Dialog, useAsk } from '../../components/ui/dialog';
import { RefPicker } from '../crud/FormDialog';
import type { Field } from '../../types';
import { Facts, Table } from '../../components/ui/record';
import { RoomsEditor, roomsOf, type Room } from '../crud/RoomsEditor';
import { useL, yuan } from '../../lib/words';
import { byCode, MODE, MODEL_STATUS } from './ProjectDetail';

type Row = Record<string, any>;
const S = '/api/blade-scm';
const A = `${S}/flowable/approval`;
const TABS: [string, string, string][] = [['base', '基本信息', 'Details'], ['crew', '班组', 'Crew'], ['daywork', '点工', 'Day work'], ['measure', '量房', 'Measures'], ['approval', '审批', 'Approval']];
const APPROVAL: Record<string, [string, string]> = { 0: ['审批中', 'In approval'], 1: ['审批通过', 'Approved'], 2: ['审批不通过', 'Rejected'] };
const MEASURE: Record<string, [string, string]> = { 0: ['草稿', 'Draft'], 1: ['审批中', 'In approval'], 2: ['已通过', 'Approved'], 3: ['已驳回', 'Rejected'] };

/** A record picker over a list route (searches as you type). */
const picker = (resource: string, list: string, title: string): Field =>
  ({ name: `${resource}Id`, kind: 'long', label: '', labelEn: '', required: true, filter: false, sort: false, search: false, list: false, form: true, refers: { resource, list, title } });
const PROJECT = picker('project', `POST ${S}/project/list`, 'projectName');
const WORKER = picker('worker', `POST ${S}/worker/page/down/list`, 'workerName');
// People who can sign in (a technical worker's account cannot be a 项目经理).
const USER: Field = { ...picker('user', 'GET /api/blade-user/page', 'realName'), refers: { resource: 'user', list: 'GET /api/blade-user/page', title: 'realName', staff: true } };

export function ConstructInfo({ code, edit, tag }: { code?: string; edit?: string; tag?: string }) {
  if (!code || code === 'new') return <ConstructCreate />;
  return <ConstructView key={code} code={code} editing={edit === 'edit'} tag={TABS.some(([k]) => k === tag) ? tag! : 'base'} />;
}

/** The buildings of a project (from its imported rooms), for the construct's building choice. */
function useBuildings(projectId: string) {
  const [names, setNames] = useState<string[]>([]);
  useEffect(() => {
    if (!projectId) return setNames([]);
    post(`${S}/building/page/down/list/${projectId}/0`).then((b) => setNames((b ?? []).map((r: Row) => String(r.buildingName)))).catch(() => setNames([]));
  }, [projectId]);
  return names;
}

/** The form of a construct's own fields (new, or edited on the 基本信息 tab). */
function BaseForm({ initial, onSaved, onCancel }: { initial: Row; onSaved: (rec: Row) => void; onCancel?: () => void }) {
  const { L, st } = useL();
  const [f, setF] = useState<Row>(initial);
  const [contracts, setContracts] = useState<Row[]>([]);
  const [err, setErr] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const buildings = useBuildings(String(f.projectId ?? ''));
  const isNew = !initial.id;
  const { navigate } = useApp();
  const toProject = async (projectId: string) => {
    try {
      const p = await post(`${S}/project/detail/${projectId}`);
      navigate(`/project/detail/${encodeURIComponent(String(p.projectCode))}`);
    } catch (e2) {
      setErr(errText(e2));
    }
  };
  useEffect(() => {
    if (!f.projectId) return setContracts([]);
    post(`${S}/project/unassigned/construct/contract/list/${f.projectId}/${initial.id ?? 0}`, { size: 100 })
      .then((d) => setContracts(d?.records ?? d ?? []))
      .catch(() => setContracts([]));
  }, [f.projectId, initial.id]);
  const chosen = String(f.buildings ?? '').split(',').filter(Boolean);
  const toggle = (b: string) => setF({ ...f, buildings: (chosen.includes(b) ? chosen.filter((x) => x !== b) : [...chosen, b]).join(',') });
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setErr(null);
    if (!f.projectId) return setErr(L('请选择所属项目', 'Choose the project'));
    if (!f.contractId) return setErr(L('请选择所属合同', 'Choose the contract'));
    if (!String(f.constructName ?? '').trim()) return setErr(L('请填写施工内容', 'Enter the work'));
    if (f.planStart && f.planEnd && f.planEnd < f.planStart) return setErr(L('计划完工不能早于计划开工', 'The planned end is before the planned start'));
    setBusy(true);
    try {
      const body = { id: initial.id, projectId: f.projectId, contractId: f.contractId, constructName: f.constructName, constructMode: f.constructMode ?? 1, buildings: f.buildings ?? '', planStart: f.planStart || '', planEnd: f.planEnd || '', remark: f.remark ?? '' };
      onSaved(await post(`${S}/construct/${isNew ? 'add' : 'update'}`, body));
    } catch (e2) {
      setErr(errText(e2));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="flow-form" onSubmit={submit} aria-label={L('施工单', 'Construct')}>
      <label>{L('所属项目', 'Project')} *
        {isNew
          ? <RefPicker id="k-project" field={PROJECT} value={String(f.projectId ?? '')} label={f.projectName ?? ''} onChange={(id, t) => setF({ ...f, projectId: id, projectName: t, contractId: '', buildings: '' })} />
          : <input value={f.projectName ?? ''} readOnly />}
      </label>
      <label>{L('所属合同', 'Contract')} *
        <select value={String(f.contractId ?? '')} onChange={(e) => setF({ ...f, contractId: e.target.value })} aria-label={L('所属合同', 'Contract')}>
          <option value="">{f.projectId ? (contracts.length ? L('请选择', 'Choose') : L('该项目没有未分配的合同', 'No unassigned contracts')) : L('先选择项目', 'Choose a project first')}</option>
          {contracts.map((c) => <option key={c.id} value={String(c.id)}>{c.contractCode} · {c.contractName} · {yuan(c.contractAmount)}</option>)}
        </select>
        {/* Not a dead end: the project's page creates a contract or binds one. */}
        {f.projectId && !contracts.length && (
          <span className="muted">{L('施工单要归属一份合同:', 'A construct belongs to a contract: ')}
            <a href="#" className="link" onClick={(e) => { e.preventDefault(); void toProject(String(f.projectId)); }}>{L('到项目页新建或绑定合同', 'create or bind one on the project page')}</a>
          </span>
        )}
      </label>
      <label className="wide">{L('施工内容', 'Work')} *
        <input value={f.constructName ?? ''} maxLength={100} onChange={(e) => setF({ ...f, constructName: e.target.value })} />
      </label>
      <label>{L('施工模式', 'Mode')}
        <select value={String(f.constructMode ?? 1)} onChange={(e) => setF({ ...f, constructMode: Number(e.target.value) })}>
          {[1, 2, 3, 0].map((m) => <option key={m} value={m}>{st(MODE, m)}</option>)}
        </select>
      </label>
      <label>{L('计划开工', 'Planned start')}<input type="date" value={String(f.planStart ?? '').slice(0, 10)} onChange={(e) => setF({ ...f, planStart: e.target.value })} /></label>
      <label>{L('计划完工', 'Planned end')}<input type="date" value={String(f.planEnd ?? '').slice(0, 10)} onChange={(e) => setF({ ...f, planEnd: e.target.value })} /></label>
      <div className="wide">
        <span className="muted">{L('施工楼栋', 'Buildings')}</span>
        <div className="chips" role="group" aria-label={L('施工楼栋', 'Buildings')}>
          {buildings.length === 0 && <input value={f.buildings ?? ''} maxLength={255} placeholder={L('项目尚未导入楼栋,可直接填写,逗号分隔', 'No buildings imported; type them, comma-separated')} onChange={(e) => setF({ ...f, buildings: e.target.value })} />}
          {buildings.map((b) => <label key={b} className="chip"><input type="checkbox" checked={chosen.includes(b)} onChange={() => toggle(b)} /> {b}</label>)}
        </div>
      </div>
      <label className="wide">{L('备注', 'Remark')}<textarea value={f.remark ?? ''} maxLength={1000} onChange={(e) => setF({ ...f, remark: e.target.value })} /></label>
      {err && <div className="form-err" role="alert">{err}</div>}
      <div className="flow-actions">
        <button type="submit" className="btn btn-primary" disabled={busy}>{isNew ? L('创建施工单', 'Create the construct') : L('保存', 'Save')}</button>
        {onCancel && <button type="button" className="btn" onClick={onCancel}>{L('取消', 'Cancel')}</button>}
      </div>
    </form>
  );
}

function ConstructCreate() {
  const { navigate, props } = useApp();
  const { L } = useL();
  const toast = useToast();
  const [project, setProject] = useState<Row | null | undefined>(undefined);
  // /construct/info?projectId=… (the project page's 新建施工单) starts with that project chosen.
  const projectId = new URLSearchParams(props.url.split('?')[1] ?? '').get('projectId') ?? '';
  useEffect(() => {
    if (!projectId) return setProject(null);
    post(`${S}/project/detail/${projectId}`).then((p) => setProject(p ?? null)).catch(() => setProject(null));
  }, [projectId]);
  if (!props.permissions.includes('construct_add')) return <section className="detail-page"><p className="empty">{L('没有新建施工单的权限', 'You may not create constructs')}</p></section>;
  if (project === undefined) return <section className="detail-page" aria-busy="true"><p className="muted">{L('加载中…', 'Loading…')}</p></section>;
  return (
    <section className="detail-page" aria-label={L('新建施工单', 'New construct')}>
      <div className="card">
        <h2>{L('新建施工单', 'New construct')}</h2>
        <BaseForm initial={project ? { projectId: String(project.id), projectName: project.projectName, constructMode: 1 } : { constructMode: 1 }}
          onSaved={(rec) => { toast(L('施工单已创建', 'Construct created')); navigate(`/construct/info/${rec.constructCode}/edit/crew`, { replace: true }); }} />
      </div>
    </section>
  );
}

type Data = { construct: Row | null; crew?: Row; dayWork?: Row[]; measures?: Row | null };

function ConstructView({ code, editing, tag }: { code: string; editing: boolean; tag: string }) {
  const { navigate, props } = useApp();
  const { L, st } = useL();
  const toast = useToast();
  const perms = useMemo(() => new Set(props.permissions), [props.permissions]);
  const first = props.page.kind === 'construct' && (props.page as any).code === code ? (props.page as unknown as Data) : undefined;
  const [d, setD] = useState<Data | undefined>(first);
  const [tab, setTab] = useState(tag);
  const [edit, setEdit] = useState(editing);
  const [err, setErr] = useState<string | null>(null);
  const [asking, ask] = useAsk();
  const load = useCallback(async () => {
    try {
      const k = await byCode('construct', 'constructCode', code);
      if (!k) return setD({ construct: null });
      const id = k.id;
      const [c, w, m] = await Promise.all([
        post(`${S}/construct/worker/list`, { constructId: id, size: 100 }),
        post(`${S}/construct/day/worker/list`, { constructId: id }),
        perms.has('measure') ? post(`${S}/measure/list`, { constructId: id, size: 20 }) : Promise.resolve(null),
      ]);
      const full = await post(`${S}/construct/detail/${id}`);
      setD({ construct: full, crew: c, dayWork: w ?? [], measures: m });
    } catch (e) {
      setErr(errText(e));
    }
  }, [code, perms]);
  useEffect(() => { if (!first) void load(); }, [first, load]);
  const go = (t: string, e2 = edit) => {
    setTab(t);
    setEdit(e2);
    if (typeof history !== 'undefined') history.replaceState(history.state, '', `/construct/info/${code}/${e2 ? 'edit' : 'view'}/${t}`);
  };
  const act = async (f: () => Promise<unknown>, done: string) => {
    try { await f(); toast(done); await load(); } catch (e) { toast(errText(e), 'error'); }
  };
  if (err) return <section className="detail-page"><div className="form-err" role="alert">{err}</div></section>;
  if (d === undefined) return <section className="detail-page" aria-busy="true"><p className="muted">{L('加载中…', 'Loading…')}</p></section>;
  const k = d.construct;
  if (!k) return <section className="detail-page"><p className="empty">{L(`施工单 ${code} 不存在或无权查看`, `Construct ${code} does not exist or is not yours to see`)}</p></section>;
  const status = Number(k.modelStatus);
  const canEdit = perms.has('construct_edit') && status < 4;
  const crew: Row[] = d.crew?.records ?? [];
  const dayWork: Row[] = d.dayWork ?? [];
  // The next step and what it needs (the server checks the same and says so when it is missing).
  const next: [string, string] | null = ({ 1: [L('转为待派单', 'Send to dispatch'), k.managerId ? '' : L('需先在「班组」指定项目经理', 'Assign a manager on the Crew tab first')],
    2: [L('开始施工', 'Start construction'), !(crew.length || dayWork.length) ? L('需先绑定班组或登记点工', 'Bind a crew or record day work first')
      : Number(k.approvalStatus) === 0 && k.approvalStatus != null ? L('人工组织审批通过后才能开始施工', 'Starts once the crew organisation approval is passed')
      : Number(k.approvalStatus) === 2 ? L(`人工组织审批未通过${k.approvalNote ? `(${k.approvalNote})` : ''}，请修改后重新提交`, `The crew organisation approval was refused${k.approvalNote ? ` (${k.approvalNote})` : ''}; apply again`) : ''],
    3: [L('完工', 'Complete'), L('所有施工进度任务完成后才能完工', 'All progress tasks must be done first')] } as Record<number, [string, string]>)[status] ?? null;
  const openProject = (e: MouseEvent) => {
    e.preventDefault();
    void post(`${S}/project/detail/${k.projectId}`).then((p) => p && navigate(`/project/detail/${p.projectCode}`)).catch(() => {});
  };
  return (
    <section className="detail-page" aria-label={L('施工单', 'Construct')}>
      {asking}
      <div className="card">
        <div className="card-head">
          <h2>{k.constructName} <span className="tag">{st(MODEL_STATUS, status)}</span></h2>
          <div className="row-actions">
            {status >= 3 && <button type="button" className="btn" onClick={() => navigate(`/process/detail/${k.constructCode}`)}>{L('施工进度', 'Progress')}</button>}
            {canEdit && status === 2 && !(crew.length || dayWork.length) && tab !== 'crew' && (
              <button type="button" className="btn" onClick={() => go('crew')}>{L('派单', 'Dispatch')}</button>
            )}
            {canEdit && next && (
              <button type="button" className="btn btn-primary" title={next[1] || undefined}
                onClick={async () => {
                  // What is known to be missing before a start (a crew, its approval) is said at once, not after
                  // a confirmation the server would then refuse.
                  if (status === 2 && next[1]) return toast(next[1], 'warning');
                  // Starting and completing cannot be undone: asked first.
                  if (status >= 2 && (await ask({ text: status === 2
                    ? L('开始施工后将生成各楼栋的施工进度任务，合同转为执行中，不能撤销。确定开始施工？', 'Starting creates the progress tasks of every building and moves the contract to executing; it cannot be undone. Start?')
                    : L('完工后施工单不能再修改。确定完工？', 'A completed construct cannot be changed. Complete it?') })) === null) return;
                  await act(() => post(`${S}/construct/update`, { id: k.id, modelStatus: status + 1 }), L('状态已更新', 'Status changed'));
                }}>{next[0]}</button>
            )}
          </div>
        </div>
        <ol className="timeline" aria-label={L('施工状态', 'Status')}>
          {[1, 2, 3, 4].map((s) => (
            <li key={s} className={s < status ? 'done' : s === status ? 'active' : ''} aria-current={s === status ? 'step' : undefined}>
              <b>{st(MODEL_STATUS, s)}</b>
              {s === status + 1 && next?.[1] && <span className="muted small">{next[1]}</span>}
            </li>
          ))}
        </ol>
      </div>
      <div className="card">
        <div className="tabs" role="tablist" aria-label={L('施工单', 'Construct')}>
          {TABS.map(([key, zh, en]) => (
            <button key={key} type="button" role="tab" aria-selected={tab === key} className={'btn' + (tab === key ? ' btn-primary' : '')} onClick={() => go(key)}>{L(zh, en)}</button>
          ))}
        </div>
        <div role="tabpanel" className="tab-panel">
          {tab === 'base' && (edit && canEdit
            ? <BaseForm initial={k} onSaved={() => { toast(L('已保存', 'Saved')); go('base', false); void load(); }} onCancel={() => go('base', false)} />
            : (
              <>
                <Facts rows={[
                  [L('施工单号', 'Code'), k.constructCode],
                  [L('所属项目', 'Project'), <a className="link" href="#" onClick={openProject}>{k.projectName}</a>],
                  [L('所属合同', 'Contract'), k.contractName], [L('施工模式', 'Mode'), st(MODE, k.constructMode)],
                  [L('项目经理', 'Manager'), k.managerName], [L('施工楼栋', 'Buildings'), k.buildings],
                  [L('计划开工', 'Planned start'), k.planStart], [L('计划完工', 'Planned end'), k.planEnd],
                  [L('人工组织审批', 'Crew approval'), k.approvalStatus == null || k.approvalStatus === '' ? L('未提交', 'Not sent') : st(APPROVAL, k.approvalStatus)],
                  [L('备注', 'Remark'), k.remark],
                ]} />
                {canEdit && <div className="flow-actions"><button type="button" className="btn" onClick={() => go('base', true)}>{L('编辑', 'Edit')}</button></div>}
              </>
            ))}
          {tab === 'crew' && <CrewTab k={k} crew={crew} canEdit={canEdit} act={act} ask={ask} />}
          {tab === 'daywork' && <DayWorkTab k={k} rows={dayWork} canEdit={perms.has('construct_edit') && status < 4} act={act} ask={ask} />}
          {tab === 'measure' && <MeasureTab k={k} page={d.measures} perms={perms} act={act} />}
          {tab === 'approval' && <ApprovalTab k={k} crew={crew.length} canSend={perms.has('approval_task_add')} act={act} />}
        </div>
      </div>
    </section>
  );
}

type Act = (f: () => Promise<unknown>, done: string) => Promise<void>;
type Ask = ReturnType<typeof useAsk>[1];

function CrewTab({ k, crew, canEdit, act, ask }: { k: Row; crew: Row[]; canEdit: boolean; act: Act; ask: Ask }) {
  const { L } = useL();
  // Before the start, the crew is what its 人工组织审批 approved (the server keeps the same rule): while the
  // approval is under way it stays as it is; once passed, a change needs a new approval, so it is asked first.
  const started = Number(k.modelStatus) >= 3;
  const approval = k.approvalStatus == null || k.approvalStatus === '' ? null : Number(k.approvalStatus);
  const pending = !started && approval === 0;
  const change = async (f: () => Promise<unknown>, done: string) => {
    if (!started && approval === 1 && (await ask({ text: L('人工组织审批已通过。更换班组后需重新提交审批,才能开始施工。确定更换？', 'The crew organisation approval has passed. After this change the crew must be approved again before construction starts. Change it?') })) === null) return;
    await act(f, done);
  };
  return (
    <div className="tab-body">
      <div className="bind-box">
        <span>{L('项目经理', 'Manager')}:<b>{k.managerName || L('未指定', 'none')}</b></span>
        {canEdit && (
          <span className="row-actions">
            <span className="muted">{L('指定为', 'Assign')}</span>
            <RefPicker id="k-manager" field={USER} value="" label="" onChange={async (id, name) => {
              if (String(id) === String(k.managerId ?? '')) return;
              // Replacing a manager hands the construct (and its approvals) to someone else: asked first.
              if (k.managerId && (await ask({ text: L(`将项目经理由 ${k.managerName || k.managerId} 改为 ${name || id}？`, `Change the manager from ${k.managerName || k.managerId} to ${name || id}?`) })) === null) return;
              await act(() => post(`${S}/construct/assign/manager`, { id: k.id, managerId: id }), L('已指定项目经理', 'Manager assigned'));
            }} />
          </span>
        )}
      </div>
      {canEdit && pending && <p className="muted" role="note">{L('人工组织审批中:审批结束或撤回申请后才能更换班组', 'The crew organisation approval is under way: the crew changes once it ends or is withdrawn')}</p>}
      {canEdit && !pending && (
        <div className="bind-box">
          <span className="muted">{L('绑定工人', 'Bind a worker')}</span>
          <RefPicker id="k-worker" field={WORKER} value="" label="" onChange={(id) => change(() => post(`${S}/construct/worker/bind/${k.id}/${id}`), L('已绑定', 'Bound'))} />
        </div>
      )}
      <Table label={L('施工班组', 'Crew')} empty={L('尚未绑定工人', 'No workers bound yet')} rows={crew} cols={[
        [L('姓名', 'Name'), (r) => r.workerName], [L('工种', 'Trade'), (r) => r.workerJobName], [L('等级', 'Level'), (r) => r.workerJobLevelName],
        [L('班组', 'Team'), (r) => r.teamName], [L('手机号码', 'Phone'), (r) => r.phone],
        [L('操作', 'Action'), (r) => canEdit && !pending ? <button type="button" className="link danger" onClick={() => change(() => post(`${S}/construct/worker/unbind/${k.id}/${r.workerId}`), L('已解绑', 'Unbound'))}>{L('解绑', 'Unbind')}</button> : null],
      ]} />
    </div>
  );
}

function DayWorkTab({ k, rows, canEdit, act, ask }: { k: Row; rows: Row[]; canEdit: boolean; act: Act; ask: Ask }) {
  const { L } = useL();
  const [f, setF] = useState<Row>({ workDate: '', workDays: '1', dayRate: '', workContent: '' });
  // Each entry (its day, rate and work), newest first: the totals alone could not be checked or corrected.
  const [entries, setEntries] = useState<Row[]>([]);
  const [seen, setSeen] = useState(0);
  useEffect(() => {
    void post(`${S}/construct/day/worker/detail/list`, { constructId: k.id, size: 100 }).then((d) => setEntries(d?.records ?? [])).catch(() => setEntries([]));
  }, [k.id, seen, rows]);
  const total = rows.reduce((s, r) => s + Math.round(Number(r.amount) * 100), 0);
  const add = (e: FormEvent) => {
    e.preventDefault();
    if (!f.workerId) return;
    void act(() => post(`${S}/construct/day/worker/bind`, { constructId: k.id, ...f }), L('点工已登记', 'Day work recorded')).then(() => { setF({ ...f, workerId: '', workerName: '' }); setSeen((n) => n + 1); });
  };
  const remove = async (r: Row) => {
    if ((await ask({ text: L(`删除 ${r.workerName} ${String(r.workDate).slice(0, 10)} 的点工(${r.workDays} 工日,¥${r.amount})？`, `Remove ${r.workerName}'s day work of ${String(r.workDate).slice(0, 10)} (${r.workDays} days, ¥${r.amount})?`) })) === null) return;
    await act(() => post(`${S}/construct/day/worker/remove`, { id: r.id }), L('点工已删除', 'Day work removed'));
    setSeen((n) => n + 1);
  };
  return (
    <div className="tab-body">
      {canEdit && (
        <form className="scan-row labelled" onSubmit={add} aria-label={L('登记点工', 'Record day work')}>
          <label><span>{L('工人', 'Worker')}</span><RefPicker id="k-dayworker" field={WORKER} value={String(f.workerId ?? '')} label={f.workerName ?? ''} onChange={(id, t) => setF({ ...f, workerId: id, workerName: t })} /></label>
          <label><span>{L('日期', 'Date')}</span><input type="date" value={f.workDate} onChange={(e) => setF({ ...f, workDate: e.target.value })} required /></label>
          <label><span>{L('工日', 'Days')}</span><input inputMode="decimal" value={f.workDays} onChange={(e) => setF({ ...f, workDays: e.target.value })} style={{ width: 70 }} required /></label>
          <label><span>{L('日工价(元)', 'Day rate (yuan)')}</span><input placeholder={L('空则按等级', 'empty: the level rate')} inputMode="decimal" value={f.dayRate} onChange={(e) => setF({ ...f, dayRate: e.target.value })} style={{ width: 120 }} /></label>
          <label><span>{L('工作内容', 'Work')}</span><input value={f.workContent} maxLength={200} onChange={(e) => setF({ ...f, workContent: e.target.value })} /></label>
          <button type="submit" className="btn btn-primary" disabled={!f.workerId}>{L('登记', 'Record')}</button>
        </form>
      )}
      <Table label={L('点工', 'Day work')} empty={L('暂无点工', 'No day work')} rows={rows.map((r) => ({ ...r, id: r.workerId }))} cols={[
        [L('工人', 'Worker'), (r) => r.workerName], [L('工日', 'Days'), (r) => r.workDays], [L('金额', 'Amount'), (r) => yuan(r.amount)], [L('记录数', 'Records'), (r) => r.records],
      ]} />
      <p className="muted">{L('点工合计', 'Day work total')}:{yuan((total / 100).toFixed(2))}</p>
      <h4>{L('点工明细', 'Day work entries')}</h4>
      <Table label={L('点工明细', 'Day work entries')} empty={L('暂无点工', 'No day work')} rows={entries} cols={[
        [L('日期', 'Date'), (r) => String(r.workDate ?? '').slice(0, 10)], [L('工人', 'Worker'), (r) => r.workerName], [L('工日', 'Days'), (r) => r.workDays],
        [L('日工价', 'Rate'), (r) => yuan(r.dayRate)], [L('金额', 'Amount'), (r) => yuan(r.amount)], [L('工作内容', 'Work'), (r) => r.workContent || '—'],
        ...(canEdit ? [[L('操作', 'Action'), (r: Row) => <button type="button" className="link danger" onClick={() => void remove(r)}>{L('删除', 'Remove')}</button>] as [string, (r: Row) => ReactNode]] : []),
      ]} />
    </div>
  );
}

function MeasureTab({ k, page, perms, act }: { k: Row; page?: Row | null; perms: Set<string>; act: Act }) {
  const { L, st } = useL();
  const [open, setOpen] = useState<Row | null>(null);
  if (!perms.has('measure')) return <p className="muted">{L('没有查看量房的权限', 'You may not see measures')}</p>;
  const rows: Row[] = page?.records ?? [];
  const canAdd = perms.has('measure_add') && Number(k.modelStatus) < 4;
  return (
    <div className="tab-body">
      {canAdd && <div className="flow-actions"><button type="button" className="btn btn-primary" onClick={() => setOpen({ rooms: [] })}>{L('新增量房', 'New measure')}</button></div>}
      <Table label={L('量房', 'Measures')} empty={L('暂无量房记录', 'No measures')} rows={rows} cols={[
        [L('量房日期', 'Date'), (r) => r.measureDate], [L('量房人', 'Measurer'), (r) => r.measurer], [L('房间数', 'Rooms'), (r) => r.roomCount],
        [L('地面面积(㎡)', 'Floor area (㎡)'), (r) => r.totalArea], [L('状态', 'Status'), (r) => (Number(r.measureStatus) === 3 && r.approvalNote ? <span title={r.approvalNote}>{st(MEASURE, r.measureStatus)}<span className="muted small">({r.approvalNote})</span></span> : st(MEASURE, r.measureStatus))],
        [L('操作', 'Action'), (r) => (
          <span className="row-actions">
            {[0, 3].includes(Number(r.measureStatus)) && perms.has('measure_edit') && <button type="button" className="link" onClick={() => setOpen(r)}>{L('编辑', 'Edit')}</button>}
            {[0, 3].includes(Number(r.measureStatus)) && perms.has('approval_task_add') && Number(r.roomCount) > 0 && (
              <button type="button" className="link" onClick={() => act(() => post(`${A}/event/start`, { applyType: 1, businessId: r.id }), L('已提交审批', 'Sent for approval'))}>{L('提交审批', 'Send for approval')}</button>
            )}
          </span>
        )],
      ]} />
      {open && <RoomsDialog k={k} rec={open} onClose={() => setOpen(null)} onSaved={() => { setOpen(null); void act(async () => {}, L('已保存', 'Saved')); }} />}
    </div>
  );
}

/** A measure's rooms: name, length × width (× height) in millimetres; the floor area follows as you type. */
function RoomsDialog({ k, rec, onClose, onSaved }: { k: Row; rec: Row; onClose: () => void; onSaved: () => void }) {
  const { L } = useL();
  const [rooms, setRooms] = useState<Room[]>(() => { const r = roomsOf(rec.rooms); return r.length ? r : [{ roomName: '客厅', length: '', width: '', height: '' }]; });
  const [head, setHead] = useState<Row>({ measureDate: String(rec.measureDate ?? '').slice(0, 10), measurer: rec.measurer ?? '' });
  const [err, setErr] = useState<string | null>(null);
  const save = async () => {
    setErr(null);
    try {
      const body = { id: rec.id, constructId: k.id, ...head, rooms: JSON.stringify(rooms.map((r) => ({ roomName: r.roomName, length: r.length, width: r.width, ...(String(r.height ?? '') ? { height: r.height } : {}) }))) };
      await post(`${S}/measure/${rec.id ? 'update' : 'save'}`, body);
      onSaved();
    } catch (e) {
      setErr(errText(e));
    }
  };
  return (
    <Dialog open onOpenChange={(o) => { if (!o) onClose(); }} title={rec.id ? L('编辑量房', 'Edit the measure') : L('新增量房', 'New measure')} width={720}
      footer={<><button type="button" className="btn" onClick={onClose}>{L('取消', 'Cancel')}</button><button type="button" className="btn btn-primary" onClick={save}>{L('保存', 'Save')}</button></>}>
      <div className="flow-form">
        <label>{L('量房日期', 'Date')}<input type="date" value={head.measureDate} onChange={(e) => setHead({ ...head, measureDate: e.target.value })} /></label>
        <label>{L('量房人', 'Measurer')}<input value={head.measurer} maxLength={32} onChange={(e) => setHead({ ...head, measurer: e.target.value })} /></label>
        <div className="wide"><RoomsEditor value={rooms} onChange={setRooms} /></div>
        {err && <div className="form-err wide" role="alert">{err}</div>}
      </div>
    </Dialog>
  );
}

function ApprovalTab({ k, crew, canSend, act }: { k: Row; crew: number; canSend: boolean; act: Act }) {
  const { L, st } = useL();
  const [remark, setRemark] = useState('');
  const state = k.approvalStatus == null || k.approvalStatus === '' ? null : Number(k.approvalStatus);
  return (
    <div className="tab-body">
      <p>{L('人工组织审批', 'Crew organisation approval')}:<b>{state == null ? L('未提交', 'Not sent') : st(APPROVAL, state)}</b></p>
      {state === 2 && k.approvalNote && <p className="form-err" role="note">{k.approvalNote}</p>}
      <p className="muted">{L(`当前班组 ${crew} 人。提交后由「人工组织」审批人审批,结果回到本施工单。`, `The crew has ${crew} workers. The crew-organisation approvers decide; the result comes back to this construct.`)}</p>
      {canSend && state !== 0 && Number(k.modelStatus) < 4 && (
        <div className="flow-comment">
          <label htmlFor="k-remark">{L('申请说明', 'Note')}</label>
          <textarea id="k-remark" value={remark} maxLength={255} onChange={(e) => setRemark(e.target.value)} />
          <div className="flow-actions">
            <button type="button" className="btn btn-primary" disabled={crew === 0} title={crew === 0 ? L('请先绑定班组', 'Bind a crew first') : undefined}
              onClick={() => act(() => post(`${A}/event/start`, { applyType: 2, businessId: k.id, remark }), L('已提交审批', 'Sent for approval'))}>{L('提交人工组织审批', 'Send the crew for approval')}</button>
          </div>
        </div>
      )}
    </div>
  );
}
