// 仓库作业: the inbound order a clerk works through (lines, receive → review → put away), the outbound order
// (lines, release, pick list, ship), and the stock card of a goods. Every quantity is the server's exact
// decimal text; inputs accept a typed or scanned barcode (goods barcode, SKU, bin barcode or code) and find
// the line or bin it names. Printable pick and put-away lists use the browser's print (print CSS hides the
// chrome).
import { useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { useApp } from '../../app';
import { get, post, ApiError } from '../../lib/api';
import { useTagName } from '../../lib/tagname';
import { useToast } from '../../components/ui/toast';
import { Facts, Table } from '../../components/ui/record';
import { useAsk } from '../../components/ui/dialog';
import { useL } from '../../lib/words';
import { CK_STATUS, RK_STATUS } from '../../lib/wms';

type Row = Record<string, any>;
const W = '/api/blade-api/wms';


/** The one order whose number is `no`, or null. */
async function orderByNo(kind: 'rk' | 'ck', no: string): Promise<Row | null> {
  const d = await get(`${W}/order/${kind}/list`, { orderNo_equal: no, size: 1 });
  return d?.records?.[0] ?? null;
}

/** Goods by a scanned or typed barcode, SKU or name fragment (first match). */
async function findGoods(text: string): Promise<Row | null> {
  const found = await findGoodsAll(text);
  return found[0] ?? null;
}

/** Goods by barcode or SKU (one), else every goods whose name holds the text (up to 20): a name fragment may
 * name several (螺丝: four 自攻螺丝 of different sizes), and the person chooses. */
async function findGoodsAll(text: string): Promise<Row[]> {
  const t = text.trim();
  if (!t) return [];
  for (const q of [{ barcode_equal: t }, { goodsCode_equal: t }]) {
    const d = await get(`${W}/goods/list`, { ...q, size: 1 });
    if (d?.records?.[0]) return [d.records[0]];
  }
  const d = await get(`${W}/goods/list`, { goodsName: t, size: 20 });
  return d?.records ?? [];
}

/** A bin by its barcode or code. */
async function findBin(text: string): Promise<Row | null> {
  const t = text.trim();
  if (!t) return null;
  for (const q of [{ barcode_equal: t }, { spaceCode_equal: t }]) {
    const d = await get(`${W}/storagespace/list`, { ...q, size: 1 });
    if (d?.records?.[0]) return d.records[0];
  }
  return null;
}

/** A line's goods as a clerk tells them apart: code, name and spec (eight goods are called BV铜芯电线). */
function goodsOf(r: Row): string {
  return [r.goodsCode, r.goodsName, r.goodsSpec].filter(Boolean).join(' ');
}

/** A total over lines in their units: 20 卷 when they share one, 20 卷 + 3 张 when not (23 added rolls to sheets). */
function inUnits(lines: Row[], qty: (l: Row) => string): string {
  const by = new Map<string, string>();
  for (const l of lines) by.set(l.goodsUnit ?? '', dec(by.get(l.goodsUnit ?? '') ?? '0', dec('0', qty(l) ?? '0')));
  return [...by].map(([u, q]) => `${q}${u ? ' ' + u : ''}`).join(' + ') || '0';
}

function useOrder(kind: 'rk' | 'ck', no: string) {
  const [order, setOrder] = useState<Row | null | undefined>(undefined);
  const [lines, setLines] = useState<Row[]>([]);
  const [err, setErr] = useState<string | null>(null);
  const load = useCallback(async () => {
    try {
      const o = await orderByNo(kind, no);
      if (!o) { setOrder(o); return; }
      const d = await get(`${W}/mx${kind}/list`, { orderId: o.id, size: 500 });
      // The order shows with its lines (before them, 暂无明细 flashed between 加载中… and the rows).
      setLines(d?.records ?? []);
      setOrder(o);
    } catch (e) {
      setErr(e instanceof ApiError ? e.message : String(e));
    }
  }, [kind, no]);
  useEffect(() => { void load(); }, [load]);
  return { order, lines, err, load };
}

function Shell({ label, order, err, no, children }: { label: string; order: Row | null | undefined; err: string | null; no: string; children: () => ReactNode }) {
  const { L } = useL();
  if (err) return <section className="detail-page"><div className="form-err" role="alert">{err}</div></section>;
  if (order === undefined) return <section className="detail-page" aria-busy="true"><p className="muted">{L('加载中…', 'Loading…')}</p></section>;
  if (order === null) return <section className="detail-page"><p className="empty">{L(`单据 ${no} 不存在或无权查看`, `Order ${no} does not exist or is not yours to see`)}</p></section>;
  return <section className="detail-page wms-order" aria-label={label}>{children()}</section>;
}

/** A line adder: goods by scan or text, a quantity, and for inbound a batch and expiry. */
function AddLine({ kind, orderId, onDone }: { kind: 'rk' | 'ck'; orderId: string; onDone: () => void }) {
  const { L } = useL();
  const toast = useToast();
  const [code, setCode] = useState('');
  const [qty, setQty] = useState('');
  const [batch, setBatch] = useState('');
  const [expire, setExpire] = useState('');
  const [choices, setChoices] = useState<Row[]>([]);
  const submit = async (chosen?: Row) => {
    try {
      const found = chosen ? [chosen] : await findGoodsAll(code);
      if (found.length === 0) return toast(L(`没有找到商品「${code}」`, `No goods "${code}"`), 'error');
      // Several goods by that name: the clerk picks one (code, name and spec shown), nothing is added meanwhile.
      if (found.length > 1) return setChoices(found);
      setChoices([]);
      const g = found[0];
      const body = kind === 'rk'
        ? { orderId, goodsId: g.id, expectedQty: qty, batch: batch || undefined, expireDate: expire || undefined }
        : { orderId, goodsId: g.id, qty, batch: batch || undefined };
      await post(`${W}/mx${kind}/submit`, body);
      toast(L('新增成功', 'Added'));
      setCode(''); setQty(''); setBatch(''); setExpire('');
      onDone();
    } catch (e) { toast(e instanceof ApiError ? e.message : String(e), 'error'); }
  };
  return (<>
    <form className="scan-row no-print" onSubmit={(e) => { e.preventDefault(); void submit(); }} aria-label={L('新增明细', 'Add a line')}>
      <input aria-label={L('商品条码/编码/名称', 'Goods barcode, SKU or name')} placeholder={L('扫码或输入商品条码、编码、名称', 'Scan or type barcode, SKU or name')} value={code} onChange={(e) => setCode(e.target.value)} />
      <input aria-label={L('数量', 'Quantity')} placeholder={L('数量', 'Quantity')} inputMode="decimal" value={qty} onChange={(e) => setQty(e.target.value)} />
      <input aria-label={L('批次号', 'Batch')} placeholder={L('批次号(可选)', 'Batch (optional)')} value={batch} onChange={(e) => setBatch(e.target.value)} />
      {kind === 'rk' && <input aria-label={L('到期日期', 'Expires on')} type="date" value={expire} onChange={(e) => setExpire(e.target.value)} />}
      <button type="submit" className="btn btn-primary">{L('添加明细', 'Add line')}</button>
    </form>
    {choices.length > 1 && (
      <div className="goods-choices no-print" role="group" aria-label={L('选择商品', 'Choose the goods')}>
        <span className="muted">{L(`「${code}」对应 ${choices.length} 个商品,请选择:`, `"${code}" names ${choices.length} goods; choose one:`)}</span>
        {choices.map((g) => (
          <button key={g.id} type="button" className="btn btn-small" onClick={() => void submit(g)}>
            {g.goodsCode} {g.goodsName}{g.spec ? ` ${g.spec}` : ''}
          </button>
        ))}
        <button type="button" className="link" onClick={() => setChoices([])}>{L('取消', 'Cancel')}</button>
      </div>
    )}
  </>);
}

/** 删除 of a line of a new order (asked first); the server refuses one that has moved stock. */
function RemoveLine({ kind, line, ask, act }: { kind: 'rk' | 'ck'; line: Row; ask: ReturnType<typeof useAsk>[1]; act: (f: () => Promise<unknown>, done: string) => Promise<void> }) {
  const { L } = useL();
  return (
    <button type="button" className="link danger" onClick={async () => {
      if ((await ask({ text: L(`删除明细「${line.goodsName}」?`, `Remove the line "${line.goodsName}"?`) })) === null) return;
      await act(() => post(`${W}/mx${kind}/remove`, undefined, { ids: line.id }), L('已删除', 'Removed'));
    }}>{L('删除', 'Remove')}</button>
  );
}

/** A quantity box with its action button, per line. */
function QtyAction({ label, caption, initial, onGo, extra }: { label: string; caption?: string; initial: string; onGo: (qty: string, extra: string) => Promise<void>; extra?: { label: string; caption?: string; initial: string; qty?: boolean } }) {
  const { L } = useL();
  const [q, setQ] = useState(initial);
  const [x, setX] = useState(extra?.initial ?? '');
  useEffect(() => { setQ(initial); }, [initial]);
  useEffect(() => { setX(extra?.initial ?? ''); }, [extra?.initial]);
  // Quantities are numbers with at most four decimals (what the server keeps), together above 0 (a review may pass
  // none when some failed). Anything else is said beside the boxes and not sent.
  const qOk = QTY.test(q.trim());
  const xOk = !extra?.qty || QTY.test(x.trim());
  const bad = !qOk ? L(`请输入${label}数量，最多4位小数`, `Enter the quantity to ${label.toLowerCase()}, at most 4 decimals`)
    : !xOk ? L(`请输入${extra!.label}，最多4位小数`, `Enter ${extra!.label.toLowerCase()}, at most 4 decimals`)
    : units(q) + (extra?.qty ? units(x) : BigInt(0)) <= BigInt(0) ? L('数量必须大于0', 'The quantity must be above 0') : null;
  return (
    <span className="qty-action">
      {/* Two boxes side by side each say what they hold, where a clerk looks (a placeholder goes once typed in). */}
      {extra && <label className="qty-field"><span className="muted">{extra.caption ?? extra.label}</span>
        <input aria-label={extra.label} className="bin-input" inputMode={extra.qty ? 'decimal' : undefined} aria-invalid={!xOk} value={x} onChange={(e) => setX(e.target.value)} placeholder={extra.label} /></label>}
      <label className="qty-field">{extra && <span className="muted">{caption ?? L('数量', 'Qty')}</span>}
        <input aria-label={label + '数量'} className="qty-input" inputMode="decimal" aria-invalid={!qOk} value={q} onChange={(e) => setQ(e.target.value)} /></label>
      <button type="button" className="btn btn-small" disabled={!!bad} onClick={() => void onGo(q.trim(), x.trim())}>{label}</button>
      {bad && <span className="form-err qty-err" role="alert">{bad}</span>}
    </span>
  );
}

/** A quantity as a person types it: digits, at most four decimals. */
const QTY = /^\d+(\.\d{1,4})?$/;

/** Ten-thousandths of a quantity's exact text ("12.5" → 125000), as the server keeps it. */
const units = (v: unknown): bigint => {
  const m = /^(-?)(\d*)(?:\.(\d{0,4}))?$/.exec(String(v ?? '0').trim());
  if (!m) return BigInt(0);
  const n = BigInt((m[2] || '0') + (m[3] ?? '').padEnd(4, '0'));
  return m[1] ? -n : n;
};

/** a − b of two quantities, exactly, as the server would write it ("12.5", "3"). */
export const dec = (a: unknown, b: unknown) => {
  const n = units(a) - units(b);
  const abs = n < BigInt(0) ? -n : n;
  const scale = BigInt(10000);
  const frac = (abs % scale).toString().padStart(4, '0').replace(/0+$/, '');
  return (n < BigInt(0) ? '-' : '') + (abs / scale).toString() + (frac ? '.' + frac : '');
};

export function InboundDetail({ no }: { no: string }) {
  const { props, navigate } = useApp();
  const { L, st } = useL();
  const toast = useToast();
  const perms = useMemo(() => new Set(props.permissions), [props.permissions]);
  const [asking, ask] = useAsk();
  const { order: o, lines, err, load } = useOrder('rk', no);
  const [suggest, setSuggest] = useState<Record<string, Row>>({});
  const [scan, setScan] = useState('');
  const [hit, setHit] = useState<string | null>(null);
  useEffect(() => {
    if (!o || Number(o.orderStatus) !== 3) return;
    get(`${W}/up/goods`, { orderId: o.id, size: 200 }).then((d) => {
      const m: Record<string, Row> = {};
      for (const r of d?.records ?? []) m[r.id] = r;
      setSuggest(m);
    }).catch(() => {});
  }, [o]);
  const act = async (f: () => Promise<unknown>, done: string) => {
    try { await f(); toast(done); await load(); } catch (e) { toast(e instanceof ApiError ? e.message : String(e), 'error'); }
  };
  const onScan = async () => {
    const g = await findGoods(scan).catch(() => null);
    const line = g && lines.find((l) => String(l.goodsId) === String(g.id));
    setHit(line ? String(line.id) : null);
    if (!line) toast(L(`本单没有「${scan}」`, `"${scan}" is not on this order`), 'error');
    setScan('');
  };
  return (
    <Shell label={L('入库单', 'Inbound order')} order={o} err={err} no={no}>{() => {
      const s = Number(o!.orderStatus);
      const op = (k: string) => `${k}-${o!.id}-${Date.now()}`;
      return (<>
        {asking}
        <div className="card">
          <div className="card-head">
            <h2>{L('入库单', 'Inbound order')} {o!.orderNo} <span className="tag">{st(RK_STATUS, s)}</span></h2>
            <span className="no-print">
              {(s === 1 || s === 2) && perms.has('order_rk_edit') && lines.some((l) => dec(dec(l.expectedQty, l.receivedQty), l.shortQty ?? '0') !== '0') && (
                <button type="button" className="btn" onClick={async () => {
                  const why = await ask({ text: L('供应商少送的部分不再等待：未收的数量记为短收，入库单按实收继续复核、上架。此操作不能撤销。', 'What the supplier did not deliver is no longer awaited: the rest is recorded as short and the order goes on with what was received. This cannot be undone.'), reason: L('短收原因', 'Reason') });
                  if (why) await act(() => post(`${W}/order/rk/close-short`, { id: o!.id, reason: why }), L('已短收完成', 'Closed short'));
                }}>{L('短收完成', 'Close short')}</button>)}
              {s === 2 && perms.has('review_finish') && <button type="button" className="btn btn-primary" onClick={async () => {
                if ((await ask({ text: L('完成复核后不能再修改复核结果，合格品进入待上架。确定完成复核？', 'Once finished, reviews cannot be changed and passed goods wait for put-away. Finish the review?') })) === null) return;
                await act(() => post(`${W}/review/finish`, { orderId: o!.id }), L('复核完成', 'Review finished'));
              }}>{L('完成复核', 'Finish review')}</button>}
              {s === 0 && perms.has('order_rk_edit') && <button type="button" className="btn" onClick={() => act(() => post(`${W}/order/rk/cancel`, { id: o!.id }), L('已取消', 'Cancelled'))}>{L('取消入库单', 'Cancel order')}</button>}
              <a className="btn" href={`/print/rk/${o!.orderNo}`} onClick={(e) => { e.preventDefault(); navigate(`/print/rk/${o!.orderNo}`); }}>{L('打印入库单', 'Print receipt')}</a>
              {s >= 3 && s !== 9 && <a className="btn" href={`/print/up/${o!.orderNo}`} onClick={(e) => { e.preventDefault(); navigate(`/print/up/${o!.orderNo}`); }}>{L('打印上架单', 'Print put-away list')}</a>}
            </span>
          </div>
          <Facts rows={[
            [L('仓库', 'Store'), o!.storeName], [L('入库类型', 'Type'), o!.orderTypeName], [L('货主', 'Owner'), o!.customerName], [L('供应商', 'Supplier'), o!.supplierName],
            [L('预计到货', 'Expected on'), o!.expectedDate], [L('预计数量', 'Expected'), lines.length ? inUnits(lines, (l) => l.expectedQty) : o!.expectedTotal], [L('实收数量', 'Received'), lines.length ? inUnits(lines, (l) => l.receivedQty) : o!.receivedTotal], [L('完成时间', 'Finished'), o!.finishTime],
          ]} />
        </div>
        <div className="card">
          <div className="card-head">
            <h3>{L('入库明细', 'Lines')}</h3>
            <form className="scan-row no-print" onSubmit={(e) => { e.preventDefault(); void onScan(); }}>
              <input aria-label={L('扫码定位明细', 'Scan to find a line')} placeholder={L('扫码定位明细', 'Scan to find a line')} value={scan} onChange={(e) => setScan(e.target.value)} />
            </form>
          </div>
          {s === 0 && (perms.has('order_rk_add') || perms.has('order_rk_edit')) && <AddLine kind="rk" orderId={o!.id} onDone={load} />}
          <Table label={L('入库明细', 'Lines')} empty={L('暂无明细', 'No lines')} rows={lines.map((l) => ({ ...l, _hit: String(l.id) === hit }))} cols={[
            [L('商品', 'Goods'), (r) => <span className={r._hit ? 'scan-hit' : undefined}>{goodsOf(r)}</span>], [L('单位', 'Unit'), (r) => r.goodsUnit || '—'],
            [L('批次', 'Batch'), (r) => r.batch || '—'], [L('到期', 'Expires'), (r) => r.expireDate || '—'],
            [L('预计', 'Expected'), (r) => r.expectedQty], [L('实收', 'Received'), (r) => r.receivedQty],
            [L('短收', 'Short'), (r) => (r.shortQty && r.shortQty !== '0' ? <Short qty={r.shortQty} reason={r.shortReason} /> : '—')],
            [L('合格', 'Passed'), (r) => r.passedQty], [L('不合格', 'Failed'), (r) => r.failedQty], [L('已上架', 'Put away'), (r) => r.putQty],
            ...(s === 0 && perms.has('order_rk_edit') ? [[L('明细', 'Line'), (r: Row) => (!r.receivedQty || r.receivedQty === '0' ? <RemoveLine kind="rk" line={r} ask={ask} act={act} /> : null)] as [string, (r: Row) => ReactNode]] : []),
            [L('操作', 'Action'), (r) => {
              if (s <= 2 && perms.has('received_add') && dec(dec(r.expectedQty, r.receivedQty), r.shortQty ?? '0') !== '0')
                return <QtyAction key="rcv" label={L('收货', 'Receive')} initial={dec(dec(r.expectedQty, r.receivedQty), r.shortQty ?? '0')} onGo={(q) => act(() => post(`${W}/received/save`, { lineId: r.id, qty: q, opId: op('rcv') }), L('收货成功', 'Received'))} />;
              if ((s === 1 || s === 2) && perms.has('review_add') && dec(dec(r.receivedQty, r.passedQty), r.failedQty) !== '0')
                return <QtyAction key="rev" label={L('复核合格', 'Pass')} caption={L('合格', 'Passed')} initial={dec(dec(r.receivedQty, r.passedQty), r.failedQty)} extra={{ label: L('不合格数量', 'Failed'), caption: L('不合格', 'Failed'), initial: '0', qty: true }}
                  onGo={(q, f) => act(() => post(`${W}/review/save`, { lineId: r.id, passedQty: q, failedQty: f || '0', opId: op('rev') }), L('复核已记录', 'Reviewed'))} />;
              if (s === 3 && perms.has('up_add') && dec(r.passedQty, r.putQty) !== '0') {
                const sg = suggest[r.id];
                return <QtyAction key="up" label={L('上架', 'Put away')} initial={dec(r.passedQty, r.putQty)} extra={{ label: L('储位', 'Bin'), initial: sg?.suggestSpaceCode ?? '' }}
                  onGo={async (q, binText) => {
                    const bin = await findBin(binText).catch(() => null);
                    if (!bin) { toast(L(`没有找到储位「${binText}」`, `No bin "${binText}"`), 'error'); return; }
                    await act(() => post(`${W}/up/save`, { lineId: r.id, spaceId: bin.id, qty: q, opId: op('up') }), L('上架成功', 'Put away'));
                  }} />;
              }
              return null;
            }],
          ]} />
        </div>
      </>);
    }}</Shell>
  );
}

export function OutboundDetail({ no }: { no: string }) {
  const { props, navigate } = useApp();
  const { L, st } = useL();
  const toast = useToast();
  const perms = useMemo(() => new Set(props.permissions), [props.permissions]);
  const { order: o, lines, err, load } = useOrder('ck', no);
  const [asking, ask] = useAsk();
  const [picks, setPicks] = useState<Row[]>([]);
  const loadPicks = useCallback(async () => {
    // The pick list is the keeper's (下架): one who only raised the order (a 项目经理's 领料单) follows its lines.
    if (!o || ![1, 2].includes(Number(o.orderStatus)) || !perms.has('down')) return setPicks([]);
    try { setPicks((await get(`${W}/down/goods_list`, { orderId: o.id, size: 500 }))?.records ?? []); } catch { setPicks([]); }
  }, [o, perms]);
  useEffect(() => { void loadPicks(); }, [loadPicks]);
  const act = async (f: () => Promise<unknown>, done: string) => {
    try { await f(); toast(done); await load(); } catch (e) { toast(e instanceof ApiError ? e.message : String(e), 'error'); }
  };
  const scanRef = useRef<HTMLInputElement>(null);
  return (
    <Shell label={L('出库单', 'Outbound order')} order={o} err={err} no={no}>{() => {
      const s = Number(o!.orderStatus);
      const op = (k: string) => `${k}-${o!.id}-${Date.now()}`;
      const canEdit = perms.has('order_ck_edit');
      // Picking, closing short and shipping are the depot's (下架): one who raised the order follows it.
      const picker = perms.has('down_add');
      const confirmed = async (text: string, f: () => Promise<unknown>, done: string) => {
        if ((await ask({ text })) !== null) await act(f, done);
      };
      return (<>
        {asking}
        <div className="card">
          <div className="card-head">
            <h2>{L('出库单', 'Outbound order')} {o!.orderNo} <span className="tag">{st(CK_STATUS, s)}</span></h2>
            <span className="no-print">
              {s === 0 && canEdit && <button type="button" className="btn btn-primary" onClick={() => act(() => post(`${W}/order/ck/release`, { id: o!.id }), L('已释放,库存已预留', 'Released; stock reserved'))}>{L('释放(预留库存)', 'Release (reserve)')}</button>}
              {[1, 2].includes(s) && canEdit && picker && lines.some((l) => dec(dec(l.qty, l.pickedQty), l.shortQty ?? '0') !== '0') && lines.some((l) => l.pickedQty && l.pickedQty !== '0') && (
                <button type="button" className="btn" onClick={async () => {
                  const why = await ask({ text: L('储位上找不到的货不再等待：未拣的数量记为短拣，释放其预留，出库单按已拣的发货。此操作不能撤销。', 'What the bins do not hold is no longer awaited: the rest is recorded as short, its reservation released, and the order ships what was picked. This cannot be undone.'), reason: L('短拣原因', 'Reason') });
                  if (why) await act(() => post(`${W}/order/ck/close-short`, { id: o!.id, reason: why }), L('已短拣完成', 'Closed short'));
                }}>{L('短拣完成', 'Close short')}</button>)}
              {s === 3 && canEdit && picker && <button type="button" className="btn btn-primary" onClick={() => confirmed(L('确认发货后货物离开仓库，库存扣减，不能撤销。确定发货？', 'Once shipped, the goods leave the store and the stock is reduced; this cannot be undone. Ship?'), () => post(`${W}/order/ck/ship`, { id: o!.id }), L('已发货', 'Shipped'))}>{L('确认发货', 'Confirm shipment')}</button>}
              {s < 4 && canEdit && <button type="button" className="btn" onClick={() => confirmed(L('取消出库单会释放预留的库存、撤销拣货。确定取消？', 'Cancelling releases the reserved stock and reverses the picks. Cancel the order?'), () => post(`${W}/order/ck/cancel`, { id: o!.id }), L('已取消', 'Cancelled'))}>{L('取消出库单', 'Cancel order')}</button>}
              {[1, 2].includes(s) && picker && <a className="btn" href={`/print/pick/${o!.orderNo}`} onClick={(e) => { e.preventDefault(); navigate(`/print/pick/${o!.orderNo}`); }}>{L('打印拣货单', 'Print pick list')}</a>}
              <a className="btn" href={`/print/ck/${o!.orderNo}`} onClick={(e) => { e.preventDefault(); navigate(`/print/ck/${o!.orderNo}`); }}>{s === 4 ? L('打印送货单', 'Print delivery note') : L('打印出库单', 'Print outbound order')}</a>
            </span>
          </div>
          <Facts rows={[
            [L('仓库', 'Store'), o!.storeName], [L('出库类型', 'Type'), o!.orderTypeName], [L('领料项目', 'Project'), o!.projectName], [L('施工单', 'Construct'), o!.constructName],
            [L('收货人', 'Consignee'), o!.consignee], [L('出库数量', 'Quantity'), lines.length ? inUnits(lines, (l) => l.qty) : o!.totalQty],
            // What left (or waits to leave) after picking: less than asked when picked short (it said 102 when 96 left).
            ...(s >= 3 ? [[s === 4 ? L('实发数量', 'Shipped') : L('待发数量', 'To ship'), inUnits(lines, (l) => l.pickedQty)] as [string, string]] : []),
            [L('发货时间', 'Shipped'), o!.shipTime],
          ]} />
        </div>
        <div className="card">
          <h3>{L('出库明细', 'Lines')}</h3>
          {s === 0 && (perms.has('order_ck_add') || perms.has('order_ck_edit')) && <AddLine kind="ck" orderId={o!.id} onDone={load} />}
          <Table label={L('出库明细', 'Lines')} empty={L('暂无明细', 'No lines')} rows={lines} cols={[
            [L('商品', 'Goods'), (r) => goodsOf(r)], [L('单位', 'Unit'), (r) => r.goodsUnit || '—'], [L('指定批次', 'Batch'), (r) => r.batch || '—'],
            [L('出库数量', 'Quantity'), (r) => r.qty], [L('已预留', 'Reserved'), (r) => r.reservedQty], [L('已拣货', 'Picked'), (r) => r.pickedQty],
            [L('短拣', 'Short'), (r) => (r.shortQty && r.shortQty !== '0' ? <Short qty={r.shortQty} reason={r.shortReason} /> : '—')],
            ...(s === 0 && canEdit ? [[L('操作', 'Action'), (r: Row) => <RemoveLine kind="ck" line={r} ask={ask} act={act} />] as [string, (r: Row) => ReactNode]] : []),
          ]} />
        </div>
        {[1, 2].includes(s) && perms.has('down') && (
          <div className="card">
            <div className="card-head">
              <h3>{L('拣货单', 'Pick list')}</h3>
              <input ref={scanRef} className="no-print" aria-label={L('扫储位条码', 'Scan a bin')} placeholder={L('扫储位条码定位', 'Scan a bin to find it')}
                onKeyDown={(e) => { if (e.key === 'Enter') { const v = (e.target as HTMLInputElement).value.trim(); document.querySelector(`[data-bin="${CSS.escape(v)}"]`)?.scrollIntoView(); (e.target as HTMLInputElement).value = ''; } }} />
            </div>
            <Table label={L('拣货单', 'Pick list')} empty={L('没有待拣货的储位', 'Nothing left to pick')} rows={picks.map((p) => ({ ...p, id: p.stockId + ':' + p.lineId }))} cols={[
              [L('储位', 'Bin'), (r) => <span data-bin={String(r.locationName).split('/').pop()}>{r.locationName}</span>],
              [L('商品', 'Goods'), (r) => `${r.goodsCode} ${r.goodsName}`], [L('规格', 'Spec'), (r) => r.spec || '—'],
              [L('批次', 'Batch'), (r) => r.batch || '—'], [L('到期', 'Expires'), (r) => r.expireDate || '—'],
              [L('应拣', 'To pick'), (r) => `${r.qty} ${r.unit ?? ''}`],
              [L('操作', 'Action'), (r) => perms.has('down_add')
                ? <QtyAction label={L('拣货', 'Pick')} initial={r.qty} onGo={(q) => act(() => post(`${W}/down/save`, { lineId: r.lineId, stockId: r.stockId, qty: q, opId: op('pick') }).then(loadPicks), L('拣货成功', 'Picked'))} />
                : null],
            ]} />
          </div>
        )}
      </>);
    }}</Shell>
  );
}

export function StockCard({ goodsId }: { goodsId: string }) {
  const { L } = useL();
  const [data, setData] = useState<Row | null | undefined>(undefined);
  const [rows, setRows] = useState<Row[]>([]);
  const [err, setErr] = useState<string | null>(null);
  useEffect(() => {
    (async () => {
      try {
        const d = await get(`${W}/stockdata/card`, { goodsId, size: 200 });
        setData(d);
        const s = await get(`${W}/stockdata/list`, { goodsId, size: 200 });
        setRows((s?.records ?? []).filter((r: Row) => r.qty !== '0'));
      } catch (e) {
        if (e instanceof ApiError && e.code === 404) setData(null);
        else setErr(e instanceof ApiError ? e.message : String(e));
      }
    })();
  }, [goodsId]);
  useTagName(data?.goods && `${data.goods.goodsCode} ${data.goods.goodsName}`);
  if (err) return <section className="detail-page"><div className="form-err" role="alert">{err}</div></section>;
  if (data === undefined) return <section className="detail-page" aria-busy="true"><p className="muted">{L('加载中…', 'Loading…')}</p></section>;
  if (data === null) return <section className="detail-page"><p className="empty">{L('商品不存在或无权查看', 'No such goods, or not yours to see')}</p></section>;
  const g = data.goods;
  return (
    <section className="detail-page" aria-label={L('库存卡片', 'Stock card')}>
      <div className="card">
        <h2>{g.goodsCode} {g.goodsName} <span className="tag">{L('结存', 'On hand')} {g.stockQty} {g.unit}</span></h2>
        <Table label={L('分储位库存', 'Stock by location')} empty={L('没有库存', 'No stock')} rows={rows} cols={[
          [L('仓库', 'Store'), (r) => r.storeName], [L('库位', 'Location'), (r) => r.locationName], [L('批次', 'Batch'), (r) => r.batch || '—'],
          [L('在库', 'On hand'), (r) => r.qty], [L('预留', 'Reserved'), (r) => r.reserved],
          // Only what lies in a bin is picked: goods waiting for put-away, failed at review or picked are not (the
          // card showed rejected goods as 可用, and a pick of them was refused).
          [L('可用', 'Available'), (r) => (String(r.location ?? '').startsWith('bin:') ? r.available : <span className="muted" title={L('收货暂存、退货暂存和待发货的货不能出库', 'Goods waiting for put-away, failed at review or picked cannot be issued')}>{L('不可出库', 'not issuable')}</span>)],
          [L('入库日期', 'In since'), (r) => r.inDate], [L('到期', 'Expires'), (r) => r.expireDate || '—'],
        ]} />
      </div>
      <div className="card">
        <h3>{L('库存流水', 'Moves')} <span className="muted">{L(`共 ${data.total} 笔`, `${data.total} moves`)}</span></h3>
        <Table label={L('库存流水', 'Moves')} empty={L('暂无流水', 'No moves')} rows={data.records} cols={[
          [L('时间', 'Time'), (r) => r.createTime], [L('单据', 'Document'), (r) => `${r.docTypeName ?? r.docType} ${r.docNo}${r.remark ? ` · ${r.remark}` : ''}`],
          [L('来源', 'From'), (r) => r.fromName], [L('去向', 'To'), (r) => r.toName], [L('批次', 'Batch'), (r) => r.batch || '—'],
          [L('数量', 'Quantity'), (r) => signed(r)], [L('结存', 'Balance'), (r) => r.goodsAfter], [L('经办人', 'By'), (r) => r.createUserName || '—'],
        ]} />
      </div>
    </section>
  );
}

/** A move's quantity as it changes the goods' balance: + into the stores (from a supplier, a count's gain), − out
 * of them (to a customer or project, a count's loss); a move between two places in the stores has no sign. */
export function signed(m: { qty?: string; fromLoc?: string; toLoc?: string }): string {
  const inside = (l?: string) => /^(bin|recv|ret|disp):/.test(l ?? '');
  const q = m.qty ?? '';
  if (!inside(m.fromLoc) && inside(m.toLoc)) return `+${q}`;
  if (inside(m.fromLoc) && !inside(m.toLoc)) return `−${q}`;
  return q;
}

/** A short quantity with the reason the clerk gave, shown beside it (a long one cut, whole on hover). */
function Short({ qty, reason }: { qty: string; reason?: string }) {
  const why = String(reason ?? '').trim();
  return <span title={why || undefined}>{qty}{why && <span className="muted">({why.length > 24 ? `${why.slice(0, 24)}…` : why})</span>}</span>;
}
