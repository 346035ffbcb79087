// 合同台账详情 /finance/contractLedger/detail?contractId=… and 应收款 /finance/receivables: a contract's balances,
// its payment schedule with what was received against each node (overdue marked), the journal of entries (who,
// when; reversed entries marked) with posting and correcting — corrections are reversing entries, never edits —
// and the tenant's payment nodes with a receipt dialog. Data from /api/blade-scm/contractledger and
// /blade-api/edu-sub-account/receivables.
import { useCallback, useEffect, useMemo, useState, type FormEvent, type ReactNode } from 'react';
import { useApp } from '../../app';
import { get, post, ApiError, errText } from '../../lib/api';
import { useToast } from '../../components/ui/toast';
import { Dialog } from '../../components/ui/dialog';
import { Pager } from '../../components/ui/pager';
import { Facts, Table } from '../../components/ui/record';
import { useL, yuan } from '../../lib/words';
import { plainMoney } from '../../lib/validators';

type Row = Record<string, any>;
const L = '/api/blade-scm/contractledger';
const R = '/blade-api/edu-sub-account/receivables';
const TYPES: [number, string, string][] = [[1, '签约金额', 'Signed'], [2, '合同变更', 'Change'], [3, '收款计划', 'Schedule'], [4, '收款', 'Receipt'], [5, '开票', 'Invoice']];
const STATES: [string, string, string][] = [['', '全部', 'All'], ['2', '已逾期', 'Overdue'], ['1', '未到期', 'Open'], ['3', '已收清', 'Settled']];
const today = () => new Date(Date.now() + 8 * 3600_000).toISOString().slice(0, 10);

function StateTag({ r }: { r: Row }) {
  const { L: t } = useL();
  return <span className={r.state === 2 ? 'overdue' : r.state === 3 ? 'muted' : ''}>{t(r.stateName, r.stateNameEn)}{r.state === 2 ? t(` ${r.overdueDays} 天`, ` ${r.overdueDays} d`) : ''}</span>;
}

export function LedgerDetail() {
  const { props, navigate } = useApp();
  const { L: t, en } = useL();
  const toast = useToast();
  const perms = useMemo(() => new Set(props.permissions), [props.permissions]);
  const q = new URLSearchParams(props.url.split('?')[1] ?? '');
  const key = q.get('contractId') ? `contractId=${q.get('contractId')}` : `id=${q.get('id') ?? ''}`;
  const [d, setD] = useState<Row | null | undefined>(undefined);
  const [entries, setEntries] = useState<Row>({ records: [], total: 0, current: 1, pages: 0, size: 20 });
  const [page, setPage] = useState(1);
  const [posting, setPosting] = useState<number | null>(null);
  const [fixing, setFixing] = useState<Row | null>(null);
  const load = useCallback(async () => {
    try {
      const x = await get(`${L}/detail?${key}`);
      setD(x);
      setEntries(await post(`${L}/ledgerList`, { ledgerId: x.id, page, size: 20 }));
    } catch (e) {
      if (e instanceof ApiError && e.code === 404) setD(null); else toast(errText(e), 'error');
    }
  }, [key, page, toast]);
  useEffect(() => { void load(); }, [load]);
  if (d === undefined) return <section className="detail-page" aria-busy="true"><p className="muted">{t('加载中…', 'Loading…')}</p></section>;
  if (d === null) return <section className="detail-page"><p className="empty">{t('该合同还没有台账(合同签订后自动建立),或无权查看', 'The contract has no ledger yet (it opens when the contract is signed), or it is not yours to see')}</p></section>;
  const canAdd = perms.has('contract_ledger_add');
  const canFix = perms.has('contract_ledger_edit');
  const typeName = (n: unknown) => (TYPES.find(([k]) => k === Number(n)) ?? [0, String(n), String(n)])[en ? 2 : 1];
  return (
    <section className="detail-page" aria-label={t('合同台账', 'Contract ledger')}>
      <div className="card">
        <div className="card-head">
          <h2>{d.contractName} <span className="tag">{d.contractCode}</span></h2>
          {d.projectName && <button type="button" className="link" onClick={() => void post(`/api/blade-scm/project/detail/${d.projectId}`).then((p) => p && navigate(`/project/detail/${p.projectCode}`)).catch(() => {})}>{d.projectName}</button>}
        </div>
        <Facts rows={[
          [t('签约方', 'Party'), d.partyName], [t('签订日期', 'Signed on'), d.signDate],
          [t('签约金额', 'Signed'), yuan(d.signedAmount)], [t('变更金额', 'Changes'), yuan(d.changeAmount)],
          [t('合同总额', 'Contract total'), <b>{yuan(d.contractAmount)}</b>], [t('计划应收', 'Scheduled'), yuan(d.scheduled)],
          [t('已收款', 'Received'), yuan(d.received)], [t('已开票', 'Invoiced'), yuan(d.invoiced)],
          [t('未收余额', 'Outstanding'), <b>{yuan(d.outstanding)}</b>],
          [t('逾期未收', 'Overdue'), <b className={Number(d.overdue) > 0 ? 'overdue' : ''}>{yuan(d.overdue)}</b>],
        ]} />
        {canAdd && (
          <div className="flow-actions">
            {TYPES.filter(([k]) => k > 1).map(([k, zh, e]) => <button key={k} type="button" className={'btn' + (k === 4 ? ' btn-primary' : '')} onClick={() => setPosting(k)}>{t(`登记${zh}`, `Post ${e.toLowerCase()}`)}</button>)}
          </div>
        )}
      </div>
      <div className="card">
        <h3>{t('收款计划', 'Payment schedule')}</h3>
        <Table label={t('收款计划', 'Payment schedule')} empty={t('暂无收款计划', 'No payment nodes')} rows={d.schedule ?? []} cols={[
          [t('收款节点', 'Node'), (r) => r.node], [t('应收日期', 'Due'), (r) => r.dueDate], [t('应收金额', 'Amount'), (r) => yuan(r.amount)],
          [t('已收', 'Received'), (r) => yuan(r.received)], [t('未收', 'Outstanding'), (r) => yuan(r.outstanding)], [t('状态', 'State'), (r) => <StateTag r={r} />],
        ]} />
      </div>
      <div className="card">
        <h3>{t('台账分录', 'Entries')} <span className="muted small">{t('分录登记后不能修改;更正以冲销分录记账', 'Entries are never edited; a correction is a reversing entry')}</span></h3>
        <Table label={t('台账分录', 'Entries')} empty={t('暂无分录', 'No entries')} rows={entries.records ?? []} cols={[
          [t('业务日期', 'Date'), (r) => r.entryDate], [t('类型', 'Type'), (r) => typeName(r.entryType)],
          [t('金额', 'Amount'), (r) => <span className={Number(r.amount) < 0 ? 'overdue' : ''}>{yuan(r.amount)}</span>],
          [t('节点/发票', 'Node / invoice'), (r) => [r.node, r.dueDate && t(`应收 ${r.dueDate}`, `due ${r.dueDate}`), r.invoiceNo].filter(Boolean).join(' · ')],
          [t('说明', 'Note'), (r) => <>{r.remark}{r.reversedBy && <span className="tag">{t('已冲销', 'Reversed')}</span>}{r.reversesId && r.reversesId !== '0' && <span className="tag">{t('冲销分录', 'Reversal')}</span>}</>],
          [t('登记人', 'By'), (r) => r.createUserName], [t('登记时间', 'Posted'), (r) => r.createTime],
          [t('操作', 'Action'), (r) => canFix && !r.reversedBy && (!r.reversesId || r.reversesId === '0') && Number(r.entryType) !== 1
            ? <button type="button" className="link" onClick={() => setFixing(r)}>{t('更正', 'Correct')}</button> : null],
        ]} />
        {entries.total > 20 && <Pager total={entries.total} current={entries.current} pages={entries.pages} size={20} go={(o) => o.current && setPage(o.current)} />}
      </div>
      {posting && <PostDialog type={posting} contractId={d.contractId} onClose={() => setPosting(null)} onDone={() => { setPosting(null); toast(t('已记账', 'Posted')); void load(); }} />}
      {fixing && <FixDialog entry={fixing} onClose={() => setFixing(null)} onDone={() => { setFixing(null); toast(t('已冲销更正', 'Corrected')); void load(); }} />}
    </section>
  );
}

/** Posts an entry of one type: amount and date, the node and due date of a schedule entry, an invoice's number. */
function PostDialog({ type, contractId, onClose, onDone, url = `${L}/save`, about, amount = '', nodeId }: { type: number; contractId: string; onClose: () => void; onDone: () => void; url?: string; about?: ReactNode; amount?: string; nodeId?: string }) {
  const { L: t, en } = useL();
  const [f, setF] = useState<Row>({ amount, entryDate: today(), node: '', dueDate: '', invoiceNo: '', remark: '' });
  const [err, setErr] = useState<string | null>(null);
  const name = TYPES.find(([k]) => k === type)!;
  const send = async (e?: FormEvent) => {
    e?.preventDefault();
    setErr(null);
    const amount = String(plainMoney(f.amount));
    if (!/^-?\d+(\.\d{1,2})?$/.test(amount)) return setErr(t('请输入金额,最多两位小数', 'Enter an amount with at most two decimals'));
    // What the entry needs, said before posting (the 发票号 was asked for only by the server's answer).
    if (type === 3 && !f.node.trim()) return setErr(t('请输入收款节点', 'Enter the payment node'));
    if (type === 3 && !f.dueDate) return setErr(t('请输入应收日期', 'Enter the due date'));
    if (type === 5 && !f.invoiceNo.trim()) return setErr(t('请输入发票号', 'Enter the invoice number'));
    try {
      await post(url, { contractId, entryType: type, ...f, amount, ...(nodeId ? { nodeId } : {}) });
      onDone();
    } catch (e2) {
      setErr(errText(e2));
    }
  };
  return (
    <Dialog open onOpenChange={(o) => { if (!o) onClose(); }} title={t(`登记${name[1]}`, `Post ${name[2].toLowerCase()}`)} width={520}
      footer={<><button type="button" className="btn" onClick={onClose}>{t('取消', 'Cancel')}</button><button type="button" className="btn btn-primary" onClick={() => void send()}>{t('记账', 'Post')}</button></>}>
      <form className="flow-form" onSubmit={send}>
        {about}
        <label><Req />{t('金额(元)', 'Amount (yuan)')}{type === 2 && <span className="muted small">{t(' 减项填负数', ' negative for a reduction')}</span>}
          <input inputMode="decimal" value={f.amount} onChange={(e) => setF({ ...f, amount: e.target.value })} onBlur={() => setF((x) => ({ ...x, amount: String(plainMoney(x.amount)) }))} aria-label={t('金额(元)', 'Amount (yuan)')} /></label>
        <label>{t('业务日期', 'Date')}<input type="date" value={f.entryDate} onChange={(e) => setF({ ...f, entryDate: e.target.value })} /></label>
        {type === 3 && (
          <>
            <label><Req />{t('收款节点', 'Payment node')}
              <input list="ledger-nodes" required value={f.node} maxLength={32} onChange={(e) => setF({ ...f, node: e.target.value })} />
              <datalist id="ledger-nodes">{['定金', '首期款', '中期款', '尾款', '质保金'].map((n) => <option key={n} value={n} />)}</datalist>
            </label>
            <label><Req />{t('应收日期', 'Due')}<input type="date" required value={f.dueDate} onChange={(e) => setF({ ...f, dueDate: e.target.value })} /></label>
          </>
        )}
        {type === 5 && <label><Req />{t('发票号', 'Invoice no.')}<input required value={f.invoiceNo} maxLength={32} onChange={(e) => setF({ ...f, invoiceNo: e.target.value })} /></label>}
        <label className="wide">{t('说明', 'Note')}<input value={f.remark} maxLength={255} onChange={(e) => setF({ ...f, remark: e.target.value })} /></label>
        {err && <div className="form-err wide" role="alert">{err}</div>}
        {!en && <p className="muted small wide">登记后不能修改,有误请用「更正」冲销。</p>}
      </form>
    </Dialog>
  );
}

/** The mark of a box that must be filled. */
const Req = () => <span className="req" aria-hidden="true">*</span>;

/** A correction: the reason, and the right amount (empty: only reverse). */
function FixDialog({ entry, onClose, onDone }: { entry: Row; onClose: () => void; onDone: () => void }) {
  const { L: t } = useL();
  const [amount, setAmount] = useState('');
  const [remark, setRemark] = useState('');
  const [err, setErr] = useState<string | null>(null);
  const send = async () => {
    setErr(null);
    if (!remark.trim()) return setErr(t('请填写更正原因', 'Give the reason'));
    try {
      await post(`${L}/update/ledger`, { id: entry.id, amount: String(plainMoney(amount)), remark });
      onDone();
    } catch (e) {
      setErr(errText(e));
    }
  };
  return (
    <Dialog open onOpenChange={(o) => { if (!o) onClose(); }} title={t('更正分录', 'Correct the entry')} width={480}
      footer={<><button type="button" className="btn" onClick={onClose}>{t('取消', 'Cancel')}</button><button type="button" className="btn btn-primary" onClick={send}>{t('冲销并更正', 'Reverse and correct')}</button></>}>
      <div className="flow-form">
        <p className="wide">{t(`原分录:${entry.entryDate} ${entry.entryTypeName} ${yuan(entry.amount)}`, `Entry: ${entry.entryDate} ${yuan(entry.amount)}`)}</p>
        <label>{t('正确金额(元,留空则只冲销)', 'Right amount (empty: reverse only)')}<input inputMode="decimal" value={amount} onChange={(e) => setAmount(e.target.value)} /></label>
        <label>{t('更正原因', 'Reason')}<input value={remark} maxLength={200} onChange={(e) => setRemark(e.target.value)} /></label>
        {err && <div className="form-err wide" role="alert">{err}</div>}
      </div>
    </Dialog>
  );
}

/** 应收款: every payment node of the tenant's ledgers, overdue first when filtered, with receipts recorded here. */
export function ReceivablesPage() {
  const { props, navigate } = useApp();
  const { L: t } = useL();
  const toast = useToast();
  const [state, setState] = useState('2');
  const [page, setPage] = useState(1);
  const [size, setSize] = useState(10);
  const [data, setData] = useState<Row | null>(null);
  const [paying, setPaying] = useState<Row | null>(null);
  const load = useCallback(async () => {
    try { setData(await get(`${R}/list?current=${page}&size=${size}${state ? `&state=${state}` : ''}`)); } catch (e) { toast(errText(e), 'error'); }
  }, [page, size, state, toast]);
  useEffect(() => { void load(); }, [load]);
  const canPay = props.permissions.includes('receivables_add');
  return (
    <section className="detail-page" aria-label={t('应收款', 'Receivables')}>
      <div className="card">
        <div className="tabs" role="tablist">{STATES.map(([k, zh, e]) => (
          <button key={k} type="button" role="tab" aria-selected={state === k} className={'btn' + (state === k ? ' btn-primary' : '')} onClick={() => { setState(k); setPage(1); }}>{t(zh, e)}</button>
        ))}</div>
        <div className="nowrap-table"><Table label={t('应收款', 'Receivables')} empty={data ? t('没有符合条件的收款节点', 'No payment nodes') : t('加载中…', 'Loading…')} rows={data?.records ?? []} cols={[
          [t('合同', 'Contract'), (r) => <a className="link" href={`/finance/contractLedger/detail?contractId=${r.contractId}`} onClick={(e) => { e.preventDefault(); navigate(`/finance/contractLedger/detail?contractId=${r.contractId}`); }}>{r.contractCode}</a>],
          [t('合同名称', 'Name'), (r) => <span className="clip" title={r.contractName}>{r.contractName}</span>], [t('收款节点', 'Node'), (r) => r.node], [t('应收日期', 'Due'), (r) => r.dueDate],
          [t('应收金额', 'Amount'), (r) => yuan(r.amount)], [t('已收', 'Received'), (r) => yuan(r.received)], [t('未收', 'Outstanding'), (r) => yuan(r.outstanding)],
          [t('状态', 'State'), (r) => <StateTag r={r} />],
          [t('操作', 'Action'), (r) => canPay && r.state !== 3 ? <button type="button" className="link" onClick={() => setPaying(r)}>{t('登记收款', 'Record a receipt')}</button> : null],
        ]} /></div>
        {data && <Pager total={data.total} current={data.current} pages={data.pages} size={size} go={(o) => { if (o.size) { setSize(o.size); setPage(1); } else if (o.current) setPage(o.current); }} />}
      </div>
      {paying && <PostDialog type={4} contractId={paying.contractId} url={`${R}/save`} amount={String(paying.outstanding ?? '')} nodeId={paying.id}
        // Which contract and stage the receipt is for, and what is still owed (suggested as the amount).
        about={<div className="wide receipt-about" aria-label={t('收款对象', 'Receipt for')}>
          <div><b>{paying.contractCode}</b> {paying.contractName}</div>
          <div className="muted">{t(`收款节点 ${paying.node} · 应收 ${yuan(paying.amount)} · 已收 ${yuan(paying.received)} · 未收 ${yuan(paying.outstanding)}`, `Stage ${paying.node} · due ${yuan(paying.amount)} · received ${yuan(paying.received)} · outstanding ${yuan(paying.outstanding)}`)}</div>
          <div className="muted small">{t(`先冲抵「${paying.node}」;超出其未收的部分按应收日期先后冲抵其他节点。`, `Settles ${paying.node} first; what is more than it owes settles the other stages in the order they fall due.`)}</div>
        </div>}
        onClose={() => setPaying(null)} onDone={() => { setPaying(null); toast(t('已登记收款', 'Receipt recorded')); void load(); }} />}
    </section>
  );
}
