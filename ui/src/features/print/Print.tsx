// Print layouts people print (/print/:kind/:no): 入库单, 上架单, 拣货单 (in bin walking order), 出库单/送货单 and a
// contract summary. Each is a page of its own with the tenant's name as letterhead, the document's QR code
// (its number, for a scanner at the gate or the depot), the lines as a ruled table and signature lines; the
// toolbar (not printed) chooses A4 or the 241 mm continuous paper Chinese offices use for 送货单, and prints.
// @media print in print.css sets the page size and hides everything else.
import { useEffect, useState, type ReactNode } from 'react';
import qrcode from 'qrcode-generator';
import { useApp } from '../../app';
import { configure, get, post, ApiError } from '../../lib/api';
import { useL, yuan } from '../../lib/words';

type Row = Record<string, any>;
const W = '/api/blade-api/wms';
const S = '/api/blade-scm';
export const PRINT_KINDS = ['rk', 'up', 'pick', 'ck', 'contract'] as const;
export type PrintKind = (typeof PRINT_KINDS)[number];

/** The QR code of `text` as SVG squares (no canvas, the same on the server and in the browser). */
export function Qr({ text, size = 96, label }: { text: string; size?: number; label: string }) {
  const qr = qrcode(0, 'M');
  qr.addData(text);
  qr.make();
  const n = qr.getModuleCount();
  const cells: ReactNode[] = [];
  for (let r = 0; r < n; r++) for (let c = 0; c < n; c++) if (qr.isDark(r, c)) cells.push(<rect key={r * n + c} x={c + 4} y={r + 4} width={1} height={1} />);
  return (
    <svg className="print-qr" width={size} height={size} viewBox={`0 0 ${n + 8} ${n + 8}`} role="img" aria-label={label} shapeRendering="crispEdges">
      <rect width={n + 8} height={n + 8} fill="#fff" />
      <g fill="#000">{cells}</g>
    </svg>
  );
}

/** Bins in the order a picker walks them: zone, then the bin code's parts compared as numbers where they are. */
export function walkOrder(a: string, b: string): number {
  const parts = (s: string) => s.split(/[/\-_ ]+/).filter(Boolean);
  const [x, y] = [parts(a), parts(b)];
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const [p, q] = [x[i] ?? '', y[i] ?? ''];
    const [np, nq] = [Number(p), Number(q)];
    const d = Number.isFinite(np) && Number.isFinite(nq) && p !== '' && q !== '' ? np - nq : p.localeCompare(q, 'zh-CN');
    if (d !== 0) return d;
  }
  return 0;
}

type Doc = { title: string; no: string; facts: [string, ReactNode][]; head: string[]; rows: ReactNode[][]; total?: ReactNode[]; signs: string[]; note?: string };

async function load(kind: PrintKind, no: string, L: (zh: string, en: string) => string): Promise<Doc | null> {
  if (kind === 'contract') {
    const d = await post(`${S}/contract/list`, { contractCode_equal: no, size: 1 });
    const c = d?.records?.[0];
    if (!c) return null;
    const figures = c.projectId ? await get(`${S}/project/figures`, { projectId: c.projectId }).catch(() => null) : null;
    const ledger = await get(`${S}/contractledger/list`, { contractId: c.id, size: 1 }).then((x) => x?.records?.[0] ?? null).catch(() => null);
    return {
      title: L('合同摘要', 'Contract summary'), no,
      facts: [[L('合同名称', 'Name'), c.contractName], [L('签约方', 'Party'), c.partyName || '—'], [L('所属项目', 'Project'), c.projectName || '—'],
        [L('合同状态', 'Status'), c.contractStatusName ?? c.contractStatus], [L('签订日期', 'Signed on'), c.signDate || '—'], [L('合同金额', 'Amount'), yuan(c.contractAmount)]],
      head: [L('项目', 'Item'), L('金额(元)', 'Amount (yuan)')],
      rows: ledger ? [[L('签约金额', 'Signed'), yuan(ledger.signedAmount)], [L('已批准变更', 'Approved changes'), yuan(ledger.changeAmount)], [L('合同总额', 'Contract total'), yuan(ledger.contractAmount)],
        [L('已收款', 'Received'), yuan(ledger.received)], [L('已开票', 'Invoiced'), yuan(ledger.invoiced)], [L('未收款', 'Outstanding'), yuan(ledger.outstanding)]]
        : [[L('合同金额', 'Amount'), yuan(c.contractAmount)]],
      note: figures ? L(`所属项目合同总额 ${yuan(figures.contractValue)}(已签订、执行中、已完成合同,含已批准的变更)`, `Project contract value ${yuan(figures.contractValue)}`) : undefined,
      signs: [L('甲方(签章)', 'Client (seal)'), L('乙方(签章)', 'Contractor (seal)'), L('日期', 'Date')],
    };
  }
  const side = kind === 'rk' || kind === 'up' ? 'rk' : 'ck';
  const d = await get(`${W}/order/${side}/list`, { orderNo_equal: no, size: 1 });
  const o = d?.records?.[0];
  if (!o) return null;
  const lines: Row[] = (await get(`${W}/mx${side}/list`, { orderId: o.id, size: 500 }))?.records ?? [];
  // Units and specs are the goods' (a line names its goods only).
  const goods = new Map<string, Row>();
  await Promise.all([...new Set(lines.map((l) => String(l.goodsId)))].slice(0, 100).map((gid) =>
    get(`${W}/goods/detail`, { id: gid }).then((g) => g && goods.set(gid, g), () => {})));
  for (const l of lines) {
    const g = goods.get(String(l.goodsId));
    if (g) { l.unit = l.unit ?? g.unit; l.spec = l.spec ?? g.spec; l.goodsCode = l.goodsCode ?? g.goodsCode; }
  }
  const sum = (k: string) => lines.reduce((a, l) => a + Number(l[k] ?? 0), 0);
  if (kind === 'rk') {
    return {
      title: L('入库单', 'Goods received note'), no,
      facts: [[L('仓库', 'Store'), o.storeName], [L('入库类型', 'Type'), o.orderTypeName], [L('供应商', 'Supplier'), o.supplierName || '—'], [L('货主', 'Owner'), o.customerName || '—'],
        [L('预计到货', 'Expected'), o.expectedDate || '—'], [L('完成时间', 'Finished'), o.finishTime || '—']],
      head: [L('序号', 'No.'), L('商品', 'Goods'), L('批次', 'Batch'), L('到期', 'Expires'), L('预计', 'Expected'), L('实收', 'Received'), L('短收', 'Short'), L('合格', 'Passed'), L('不合格', 'Failed')],
      rows: lines.map((l, i) => [i + 1, l.goodsName, l.batch || '', l.expireDate || '', l.expectedQty, l.receivedQty, l.shortQty && l.shortQty !== '0' ? `${l.shortQty}${l.shortReason ? `(${l.shortReason})` : ''}` : '', l.passedQty, l.failedQty]),
      total: [L('合计', 'Total'), '', '', '', String(sum('expectedQty')), String(sum('receivedQty')), String(sum('shortQty') || ''), String(sum('passedQty')), String(sum('failedQty'))],
      signs: [L('送货人', 'Delivered by'), L('收货人', 'Received by'), L('复核人', 'Checked by')],
    };
  }
  if (kind === 'up') {
    const sug: Row[] = (await get(`${W}/up/goods`, { orderId: o.id, size: 500 }).catch(() => null))?.records ?? [];
    const done: Row[] = (await get(`${W}/up/list`, { orderId: o.id, size: 500 }).catch(() => null))?.records ?? [];
    const rows: Row[] = [
      ...done.map((u) => ({ bin: u.spaceName ?? u.spaceIdName ?? '', goods: u.goodsName, batch: u.batch, qty: u.qty, state: L('已上架', 'Put away') })),
      ...sug.filter((s) => Number(s.passedQty ?? 0) - Number(s.putQty ?? 0) > 0).map((s) => ({ bin: s.suggestSpaceCode ?? '', goods: s.goodsName, batch: s.batch,
        qty: String(Math.round((Number(s.passedQty ?? 0) - Number(s.putQty ?? 0)) * 10000) / 10000), state: L('待上架(建议储位)', 'To put away (suggested bin)') })),
    ].sort((a, b) => walkOrder(String(a.bin), String(b.bin)));
    return {
      title: L('上架单', 'Put-away list'), no,
      facts: [[L('仓库', 'Store'), o.storeName], [L('入库单', 'Inbound order'), o.orderNo], [L('供应商', 'Supplier'), o.supplierName || '—']],
      head: [L('序号', 'No.'), L('储位', 'Bin'), L('商品', 'Goods'), L('批次', 'Batch'), L('数量', 'Quantity'), L('状态', 'State'), L('上架人', 'By')],
      rows: rows.map((r, i) => [i + 1, r.bin, r.goods, r.batch || '', r.qty, r.state, '']),
      signs: [L('上架人', 'Put away by'), L('复核人', 'Checked by')],
    };
  }
  if (kind === 'pick') {
    const picks: Row[] = (await get(`${W}/down/goods_list`, { orderId: o.id, size: 500 }).catch(() => null))?.records ?? [];
    const rows = [...picks].sort((a, b) => walkOrder(String(a.locationName), String(b.locationName)));
    return {
      title: L('拣货单', 'Pick list'), no,
      facts: [[L('仓库', 'Store'), o.storeName], [L('领料项目', 'Project'), o.projectName || '—'], [L('收货人', 'Consignee'), o.consignee || '—']],
      head: [L('序号', 'No.'), L('储位', 'Bin'), L('商品', 'Goods'), L('规格', 'Spec'), L('批次', 'Batch'), L('应拣', 'To pick'), L('实拣', 'Picked')],
      rows: rows.map((r, i) => [i + 1, r.locationName, `${r.goodsCode ?? ''} ${r.goodsName}`, r.spec || '', r.batch || '', `${r.qty} ${r.unit ?? ''}`, '']),
      note: rows.length === 0 ? L('没有待拣货的储位(未释放或已拣完)', 'Nothing to pick (not released, or all picked)') : L('按储位行走顺序排列', 'In bin walking order'),
      signs: [L('拣货人', 'Picked by'), L('复核人', 'Checked by')],
    };
  }
  // 出库单 / 送货单: what left, from which bins.
  const downs: Row[] = (await get(`${W}/down/list`, { orderId: o.id, size: 500 }).catch(() => null))?.records ?? [];
  const picked = (lineId: string, f: (x: Row) => unknown) => [...new Set(downs.filter((x) => String(x.lineId) === String(lineId)).map(f).filter(Boolean))].join('、');
  const bins = (lineId: string) => picked(lineId, (x) => x.spaceName ?? x.spaceIdName);
  // A line asks for goods, not a batch: what left is the batches its picks took.
  const batches = (l: Row) => l.batch || picked(l.id, (x) => x.batch);
  return {
    title: Number(o.orderStatus) === 4 ? L('送货单', 'Delivery note') : L('出库单', 'Outbound order'), no,
    facts: [[L('仓库', 'Store'), o.storeName], [L('出库类型', 'Type'), o.orderTypeName], [L('领料项目', 'Project'), o.projectName || '—'], [L('施工单', 'Construct'), o.constructName || '—'],
      [L('收货人', 'Consignee'), o.consignee || '—'], [L('发货时间', 'Shipped'), o.shipTime || L('未发货', 'Not shipped')]],
    head: [L('序号', 'No.'), L('商品', 'Goods'), L('单位', 'Unit'), L('批次', 'Batch'), L('储位', 'Bins'), L('数量', 'Quantity'), L('实发', 'Shipped')],
    rows: lines.map((l, i) => [i + 1, l.goodsName, l.unit ?? '', batches(l), bins(l.id), l.qty, l.pickedQty]),
    total: [L('合计', 'Total'), '', '', '', '', String(sum('qty')), String(sum('pickedQty'))],
    signs: [L('发货人', 'Shipped by'), L('承运人', 'Carrier'), L('收货人', 'Received by'), L('收货日期', 'Date received')],
  };
}

export function PrintPage({ kind, no }: { kind: string; no: string }) {
  const { L } = useL();
  const { props } = useApp();
  const [doc, setDoc] = useState<Doc | null | undefined>(undefined);
  const [err, setErr] = useState<string | null>(null);
  const [paper, setPaper] = useState<'a4' | 'cont'>(kind === 'ck' ? 'cont' : 'a4');
  // No layout around this page: the API calls carry the tenant as the layout's would.
  useEffect(() => { configure({ tenantId: props.tenant.id, onUnauthorized: () => window.location.assign('/login?redirect=' + encodeURIComponent(window.location.pathname)) }); }, [props.tenant.id]);
  useEffect(() => {
    if (!(PRINT_KINDS as readonly string[]).includes(kind)) { setDoc(null); return; }
    load(kind as PrintKind, no, L).then(setDoc, (e) => setErr(e instanceof ApiError ? e.message : String(e)));
  }, [kind, no]);
  const company = props.tenant.name || props.site.title;
  if (err) return <main className="print-page"><p className="form-err" role="alert">{err}</p></main>;
  if (doc === undefined) return <main className="print-page" aria-busy="true"><p className="muted">{L('加载中…', 'Loading…')}</p></main>;
  if (doc === null) return <main className="print-page"><p className="empty">{L(`单据 ${no} 不存在或无权查看`, `${no} does not exist or is not yours to see`)}</p></main>;
  const printed = new Date(props.now + 8 * 3600_000).toISOString().slice(0, 16).replace('T', ' ');
  return (
    <main className={`print-page paper-${paper}`} aria-label={doc.title}>
      <style>{paper === 'cont' ? '@page { size: 241mm 140mm; margin: 6mm 8mm; }' : '@page { size: A4; margin: 12mm; }'}</style>
      <div className="print-tools no-print">
        <label>{L('纸张', 'Paper')}{' '}
          <select aria-label={L('纸张', 'Paper')} value={paper} onChange={(e) => setPaper(e.target.value as 'a4' | 'cont')}>
            <option value="a4">A4</option>
            <option value="cont">{L('241 mm 连续纸(二等分)', '241 mm continuous (half)')}</option>
          </select>
        </label>
        <button type="button" className="btn btn-primary" onClick={() => window.print()}>{L('打印', 'Print')}</button>
        <button type="button" className="btn" onClick={() => window.history.back()}>{L('返回', 'Back')}</button>
      </div>
      <header className="print-head">
        <div>
          <div className="print-company">{company}</div>
          <h1>{doc.title}</h1>
          <div className="print-no">{L('单号', 'No.')}:{doc.no}</div>
        </div>
        <Qr text={doc.no} label={L(`单号 ${doc.no} 的二维码`, `QR code of ${doc.no}`)} />
      </header>
      <dl className="print-facts">
        {doc.facts.map(([k, v]) => <div key={k}><dt>{k}</dt><dd>{v || '—'}</dd></div>)}
      </dl>
      <table className="print-lines" aria-label={doc.title}>
        <thead><tr>{doc.head.map((h) => <th key={h}>{h}</th>)}</tr></thead>
        <tbody>
          {doc.rows.length === 0 && <tr><td colSpan={doc.head.length} className="muted">{L('没有明细', 'No lines')}</td></tr>}
          {doc.rows.map((r, i) => <tr key={i}>{r.map((c, j) => <td key={j}>{c}</td>)}</tr>)}
        </tbody>
        {doc.total && <tfoot><tr>{doc.total.map((c, j) => <td key={j}>{c}</td>)}</tr></tfoot>}
      </table>
      {doc.note && <p className="print-note">{doc.note}</p>}
      <div className="print-signs">
        {doc.signs.map((s) => <div key={s}><span>{s}:</span><span className="print-line" /></div>)}
      </div>
      <footer className="print-foot">{L(`打印时间 ${printed}`, `Printed ${printed}`)} · {company}</footer>
    </main>
  );
}
