// 审批管理 (施工审批): the approver's task list (to do, passed, failed), submitting a measure model or a crew
// organisation for approval, the approvers of each type, an application's page (its measure, files, record,
// and the decision), the files, and the record of applications.
import { useCallback, useEffect, useMemo, useState } from 'react';
import { useApp } from '../../app';
import { get, post, upload, ApiError } from '../../lib/api';
import { useToast } from '../../components/ui/toast';
import { Dialog } from '../../components/ui/dialog';
import { Pager } from '../../components/ui/pager';
import { Facts, Table } from '../../components/ui/record';
import { useL } from '../../lib/words';
import { usePage } from './usePage';
import { FileButton } from '../../components/ui/file';

type Row = Record<string, any>;
const B = '/api/blade-scm/flowable';
const A = `${B}/approval`;
const msg = (e: unknown) => (e instanceof ApiError ? e.message : String(e));
const TYPES: [number, string, string][] = [[1, '量房模型', 'Measure model'], [2, '人工组织申请', 'Crew organisation']];
const STATUS: Record<string, [string, string]> = { 0: ['审批中', 'In approval'], 1: ['审批通过', 'Passed'], 2: ['审批未通过', 'Failed'] };
const RESULT: Record<string, [string, string]> = { 0: ['未处理', 'To do'], 1: ['通过', 'Passed'], 2: ['不通过', 'Failed'] };

/** Submits a measure (its rooms measured) or a construct for approval. */
function StartDialog({ open, onOpenChange, onDone }: { open: boolean; onOpenChange: (o: boolean) => void; onDone: () => void }) {
  const { L } = useL();
  const toast = useToast();
  const [type, setType] = useState(1);
  const [items, setItems] = useState<Row[]>([]);
  const [codes, setCodes] = useState<Record<string, string>>({});
  const [pick, setPick] = useState('');
  const [remark, setRemark] = useState('');
  useEffect(() => {
    if (!open) return;
    setPick('');
    const url = type === 1 ? '/api/blade-scm/measure/list' : '/api/blade-scm/construct/list';
    post(url, { page: 1, size: 200 }).then((d) => setItems(d?.records ?? []), () => setItems([]));
    if (type === 1) post('/api/blade-scm/construct/list', { page: 1, size: 500 }).then((d) => setCodes(Object.fromEntries((d?.records ?? []).map((k: Row) => [String(k.id), `${k.constructCode} ${k.constructName}`]))), () => setCodes({}));
  }, [open, type]);
  const label = (r: Row) => (type === 1 ? `${codes[String(r.constructId)] ?? r.constructId} · ${r.measureDate} · ${r.roomCount ?? 0} ${L('间', 'rooms')} · ${r.measureStatusName ?? ''}` : `${r.constructCode} ${r.constructName}`);
  const submit = async () => {
    if (!pick) return toast(L('请选择要审批的记录', 'Choose a record'), 'warning');
    try {
      await post(`${A}/event/start`, { applyType: type, businessId: pick, remark });
      toast(L('已提交审批', 'Submitted'));
      onOpenChange(false);
      onDone();
    } catch (e) {
      toast(msg(e), 'error');
    }
  };
  return (
    <Dialog open={open} onOpenChange={onOpenChange} title={L('发起审批', 'Submit for approval')} width={560}
      footer={<><button type="button" className="btn" onClick={() => onOpenChange(false)}>{L('取消', 'Cancel')}</button><button type="button" className="btn btn-primary" onClick={() => void submit()}>{L('提交', 'Submit')}</button></>}>
      <div className="flow-form">
        <label>{L('申请类型', 'Apply type')}<select aria-label={L('申请类型', 'Apply type')} value={type} onChange={(e) => setType(Number(e.target.value))}>{TYPES.map(([k, zh, en]) => <option key={k} value={k}>{L(zh, en)}</option>)}</select></label>
        <label>{type === 1 ? L('量房记录', 'Measure') : L('施工单', 'Construct')}<select aria-label={L('审批对象', 'Record')} value={pick} onChange={(e) => setPick(e.target.value)}><option value="">—</option>{items.map((r) => <option key={r.id} value={r.id}>{label(r)}</option>)}</select></label>
        <label className="wide">{L('说明', 'Remark')}<textarea aria-label={L('说明', 'Remark')} value={remark} maxLength={255} onChange={(e) => setRemark(e.target.value)} /></label>
      </div>
    </Dialog>
  );
}

/** The approvers of each apply type. */
function ApproversDialog({ open, onOpenChange }: { open: boolean; onOpenChange: (o: boolean) => void }) {
  const { L } = useL();
  const toast = useToast();
  const [users, setUsers] = useState<Row[]>([]);
  const [sel, setSel] = useState<Record<number, string[]>>({ 1: [], 2: [] });
  useEffect(() => {
    if (!open) return;
    get('/api/blade-flow/work/users').then(setUsers, () => setUsers([]));
    post(`${A}/user/list`, {}).then((rows: Row[]) => {
      const m: Record<number, string[]> = { 1: [], 2: [] };
      for (const r of rows) (m[r.applyType] ??= []).push(r.userId);
      setSel(m);
    }, () => undefined);
  }, [open]);
  const save = async () => {
    try {
      for (const [k] of TYPES) await post(`${B}/user/update`, { applyType: k, userIds: sel[k] ?? [] });
      toast(L('已保存', 'Saved'));
      onOpenChange(false);
    } catch (e) {
      toast(msg(e), 'error');
    }
  };
  return (
    <Dialog open={open} onOpenChange={onOpenChange} title={L('审批人员', 'Approvers')} width={560}
      footer={<><button type="button" className="btn" onClick={() => onOpenChange(false)}>{L('取消', 'Cancel')}</button><button type="button" className="btn btn-primary" onClick={() => void save()}>{L('保存', 'Save')}</button></>}>
      <p className="muted">{L('未设置审批人员时,由管理员角色的人员签收审批。', 'Without approvers, holders of the admin role claim the approvals.')}</p>
      {TYPES.map(([k, zh, en]) => (
        <div key={k} className="flow-var">
          <b>{L(zh, en)}</b>
          <select aria-label={L(`添加${zh}审批人`, `Add an approver of ${en}`)} value="" onChange={(e) => { if (e.target.value) setSel({ ...sel, [k]: [...new Set([...(sel[k] ?? []), e.target.value])] }); }}>
            <option value="">{L('添加…', 'Add…')}</option>{users.map((u) => <option key={u.id} value={u.id}>{u.realName}</option>)}
          </select>
          <span className="chips">{(sel[k] ?? []).map((u) => <button type="button" key={u} className="chip" onClick={() => setSel({ ...sel, [k]: sel[k].filter((x) => x !== u) })}>{users.find((x) => x.id === u)?.realName ?? u} ×</button>)}</span>
        </div>
      ))}
    </Dialog>
  );
}

export function ApprovalTasks() {
  const { L, st } = useL();
  const { navigate, props } = useApp();
  const perms = useMemo(() => new Set(props.permissions), [props.permissions]);
  const [result, setResult] = useState<number | null>(0);
  const { page, setPage, data, err, load } = usePage(`${A}/personal/task/list`, result === null ? {} : { result }, 'POST');
  const [starting, setStarting] = useState(false);
  const [people, setPeople] = useState(false);
  const tabs: [number | null, string, string][] = [[0, '待审批', 'To do'], [1, '已通过', 'Passed'], [2, '未通过', 'Failed'], [null, '全部', 'All']];
  return (
    <section className="card" aria-label={L('审批任务', 'Approval tasks')}>
      <div className="card-head">
        <div className="tabs" role="tablist">{tabs.map(([k, zh, en]) => <button key={String(k)} type="button" role="tab" aria-selected={result === k} className={'btn' + (result === k ? ' btn-primary' : '')} onClick={() => { setResult(k); setPage({ ...page, current: 1 }); }}>{L(zh, en)}</button>)}</div>
        <span className="row-actions">
          {perms.has('approval_task_users') && <button type="button" className="btn" onClick={() => setPeople(true)}>{L('审批人员', 'Approvers')}</button>}
          {perms.has('approval_task_add') && <button type="button" className="btn btn-primary" onClick={() => setStarting(true)}>{L('发起审批', 'Submit for approval')}</button>}
        </span>
      </div>
      {err && <div className="form-err" role="alert">{err}</div>}
      <Table label={L('审批任务', 'Approval tasks')} empty={data ? L('暂无数据', 'No data') : L('加载中…', 'Loading…')} rows={data?.records ?? []} cols={[
        [L('申请类型', 'Type'), (r) => r.applyTypeName],
        [L('施工单', 'Construct'), (r) => `${r.constructCode ?? ''} ${r.constructName ?? ''}`],
        [L('审批内容', 'Subject'), (r) => r.businessName],
        [L('申请人', 'Applicant'), (r) => r.applyUserName],
        [L('申请时间', 'Applied'), (r) => r.applyTime],
        [L('审批环节', 'Step'), (r) => r.taskName],
        [L('结果', 'Result'), (r) => st(RESULT, r.result)],
        [L('状态', 'Status'), (r) => <span className={'flow-status s' + r.status}>{st(STATUS, r.status)}</span>],
        [L('操作', 'Actions'), (r) => <span className="row-actions"><button type="button" className="link" onClick={() => navigate(`/approval/detail?taskId=${r.taskId}`)}>{r.result === 0 && perms.has('approval_task_handle') ? L('审批', 'Decide') : L('查看', 'View')}</button></span>],
      ]} />
      {data && <Pager total={data.total} current={page.current} pages={data.pages} size={page.size} go={(o) => setPage({ ...page, ...o })} />}
      <StartDialog open={starting} onOpenChange={setStarting} onDone={() => void load()} />
      <ApproversDialog open={people} onOpenChange={setPeople} />
    </section>
  );
}

export function ApprovalDetail() {
  const { L, st } = useL();
  const { navigate, props } = useApp();
  const toast = useToast();
  const perms = useMemo(() => new Set(props.permissions), [props.permissions]);
  const taskId = new URLSearchParams(props.url.split('?')[1] ?? '').get('taskId') ?? '';
  const [d, setD] = useState<Row | null>(null);
  const [hist, setHist] = useState<Row[]>([]);
  const [measure, setMeasure] = useState<Row | null>(null);
  const [err, setErr] = useState<string | null>(null);
  const [comment, setComment] = useState('');
  const load = useCallback(async () => {
    try {
      const x = await post(`${A}/detail/${taskId}`, {});
      setD(x);
      setHist(await post(`${A}/record/${x.taskGroupId}`, {}));
      if (x.applyType === 1) setMeasure(await post(`${A}/measurement/model/detail/${x.taskGroupId}`, {}));
    } catch (e) {
      setErr(msg(e));
    }
  }, [taskId]);
  useEffect(() => { if (taskId) void load(); }, [load, taskId]);
  const decide = async (result: number) => {
    try {
      await post(`${A}/event/complete`, { taskId, result, comment });
      toast(result === 1 ? L('已通过', 'Passed') : L('已驳回', 'Failed'));
      navigate('/approval/index');
    } catch (e) {
      toast(msg(e), 'error');
    }
  };
  if (!taskId) return <section className="detail-page"><p className="empty">{L('请从审批任务进入', 'Open it from the approval tasks')}</p></section>;
  if (err) return <section className="detail-page"><div className="form-err" role="alert">{err}</div></section>;
  if (!d) return <section className="detail-page" aria-busy="true"><p className="muted">{L('加载中…', 'Loading…')}</p></section>;
  return (
    <section className="detail-page flow-detail" aria-label={L('审批详情', 'Approval')}>
      <div className="card">
        <h3>{d.applyTypeName} <span className={'tag flow-status s' + d.status}>{st(STATUS, d.status)}</span></h3>
        <Facts rows={[
          [L('施工单', 'Construct'), `${d.constructCode ?? ''} ${d.constructName ?? ''}`], [L('审批内容', 'Subject'), d.businessName],
          [L('申请人', 'Applicant'), d.applyUserName], [L('申请时间', 'Applied'), d.applyTime],
          [L('审批环节', 'Step'), d.taskName], [L('说明', 'Remark'), d.remark],
        ]} />
        {measure && (
          <Table label={L('房间尺寸', 'Rooms')} empty={L('没有房间', 'No rooms')} rows={(measure.rooms ?? []).map((r: Row, i: number) => ({ ...r, id: i }))} cols={[
            [L('房间', 'Room'), (r) => r.roomName], [L('长(mm)', 'Length (mm)'), (r) => r.length], [L('宽(mm)', 'Width (mm)'), (r) => r.width], [L('高(mm)', 'Height (mm)'), (r) => r.height ?? '—'],
            // As the measure counts it: length × width in hundredths of a square metre, rounded half up.
            [L('面积(㎡)', 'Area (㎡)'), (r) => (Math.round((Number(r.length) * Number(r.width)) / 10000) / 100).toFixed(2)],
          ]} />
        )}
        {measure && (
          <p className="muted">{L(`共 ${measure.roomCount ?? (measure.rooms ?? []).length} 间,地面面积 ${measure.totalArea ?? '—'} ㎡`, `${measure.roomCount ?? (measure.rooms ?? []).length} rooms, floor area ${measure.totalArea ?? '—'} ㎡`)}</p>
        )}
        <h4>{L('审批文件', 'Files')}</h4>
        {(d.files ?? []).length === 0 ? <p className="muted">{L('无', 'None')}</p> : <ul>{d.files.map((f: Row) => <li key={f.id}><a href={f.attachLink} target="_blank" rel="noopener noreferrer">{f.attachName}</a> <span className="muted">{Math.ceil(f.attachSize / 1024)} KB</span></li>)}</ul>}
        {d.mine && d.result === 0 && perms.has('approval_task_handle') && (
          <>
            <label className="flow-comment">{L('审批意见', 'Comment')}<textarea aria-label={L('审批意见', 'Comment')} value={comment} maxLength={500} onChange={(e) => setComment(e.target.value)} /></label>
            <div className="flow-actions">
              <button type="button" className="btn btn-primary" onClick={() => void decide(1)}>{L('通过', 'Pass')}</button>
              <button type="button" className="btn btn-danger" onClick={() => void decide(2)}>{L('不通过', 'Fail')}</button>
            </div>
          </>
        )}
      </div>
      <div className="card">
        <h3>{L('审批记录', 'Record')}</h3>
        <ol className="flow-history" aria-label={L('审批记录', 'Record')}>
          {hist.map((h) => <li key={h.id} className={'h-' + h.action}><div><b>{h.assigneeName}</b> {h.endTime || h.createTime} [{h.historyActivityName}]</div>{h.comment && <div>{h.comment}</div>}</li>)}
        </ol>
      </div>
    </section>
  );
}

export function ApprovalFiles() {
  const { L } = useL();
  const toast = useToast();
  const { props } = useApp();
  const perms = useMemo(() => new Set(props.permissions), [props.permissions]);
  const { page, setPage, data, err, load } = usePage(`${A}/file/list`, {}, 'POST');
  const [type, setType] = useState('1');
  const send = async (file: File) => {
    try {
      await upload(`${A}/file/upload?applyType=${type}`, file);
      toast(L('上传成功', 'Uploaded'));
      void load();
    } catch (e) { toast(msg(e), 'error'); }
  };
  return (
    <section className="card" aria-label={L('审批文件', 'Approval files')}>
      <div className="card-head">
        <h3>{L('审批文件', 'Approval files')}</h3>
        {perms.has('approval_file_add') && (
          <span className="row-actions">
            <select aria-label={L('申请类型', 'Apply type')} value={type} onChange={(e) => setType(e.target.value)}>{TYPES.map(([k, zh, en]) => <option key={k} value={k}>{L(zh, en)}</option>)}</select>
            <FileButton className="btn btn-primary" label={L('上传文件', 'Upload')} onFiles={(fs) => void send(fs[0])} />
          </span>
        )}
      </div>
      {err && <div className="form-err" role="alert">{err}</div>}
      <Table label={L('审批文件', 'Approval files')} empty={data ? L('暂无数据', 'No data') : L('加载中…', 'Loading…')} rows={data?.records ?? []} cols={[
        [L('文件名称', 'File'), (r) => <a href={r.attachLink} target="_blank" rel="noopener noreferrer">{r.attachName}</a>],
        [L('大小', 'Size'), (r) => `${Math.ceil((r.attachSize ?? 0) / 1024)} KB`],
        [L('申请类型', 'Type'), (r) => TYPES.find(([k]) => k === r.applyType)?.[1] ?? '—'],
        [L('所属审批', 'Approval'), (r) => (r.taskGroupId && r.taskGroupId !== '0' ? r.taskGroupId : L('未关联', 'None'))],
        [L('操作', 'Actions'), (r) => (perms.has('approval_file_delete') ? <button type="button" className="link danger" onClick={() => post(`${A}/file/delete/${r.id}`, {}).then(() => { toast(L('已删除', 'Removed')); return load(); }, (e) => toast(msg(e), 'error'))}>{L('删除', 'Remove')}</button> : null)],
      ]} />
      {data && <Pager total={data.total} current={page.current} pages={data.pages} size={page.size} go={(o) => setPage({ ...page, ...o })} />}
    </section>
  );
}

export function ApprovalRecords() {
  const { L, st } = useL();
  const [type, setType] = useState('');
  const [hist, setHist] = useState<{ group: string; rows: Row[] } | null>(null);
  const { page, setPage, data, err } = usePage(`${A}/record/list`, type ? { applyType: Number(type) } : {}, 'POST');
  const show = async (g: string) => setHist({ group: g, rows: await post(`${A}/record/${g}`, {}) });
  return (
    <section className="card" aria-label={L('审批记录', 'Approval record')}>
      <div className="card-head">
        <h3>{L('审批记录', 'Approval record')}</h3>
        <select aria-label={L('申请类型', 'Apply type')} value={type} onChange={(e) => setType(e.target.value)}><option value="">{L('全部类型', 'All types')}</option>{TYPES.map(([k, zh, en]) => <option key={k} value={k}>{L(zh, en)}</option>)}</select>
      </div>
      {err && <div className="form-err" role="alert">{err}</div>}
      <Table label={L('审批记录', 'Approval record')} empty={data ? L('暂无数据', 'No data') : L('加载中…', 'Loading…')} rows={(data?.records ?? []).map((r) => ({ ...r, id: r.taskGroupId }))} cols={[
        [L('申请类型', 'Type'), (r) => r.applyTypeName],
        [L('施工单', 'Construct'), (r) => `${r.constructCode ?? ''} ${r.constructName ?? ''}`],
        [L('审批内容', 'Subject'), (r) => r.businessName],
        [L('申请人', 'Applicant'), (r) => r.applyUserName],
        [L('申请时间', 'Applied'), (r) => r.applyTime],
        [L('状态', 'Status'), (r) => <span className={'flow-status s' + r.status}>{r.processStatus === 3 ? L('已撤销', 'Withdrawn') : st(STATUS, r.status)}</span>],
        [L('结束时间', 'Ended'), (r) => r.endTime || '—'],
        [L('操作', 'Actions'), (r) => <button type="button" className="link" onClick={() => void show(r.taskGroupId)}>{L('审批记录', 'Record')}</button>],
      ]} />
      {data && <Pager total={data.total} current={page.current} pages={data.pages} size={page.size} go={(o) => setPage({ ...page, ...o })} />}
      <Dialog open={!!hist} onOpenChange={(o) => { if (!o) setHist(null); }} title={L('审批记录', 'Record')} width={640}>
        <ol className="flow-history">{hist?.rows.map((h) => <li key={h.id} className={'h-' + h.action}><div><b>{h.assigneeName}</b> {h.endTime || h.createTime} [{h.historyActivityName}]</div>{h.comment && <div>{h.comment}</div>}</li>)}</ol>
      </Dialog>
    </section>
  );
}
