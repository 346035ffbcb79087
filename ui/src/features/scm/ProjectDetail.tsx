// 项目详情 /project/detail/{projectCode} and 合同详情 /contract/detail/{contractCode} (SPEC §2): the record's
// summary and what hangs off it — contracts (bind and unbind), constructs, documents; a contract's constructs
// and its operation record (who changed what, when, before and after). Data from the blade-scm routes.
import { useCallback, useEffect, useMemo, useState, type ReactNode } from 'react';
import { useApp } from '../../app';
import { get, post, upload, errText, ApiError } from '../../lib/api';
import { useAsk } from '../../components/ui/dialog';
import { FormDialog } from '../crud/FormDialog';
import type { ResourceSchema } from '../../types';
import { useToast } from '../../components/ui/toast';
import { BuildingsCard } from './Site';
import { Facts, Table } from '../../components/ui/record';
import { useL, yuan } from '../../lib/words';
import { FileButton } from '../../components/ui/file';
import { useTagName } from '../../lib/tagname';

type Row = Record<string, any>;
const S = '/api/blade-scm';

const CONTRACT_STATUS: Record<string, [string, string]> = { 0: ['草稿', 'Draft'], 1: ['已签订', 'Signed'], 2: ['执行中', 'Executing'], 3: ['已完成', 'Completed'], 9: ['已终止', 'Terminated'] };
export const MODEL_STATUS: Record<string, [string, string]> = { 1: ['待勘察', 'To inspect'], 2: ['待派单', 'To dispatch'], 3: ['施工中', 'Under construction'], 4: ['已完工', 'Completed'] };
const PROJECT_STATUS: Record<string, [string, string]> = { 1: ['筹备中', 'Preparing'], 2: ['进行中', 'In progress'], 3: ['已竣工', 'Completed'], 4: ['已关闭', 'Closed'] };
export const MODE: Record<string, [string, string]> = { 0: ['无', 'None'], 1: ['自有团队', 'Own team'], 2: ['自有+劳务', 'Own + labour'], 3: ['劳务团队', 'Labour team'] };

/** The one record whose code is `code` (exact), or null. */
export async function byCode(resource: string, field: string, code: string): Promise<Row | null> {
  const d = await post(`${S}/${resource}/list`, { [`${field}_equal`]: code, size: 1 });
  return d?.records?.[0] ?? null;
}

export function ProjectDetail({ code }: { code: string }) {
  const { navigate, props } = useApp();
  const { L, st } = useL();
  const toast = useToast();
  const perms = useMemo(() => new Set(props.permissions), [props.permissions]);
  const [p, setP] = useState<Row | null | undefined>(undefined);
  const [contracts, setContracts] = useState<Row[]>([]);
  const [constructs, setConstructs] = useState<Row[]>([]);
  const [docs, setDocs] = useState<Row[]>([]);
  const [figures, setFigures] = useState<Row | null>(null);
  const [region, setRegion] = useState('');
  const [candidates, setCandidates] = useState<Row[] | null>(null);
  const [err, setErr] = useState<string | null>(null);
  const load = useCallback(async () => {
    try {
      const rec = await byCode('project', 'projectCode', code);
      if (!rec) { setP(rec); return; }
      const [c, k, d, f] = await Promise.all([
        // A card the user may not read is left out, its list never asked (a 会计 reads contracts, not constructs).
        perms.has('contract') ? post(`${S}/contract/list`, { projectId: rec.id, size: 100 }) : Promise.resolve({ records: [] }),
        perms.has('construct') ? post(`${S}/construct/list`, { projectId: rec.id, size: 100 }) : Promise.resolve({ records: [] }),
        perms.has('doc') ? post(`${S}/doc/list`, { projectId: rec.id, size: 100 }) : Promise.resolve({ records: [] }),
        get(`${S}/project/figures`, { projectId: rec.id }).catch(() => null),
      ]);
      setFigures(f);
      if (rec.regionCode) get('/api/blade-system/region/pick', { code: rec.regionCode }).then((r) => setRegion(r?.title ?? rec.regionCode), () => setRegion(rec.regionCode));
      setContracts(c?.records ?? []);
      setConstructs(k?.records ?? []);
      setDocs(d?.records ?? []);
      // The project shows with its cards filled (before them, 暂无合同/暂无施工单 flashed ahead of the rows).
      setP(rec);
    } catch (e) {
      setErr(e instanceof ApiError ? e.message : String(e));
    }
  }, [code, perms]);
  useEffect(() => { void load(); }, [load]);
  useTagName(p ? p.projectName : undefined);
  const act = async (f: () => Promise<unknown>, done: string) => {
    try { await f(); toast(done); await load(); } catch (e) { toast(e instanceof ApiError ? e.message : String(e), 'error'); }
  };
  const openBind = async () => {
    try { setCandidates((await post(`${S}/contract/unsigned/list/${p!.id}`, { size: 50 }))?.records ?? []); } catch (e) { toast(e instanceof ApiError ? e.message : String(e), 'error'); }
  };
  if (err) return <section className="detail-page"><div className="form-err" role="alert">{err}</div></section>;
  if (p === undefined) return <section className="detail-page" aria-busy="true"><p className="muted">{L('加载中…', 'Loading…')}</p></section>;
  if (p === null) return <section className="detail-page"><p className="empty">{L(`项目 ${code} 不存在或无权查看`, `Project ${code} does not exist or is not yours to see`)}</p></section>;
  // 合同总额 by the one definition (the server's figures.rs): signed, executing and completed contracts with their
  // approved changes; terminated ones at what was received; drafts not counted (said beside it).
  const total = figures ? (
    <span title={L('已签订、执行中、已完成合同的金额(含已批准的变更);已终止合同按已收款计;草稿不计', 'Signed, executing and completed contracts with approved changes; terminated ones at what was received; drafts not counted')}>
      {yuan(figures.contractValue)}
      {Number(figures.changeAmount) !== 0 && <span className="muted small"> {L(`含变更 ${yuan(figures.changeAmount)}`, `incl. changes ${yuan(figures.changeAmount)}`)}</span>}
      {figures.drafts > 0 && <span className="muted small"> {L(`另有草稿 ${figures.drafts} 份 ${yuan(figures.draftAmount)} 未计入`, `${figures.drafts} drafts (${yuan(figures.draftAmount)}) not counted`)}</span>}
    </span>
  ) : '—';
  const canEdit = perms.has('project_edit');
  return (
    <section className="detail-page" aria-label={L('项目详情', 'Project')}>
      <div className="card">
        <div className="card-head">
          <h2>{p.projectName} <span className="tag">{st(PROJECT_STATUS, p.projectStatus)}</span></h2>
          {perms.has('project_cost') && <button type="button" className="btn" onClick={() => navigate(`/bim/projectcost/detail/${p.id}`)}>{L('项目成本', 'Project cost')}</button>}
        </div>
        <Facts rows={[
          [L('项目编号', 'Code'), p.projectCode], [L('所属公司', 'Company'), p.projectCompanyName], [L('客户', 'Customer'), p.customerName],
          [L('业务单元', 'Business unit'), p.businessUnitName || p.businessUnit], [L('项目经理', 'Manager'), p.managerName],
          [L('开始时间', 'Start'), p.startTime], [L('结束时间', 'End'), p.endTime], [L('所在地区', 'Region'), region || '—'], [L('项目地址', 'Address'), p.address],
          [L('合同总额', 'Contracts total'), total], ...(perms.has('construct') ? [[L('施工单', 'Constructs'), String(constructs.length)] as [string, string]] : []),
        ]} />
      </div>
      <div className="card">
        <div className="card-head">
          <h3>{L('合同', 'Contracts')}</h3>
          {canEdit && <button type="button" className="btn btn-primary" onClick={openBind}>{L('绑定合同', 'Bind a contract')}</button>}
        </div>
        {candidates && (
          <div className="bind-box" role="group" aria-label={L('可绑定的合同', 'Contracts to bind')}>
            {candidates.length === 0 && <span className="muted">{L('没有未绑定项目的合同', 'No unbound contracts')}</span>}
            {candidates.map((c) => (
              <button key={c.id} type="button" className="btn" onClick={() => act(() => post(`${S}/project/contract/bind`, { projectId: p.id, contractIds: c.id }), L('绑定成功', 'Bound')).then(() => setCandidates(null))}>
                {c.contractCode} · {c.contractName} · {yuan(c.contractAmount)}
              </button>
            ))}
            <button type="button" className="link" onClick={() => setCandidates(null)}>{L('取消', 'Cancel')}</button>
          </div>
        )}
        <Table label={L('合同', 'Contracts')} empty={L('暂无合同', 'No contracts')} rows={contracts} cols={[
          [L('合同编号', 'Code'), (r) => <a className="link" href={`/contract/detail/${r.contractCode}`} onClick={(e) => { e.preventDefault(); navigate(`/contract/detail/${r.contractCode}`); }}>{r.contractCode}</a>],
          [L('合同名称', 'Contract'), (r) => r.contractName], [L('签约方', 'Party'), (r) => r.partyName],
          [L('合同金额', 'Amount'), (r) => yuan(r.contractAmount)], [L('合同总额', 'Total'), (r) => (r.ledgerTotal == null ? '—' : yuan(r.ledgerTotal))],
          [L('签订日期', 'Signed'), (r) => r.signDate], [L('状态', 'Status'), (r) => st(CONTRACT_STATUS, r.contractStatus)],
          [L('操作', 'Action'), (r) => canEdit ? <button type="button" className="link danger" onClick={() => act(() => post(`${S}/project/contract/delete/${p.id}/${r.id}/0`), L('已解绑', 'Unbound'))}>{L('解绑', 'Unbind')}</button> : null],
        ]} />
      </div>
      {perms.has('construct') && <div className="card">
        <div className="card-head">
          <h3>{L('施工单', 'Constructs')}</h3>
          {perms.has('construct_add') && <button type="button" className="btn btn-primary" onClick={() => navigate(`/construct/info?projectId=${p.id}`)}>{L('新建施工单', 'New construct')}</button>}
        </div>
        <Table label={L('施工单', 'Constructs')} empty={L('暂无施工单', 'No constructs')} rows={constructs} cols={[
          [L('施工单号', 'Code'), (r) => <a className="link" href={`/construct/info/${r.constructCode}`} onClick={(e) => { e.preventDefault(); navigate(`/construct/info/${r.constructCode}`); }}>{r.constructCode}</a>],
          [L('施工内容', 'Work'), (r) => r.constructName],
          [L('所属合同', 'Contract'), (r) => r.contractName], [L('施工模式', 'Mode'), (r) => st(MODE, r.constructMode)],
          [L('施工状态', 'Status'), (r) => st(MODEL_STATUS, r.modelStatus)], [L('项目经理', 'Manager'), (r) => r.managerName],
          [L('计划开工', 'Planned start'), (r) => r.planStart], [L('计划完工', 'Planned end'), (r) => r.planEnd],
        ]} />
      </div>}
      {perms.has('building') && <BuildingsCard projectId={String(p.id)} canImport={perms.has('building_add')} />}
      {perms.has('doc') && (
        <div className="card">
          <h3>{L('项目文档', 'Documents')}</h3>
          <Table label={L('项目文档', 'Documents')} empty={L('暂无文档', 'No documents')} rows={docs} cols={[
            [L('文档名称', 'Document'), (r) => r.attachLink ? <a className="link" href={r.attachLink} target="_blank" rel="noreferrer">{r.docName}</a> : r.docName],
            [L('类别', 'Category'), (r) => r.categoryName], [L('上传时间', 'Uploaded'), (r) => r.createTime],
          ]} />
        </div>
      )}
    </section>
  );
}

export function ContractDetail({ code }: { code: string }) {
  const { navigate, props } = useApp();
  const { L, st, en } = useL();
  const toast = useToast();
  const perms = useMemo(() => new Set(props.permissions), [props.permissions]);
  const [c, setC] = useState<Row | null | undefined>(undefined);
  const [constructs, setConstructs] = useState<Row[]>([]);
  const [ops, setOps] = useState<Row[]>([]);
  const [err, setErr] = useState<string | null>(null);
  const [editing, setEditing] = useState(false);
  const [schema, setSchema] = useState<ResourceSchema | null>(null);
  const [asking, ask] = useAsk();
  const load = useCallback(async () => {
    try {
      const rec = await byCode('contract', 'contractCode', code);
      if (!rec) { setC(rec); return; }
      const [k, o] = await Promise.all([perms.has('construct') ? post(`${S}/construct/list`, { contractId: rec.id, size: 100 }) : Promise.resolve({ records: [] }), post(`${S}/contract/ope/record/${rec.id}`)]);
      setConstructs(k?.records ?? []);
      setOps(o ?? []);
      setC(rec);
    } catch (e) {
      setErr(e instanceof ApiError ? e.message : String(e));
    }
  }, [code, perms]);
  useEffect(() => { void load(); }, [load]);
  // The steps the status allows (the server refuses any other): sign a draft, execute a signed one, complete an
  // executing one; terminate any open one, with a reason.
  const move = async (to: number, text: string, reason?: string) => {
    const why = await ask({ text, reason });
    if (why === null || !c) return;
    try {
      await post(`${S}/contract/update`, { id: c.id, contractStatus: to, ...(why ? { remark: `${c.remark ? c.remark + '\n' : ''}${L('终止原因', 'Terminated because')}：${why}` } : {}) });
      toast(L('状态已更新', 'Status changed'));
      await load();
    } catch (e) { toast(e instanceof ApiError ? e.message : String(e), 'error'); }
  };
  if (err) return <section className="detail-page"><div className="form-err" role="alert">{err}</div></section>;
  if (c === undefined) return <section className="detail-page" aria-busy="true"><p className="muted">{L('加载中…', 'Loading…')}</p></section>;
  if (c === null) return <section className="detail-page"><p className="empty">{L(`合同 ${code} 不存在或无权查看`, `Contract ${code} does not exist or is not yours to see`)}</p></section>;
  const action = (a: string) => ({ add: L('新增', 'Created'), update: L('修改', 'Changed'), remove: L('删除', 'Removed') })[a] ?? a;
  const show = (ch: Row, v: unknown) => {
    if (v == null || v === '') return '—';
    // Records name coded values and referenced records by their labels; an older record kept the raw value.
    if (ch.field === 'contractStatus' && /^\d+$/.test(String(v))) return st(CONTRACT_STATUS, v);
    if (ch.field === 'contractAmount') return yuan(v);
    return String(v);
  };
  const status = Number(c.contractStatus);
  const canEdit = perms.has('contract_edit');
  return (
    <section className="detail-page" aria-label={L('合同详情', 'Contract')}>
      {asking}
      <div className="card">
        <div className="card-head">
          <h2>{c.contractName} <span className="tag">{st(CONTRACT_STATUS, c.contractStatus)}</span></h2>
          <div className="row-actions no-print">
            {canEdit && status === 0 && <button type="button" className="btn" onClick={() => void get<ResourceSchema>(`${S}/contract/schema`).then((sc) => { setSchema(sc); setEditing(true); }, (e) => toast(errText(e), 'error'))}>{L('编辑', 'Edit')}</button>}
            {canEdit && status === 0 && <button type="button" className="btn btn-primary" onClick={() => void move(1, L('签订后合同金额计入合同台账，签订日期为今天（未填写时）。确定签订？', 'Once signed, the amount goes into the contract ledger (signed today unless a date is set). Sign?'))}>{L('签订', 'Sign')}</button>}
            {canEdit && status === 1 && <button type="button" className="btn btn-primary" onClick={() => void move(2, L('转为执行中？（开始施工时也会自动转为执行中）', 'Mark it executing? (Starting construction does so too.)'))}>{L('执行', 'Execute')}</button>}
            {canEdit && status === 2 && <button type="button" className="btn btn-primary" onClick={() => void move(3, L('完成后合同不能再修改。确定完成？', 'A completed contract cannot be changed. Complete it?'))}>{L('完成', 'Complete')}</button>}
            {canEdit && status < 3 && <button type="button" className="btn" onClick={() => void move(9, L('终止后合同不能再修改或恢复。', 'A terminated contract cannot be changed or reopened.'), L('终止原因', 'Reason'))}>{L('终止', 'Terminate')}</button>}
            <button type="button" className="btn" onClick={() => navigate(`/print/contract/${c.contractCode}`)}>{L('打印', 'Print')}</button>
          </div>
        </div>
        <Facts rows={[
          [L('合同编号', 'Code'), c.contractCode],
          [L('所属项目', 'Project'), c.projectName ? <a className="link" href="#" onClick={(e) => { e.preventDefault(); void post(`${S}/project/detail/${c.projectId}`).then((p) => p && navigate(`/project/detail/${p.projectCode}`)).catch(() => {}); }}>{c.projectName}</a> : L('未绑定', 'Not bound')],
          [L('签约方', 'Party'), c.partyName], [L('合同金额', 'Amount'), yuan(c.contractAmount)],
          // The ledger's figure: the signed amount with every approved change (a terminated contract: what came in).
          [L('合同总额', 'Total'), c.ledgerTotal == null ? L('签订后计入合同台账', 'Counted in the ledger once signed') : <>
            <span title={L('签约金额加上已登记的合同变更(终止的合同按已收款计)', 'The signed amount with the changes posted (a terminated contract: what came in)')}>{yuan(c.ledgerTotal)}</span>
            {/* Where the figure comes from: the contract's ledger (receipts, invoices, changes). */}
            {perms.has('contract_ledger') && <> <a className="link" href={`/finance/contractLedger/detail?contractId=${c.id}`} onClick={(e) => { e.preventDefault(); navigate(`/finance/contractLedger/detail?contractId=${c.id}`); }}>{L('查看台账', 'Ledger')}</a></>}
          </>],
          [L('签订日期', 'Signed'), c.signDate],
          [L('备注', 'Remark'), c.remark, 'wide'],
        ]} />
      </div>
      {editing && schema && <FormDialog resource={schema} mode="edit" row={c} onClose={() => setEditing(false)} onSaved={() => { setEditing(false); void load(); }} />}
      <ContractFiles contractId={c.id} canChange={canEdit && status < 3} />
      {perms.has('construct') && <div className="card">
        <h3>{L('施工单', 'Constructs')}</h3>
        <Table label={L('施工单', 'Constructs')} empty={L('暂无施工单', 'No constructs')} rows={constructs} cols={[
          [L('施工单号', 'Code'), (r) => <a className="link" href={`/construct/info/${r.constructCode}`} onClick={(e) => { e.preventDefault(); navigate(`/construct/info/${r.constructCode}`); }}>{r.constructCode}</a>],
          [L('施工内容', 'Work'), (r) => r.constructName], [L('施工状态', 'Status'), (r) => st(MODEL_STATUS, r.modelStatus)],
        ]} />
      </div>}
      <div className="card">
        <h3>{L('操作记录', 'Operation record')}</h3>
        <Table label={L('操作记录', 'Operation record')} empty={L('暂无记录', 'No records')} rows={ops} cols={[
          [L('时间', 'When'), (r) => r.createTime], [L('操作人', 'Who'), (r) => r.operatorName], [L('操作', 'Action'), (r) => action(r.action)],
          [L('变更内容', 'Changes'), (r) => (
            <ul className="changes">{(r.changes ?? []).map((ch: Row) => (
              <li key={ch.field}><b>{en ? ch.labelEn || ch.label : ch.label}</b>：{show(ch, ch.before)} → {show(ch, ch.after)}</li>
            ))}</ul>
          )],
        ]} />
      </div>
    </section>
  );
}

/** A contract's files: listed for whoever sees the contract, added and removed while it is open. */
function ContractFiles({ contractId, canChange }: { contractId: string; canChange: boolean }) {
  const { L } = useL();
  const toast = useToast();
  const [files, setFiles] = useState<Row[]>([]);
  const load = useCallback(() => get<Row[]>(`${S}/contract/files`, { contractId }).then((d) => setFiles(d ?? []), () => setFiles([])), [contractId]);
  useEffect(() => { void load(); }, [load]);
  const add = async (f: File | undefined) => {
    if (!f) return;
    try { await upload(`${S}/contract/file/upload?contractId=${encodeURIComponent(contractId)}`, f); toast(L('上传成功', 'Uploaded')); await load(); } catch (e) { toast(errText(e), 'error'); }
  };
  const remove = async (id: string) => {
    try { await post(`${S}/contract/file/remove?id=${encodeURIComponent(id)}`); toast(L('删除成功', 'Removed')); await load(); } catch (e) { toast(errText(e), 'error'); }
  };
  return (
    <div className="card">
      <div className="card-head">
        <h3>{L('合同附件', 'Files')}</h3>
        {canChange && <FileButton className="btn no-print" label={L('上传附件', 'Upload a file')} onFiles={(fs) => void add(fs[0])} />}
      </div>
      <Table label={L('合同附件', 'Files')} empty={L('暂无附件', 'No files')} rows={files} cols={[
        [L('文件', 'File'), (r) => <a className="link" href={r.link} target="_blank" rel="noreferrer">{r.originalName}</a>],
        [L('大小', 'Size'), (r) => `${Math.max(1, Math.round(Number(r.attachSize ?? 0) / 1024))} KB`],
        [L('上传人', 'By'), (r) => r.uploaderName], [L('上传时间', 'When'), (r) => r.createTime],
        ...(canChange ? [[L('操作', 'Action'), (r: Row) => <button type="button" className="link" onClick={() => void remove(r.id)}>{L('删除', 'Remove')}</button>] as [string, (r: Row) => ReactNode]] : []),
      ]} />
    </div>
  );
}
