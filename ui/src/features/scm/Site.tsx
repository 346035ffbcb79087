// On site: a project's buildings with the Excel import (a background task whose progress bar follows
// `building/getImportStatus`), and 施工进度详情 /process/detail/{constructCode} — the node timeline, the building ×
// node matrix, reporting a task's progress and its history. Data from the blade-scm routes.
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useApp } from '../../app';
import { post, get, headers, qs, errText, download } from '../../lib/api';
import { useToast } from '../../components/ui/toast';
import { Dialog } from '../../components/ui/dialog';
import { Facts, Table } from '../../components/ui/record';
import { useL } from '../../lib/words';
import { byCode, MODEL_STATUS } from './ProjectDetail';
import { RefPicker } from '../crud/FormDialog';
import type { Field } from '../../types';

type Row = Record<string, any>;
const S = '/api/blade-scm';


/** A labelled progress bar (0–100). */
export function Bar({ value, label }: { value: number; label: string }) {
  const v = Math.max(0, Math.min(100, Math.round(value)));
  return (
    <div className="bar" role="progressbar" aria-label={label} aria-valuemin={0} aria-valuemax={100} aria-valuenow={v}>
      <div className={v === 100 ? 'bar-fill done' : 'bar-fill'} style={{ width: `${v}%` }} />
      <span className="bar-text">{v}%</span>
    </div>
  );
}

/** The buildings of a project (from its rooms) with the import dialog. */
export function BuildingsCard({ projectId, canImport }: { projectId: string; canImport: boolean }) {
  const { L } = useL();
  const [rows, setRows] = useState<Row[]>([]);
  const [imports, setImports] = useState<Row[]>([]);
  const [open, setOpen] = useState(false);
  const load = useCallback(async () => {
    try {
      const [b, r] = await Promise.all([post(`${S}/building/page/down/list/${projectId}/0`), post(`${S}/building/record/list`, { projectId, size: 5 })]);
      setRows(b ?? []);
      setImports(r?.records ?? []);
    } catch { /* the card stays empty; the page shows the project */ }
  }, [projectId]);
  useEffect(() => { void load(); }, [load]);
  const rooms = rows.reduce((s, r) => s + Number(r.rooms || 0), 0);
  return (
    <div className="card">
      <div className="card-head">
        <h3>{L('楼栋', 'Buildings')} <span className="muted">{L(`${rows.length} 栋 · ${rooms} 间`, `${rows.length} buildings · ${rooms} rooms`)}</span></h3>
        {canImport && <button type="button" className="btn btn-primary" onClick={() => setOpen(true)}>{L('导入楼栋', 'Import buildings')}</button>}
      </div>
      <Table label={L('楼栋', 'Buildings')} empty={L('暂无楼栋,可从 Excel 导入', 'No buildings yet; import them from Excel')} rows={rows.map((r) => ({ ...r, id: r.buildingName }))} cols={[
        [L('楼栋', 'Building'), (r) => r.buildingName], [L('单元数', 'Units'), (r) => r.units], [L('楼层数', 'Floors'), (r) => r.floors],
        [L('房间数', 'Rooms'), (r) => r.rooms], [L('启用房间', 'Enabled'), (r) => r.enabledRooms],
      ]} />
      {imports.length > 0 && (
        <p className="muted small">{L('最近导入', 'Last import')}: {imports[0].fileName} · {imports[0].stateName} · {imports[0].message}</p>
      )}
      {open && <ImportDialog projectId={projectId} onClose={() => { setOpen(false); void load(); }} />}
    </div>
  );
}

function ImportDialog({ projectId, onClose }: { projectId: string; onClose: () => void }) {
  const { L } = useL();
  const toast = useToast();
  const [file, setFile] = useState<File | null>(null);
  const [mode, setMode] = useState<'partial' | 'all'>('partial');
  const [task, setTask] = useState<Row | null>(null);
  const [busy, setBusy] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(() => () => { if (timer.current) clearTimeout(timer.current); }, []);
  const poll = useCallback(async (code: string) => {
    try {
      const s = await get(`${S}/building/getImportStatus`, { taskCode: code });
      setTask(s);
      if (s?.state === 'running') timer.current = setTimeout(() => void poll(code), 300);
      else setBusy(false);
    } catch (e) {
      setBusy(false);
      toast(errText(e), 'error');
    }
  }, [toast]);
  const send = async () => {
    if (!file) return toast(L('请选择 Excel 文件', 'Choose an Excel file'), 'warning');
    setBusy(true);
    setTask(null);
    try {
      const fd = new FormData();
      fd.append('file', file);
      const res = await fetch(`${S}/building/info/import` + qs({ projectId, mode }), { method: 'POST', headers: headers(), body: fd, credentials: 'same-origin' });
      const b = await res.json().catch(() => null);
      if (!res.ok || b?.code !== 200) throw new Error(b?.msg || 'err.unknown');
      await poll(b.data.taskCode);
    } catch (e) {
      setBusy(false);
      toast(errText(e), 'error');
    }
  };
  const template = () => download(`${S}/building/info/template`, '楼栋导入模板.xlsx').catch((e) => toast(errText(e), 'error'));
  const done = task && task.state !== 'running';
  return (
    <Dialog open onOpenChange={(o) => { if (!o && !busy) onClose(); }} title={L('导入楼栋', 'Import buildings')} width={620}
      footer={<>
        <button type="button" className="btn" onClick={onClose} disabled={busy}>{done ? L('完成', 'Done') : L('取消', 'Cancel')}</button>
        {!done && <button type="button" className="btn btn-primary" onClick={send} disabled={busy}>{busy ? L('导入中…', 'Importing…') : L('开始导入', 'Start import')}</button>}
      </>}>
      <div className="import-form">
        <p className="muted">{L('每行一间房:楼栋、单元、楼层、房号、户型、面积(㎡)。同一楼栋单元房号再次导入时更新原记录。', 'One room per row: building, unit, floor, room, layout, area (㎡). Importing a room again updates it.')}
          {' '}<button type="button" className="link" onClick={template}>{L('下载模板', 'Download the template')}</button></p>
        <label className="field"><span>{L('Excel 文件', 'Excel file')}</span>
          <input type="file" accept=".xlsx" aria-label={L('Excel 文件', 'Excel file')} disabled={busy} onChange={(e) => setFile(e.target.files?.[0] ?? null)} /></label>
        <fieldset className="field" disabled={busy}>
          <legend>{L('有不合格行时', 'When rows are refused')}</legend>
          <label><input type="radio" name="mode" checked={mode === 'partial'} onChange={() => setMode('partial')} /> {L('导入合格的行', 'Import the good rows')}</label>
          <label><input type="radio" name="mode" checked={mode === 'all'} onChange={() => setMode('all')} /> {L('全部不导入', 'Import nothing')}</label>
        </fieldset>
        {task && (
          <div className="import-status" aria-live="polite">
            <Bar value={Number(task.percent)} label={L('导入进度', 'Import progress')} />
            <p>{task.stateName} · {L(`已处理 ${task.done} / ${task.total} 行`, `${task.done} of ${task.total} rows`)}{task.message ? ` · ${task.message}` : ''}</p>
            {task.refused?.length > 0 && (
              <div className="refused">
                <b>{L(`不合格的行(${task.refusedCount})`, `Refused rows (${task.refusedCount})`)}</b>
                <ul>{task.refused.slice(0, 200).map((r: Row) => <li key={r.row}>{L(`第 ${r.row} 行`, `Row ${r.row}`)}:{r.reason}</li>)}</ul>
              </div>
            )}
          </div>
        )}
      </div>
    </Dialog>
  );
}

/** 施工进度详情 /process/detail/{constructCode} */
export function ProcessDetail({ code }: { code: string }) {
  const { props, navigate } = useApp();
  const { L, st } = useL();
  const toast = useToast();
  const perms = useMemo(() => new Set(props.permissions), [props.permissions]);
  const [k, setK] = useState<Row | null | undefined>(undefined);
  const [total, setTotal] = useState<Row | null>(null);
  const [stats, setStats] = useState<Row | null>(null);
  const [cell, setCell] = useState<Row | null>(null);
  const [err, setErr] = useState<string | null>(null);
  const load = useCallback(async () => {
    try {
      const rec = await byCode('construct', 'constructCode', code);
      setK(rec);
      if (!rec) return;
      const [t, s] = await Promise.all([post(`${S}/speed/progress/total/data/${rec.id}`), post(`${S}/speed/progress/statistics/data/${rec.id}`)]);
      setTotal(t);
      setStats(s);
    } catch (e) {
      setErr(errText(e));
    }
  }, [code]);
  useEffect(() => { void load(); }, [load]);
  if (err) return <section className="detail-page"><div className="form-err" role="alert">{err}</div></section>;
  if (k === undefined) return <section className="detail-page" aria-busy="true"><p className="muted">{L('加载中…', 'Loading…')}</p></section>;
  if (k === null) return <section className="detail-page"><p className="empty">{L(`施工单 ${code} 不存在或无权查看`, `Construct ${code} does not exist or is not yours to see`)}</p></section>;
  const canReport = perms.has('construct_edit') && Number(k.modelStatus) === 3;
  const nodes: Row[] = stats?.nodes ?? [];
  const buildings: Row[] = stats?.buildings ?? [];
  return (
    <section className="detail-page" aria-label={L('施工进度详情', 'Progress')}>
      <div className="card">
        <h2>{k.constructName} · {k.constructCode} <span className="tag">{st(MODEL_STATUS, k.modelStatus)}</span></h2>
        <Facts rows={[
          [L('所属项目', 'Project'), k.projectName ? <a className="link" href="#" onClick={(e) => { e.preventDefault(); void post(`${S}/project/detail/${k.projectId}`).then((p) => p && navigate(`/project/detail/${p.projectCode}`)).catch(() => {}); }}>{k.projectName}</a> : '—'],
          [L('项目经理', 'Manager'), k.managerName], [L('计划完工', 'Planned end'), k.planEnd],
          [L('总进度', 'Overall'), total ? <Bar value={Number(total.percent)} label={L('总进度', 'Overall progress')} /> : '—'],
          [L('当前节点', 'Current node'), total?.currentNode ?? (total?.tasks ? L('全部完成', 'All done') : L('未开工', 'Not started'))],
          [L('完成任务', 'Tasks done'), total ? `${total.doneTasks} / ${total.tasks}` : '—'],
          [L('逾期任务', 'Overdue tasks'), total ? <span className={total.overdueTasks > 0 ? 'overdue' : ''}>{total.overdueTasks}</span> : '—'],
          [L('最近填报', 'Last report'), total?.lastReport],
        ]} />
      </div>
      <div className="card">
        <h3>{L('节点时间线', 'Node timeline')}</h3>
        {nodes.length === 0 || !total?.tasks ? <p className="empty">{L('施工单开工后生成节点计划', 'The node plan is made when construction starts')}</p> : (
          <ol className="timeline" aria-label={L('节点时间线', 'Node timeline')}>
            {nodes.map((n) => (
              <li key={n.nodeKey} className={n.percent === 100 ? 'done' : n.percent > 0 ? 'active' : ''}>
                <b>{n.nodeName}</b>
                <Bar value={n.percent} label={n.nodeName} />
                <span className="muted small">{L(`${n.doneTasks}/${n.tasks} 栋完成`, `${n.doneTasks}/${n.tasks} buildings done`)}</span>
              </li>
            ))}
          </ol>
        )}
      </div>
      <div className="card">
        <h3>{L('楼栋 × 节点', 'Buildings × nodes')}</h3>
        {buildings.length === 0 ? <p className="empty">{L('暂无进度任务', 'No progress tasks')}</p> : (
          <div className="table-wrap">
            <table className="table matrix" aria-label={L('楼栋进度矩阵', 'Progress matrix')}>
              <thead><tr><th scope="col">{L('楼栋', 'Building')}</th>{nodes.map((n) => <th key={n.nodeKey} scope="col">{n.nodeName}</th>)}<th scope="col">{L('合计', 'Total')}</th></tr></thead>
              <tbody>
                {buildings.map((b) => (
                  <tr key={b.buildingName}>
                    <th scope="row">{b.buildingName}</th>
                    {b.cells.map((c: Row) => (
                      <td key={c.nodeKey} className={`cell p${c.percent === 100 ? 'done' : c.percent > 0 ? 'part' : 'none'}`}>
                        {c.taskId ? (
                          <button type="button" className="cell-btn" onClick={() => setCell({ ...c, buildingName: b.buildingName, nodeName: nodes.find((n) => n.nodeKey === c.nodeKey)?.nodeName })}
                            aria-label={`${b.buildingName} ${nodes.find((n) => n.nodeKey === c.nodeKey)?.nodeName} ${c.percent}%`}>
                            {c.percent}%<small>{c.workerName || ''}</small>
                          </button>
                        ) : '—'}
                      </td>
                    ))}
                    <td><Bar value={b.percent} label={`${b.buildingName} ${L('合计', 'total')}`} /></td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </div>
      {cell && <TaskDialog construct={k} cell={cell} canReport={canReport} canAssign={perms.has('building_edit') && Number(k.modelStatus) < 4}
        onAssigned={async (name) => { toast(L(`已指定 ${name} 负责`, `${name} is on it`)); setCell({ ...cell, workerName: name }); await load(); }}
        onClose={() => setCell(null)} onSaved={async () => { toast(L('进度已填报', 'Progress reported')); setCell(null); await load(); }} />}
    </section>
  );
}

/** Who is on a task: a worker of the 施工单's crew (as `building/user/task/bind` takes him). */
const WORKER: Field = { name: 'workerId', kind: 'long', label: '', labelEn: '', required: false, filter: false, sort: false, search: false, list: false, form: true, refers: { resource: 'worker', list: `POST ${S}/worker/page/down/list`, title: 'workerName' } };

function TaskDialog({ construct, cell, canReport, canAssign, onAssigned, onClose, onSaved }: { construct: Row; cell: Row; canReport: boolean; canAssign: boolean; onAssigned: (name: string) => Promise<void>; onClose: () => void; onSaved: () => Promise<void> }) {
  const { L } = useL();
  const toast = useToast();
  const [history, setHistory] = useState<Row[]>([]);
  const [percent, setPercent] = useState(String(cell.percent ?? 0));
  const [remark, setRemark] = useState('');
  const [busy, setBusy] = useState(false);
  useEffect(() => { void post(`${S}/speed/progress/history/data/${cell.taskId}`).then((h) => setHistory(h ?? [])).catch(() => {}); }, [cell.taskId]);
  const save = async () => {
    const n = Number(percent);
    if (!Number.isInteger(n) || n < 0 || n > 100) return toast(L('完成度须为 0 到 100 的整数', 'Done must be a whole number from 0 to 100'), 'warning');
    setBusy(true);
    try {
      await post(`${S}/speed/progress/worker/task/data/${construct.id}/${cell.taskId}`, { percent: n, remark });
      await onSaved();
    } catch (e) {
      toast(errText(e), 'error');
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog open onOpenChange={(o) => { if (!o) onClose(); }} title={`${cell.buildingName} · ${cell.nodeName}`} width={560}
      footer={<>
        <button type="button" className="btn" onClick={onClose}>{L('关闭', 'Close')}</button>
        {canReport && <button type="button" className="btn btn-primary" onClick={save} disabled={busy}>{L('填报进度', 'Report progress')}</button>}
      </>}>
      <div className="form-grid">
        <label className="field"><span>{L('负责工人', 'Worker on it')}</span>
          {canAssign
            ? <RefPicker id="task-worker" field={WORKER} value={String(cell.workerId ?? '')} label={cell.workerName ?? ''} narrow={{ 'construct_worker.constructId': String(construct.id) }}
                onChange={(id, name) => { if (id) void post(`${S}/building/user/task/bind`, { taskId: cell.taskId, workerId: id }).then(() => onAssigned(name), (e) => toast(errText(e), 'error')); }} />
            : <span>{cell.workerName || '—'}</span>}
        </label>
      </div>
      {canReport ? (
        <div className="form-grid">
          <label className="field"><span>{L('完成度(%)', 'Done (%)')}</span>
            <input type="number" min={0} max={100} step={1} value={percent} aria-label={L('完成度(%)', 'Done (%)')} onChange={(e) => setPercent(e.target.value)} /></label>
          <label className="field"><span>{L('说明', 'Remark')}</span>
            <input value={remark} maxLength={255} aria-label={L('说明', 'Remark')} onChange={(e) => setRemark(e.target.value)} /></label>
        </div>
      ) : <p className="muted">{L('施工单不在施工中,只能查看', 'The construct is not under construction; view only')}</p>}
      <h4>{L('填报记录', 'Reports')}</h4>
      <Table label={L('填报记录', 'Reports')} empty={L('暂无填报', 'No reports yet')} rows={history} cols={[
        [L('时间', 'When'), (r) => r.createTime], [L('填报人', 'By'), (r) => r.reporterName || r.workerName],
        [L('进度', 'Progress'), (r) => `${r.before}% → ${r.percent}%`], [L('说明', 'Remark'), (r) => r.remark],
      ]} />
    </Dialog>
  );
}
