// 库存盘点: a count sheet of one store's bins (a zone at a time when the store is large). The clerk writes what he
// counted beside the books; rows left blank are not counted. The sheet goes in one request and one transaction
// (`stockdata/count`): every difference to or from 盘点损溢 with the sheet's reason, or nothing.
import { useEffect, useMemo, useState } from 'react';
import { get, post, ApiError } from '../../lib/api';
import { useToast } from '../../components/ui/toast';
import { useL } from '../../lib/words';
import { Table } from '../../components/ui/record';
import { dec as sub } from './Orders';

type Row = Record<string, any>;
type Choice = { id: string; title: string };
const W = '/api/blade-api/wms';
/** Rows one sheet shows: the server takes at most 5,000; a zone at a time keeps a sheet to what one person counts. */
const PAGE = 1000;
const QTY = /^\d{1,12}(\.\d{1,4})?$/;

export function StockCount() {
  const { L } = useL();
  const toast = useToast();
  const [stores, setStores] = useState<Choice[]>([]);
  const [areas, setAreas] = useState<Choice[]>([]);
  const [store, setStore] = useState('');
  const [area, setArea] = useState('');
  const [rows, setRows] = useState<Row[] | undefined>(undefined);
  const [more, setMore] = useState(false);
  const [counted, setCounted] = useState<Record<string, string>>({});
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [err, setErr] = useState<string | null>(null);
  useEffect(() => {
    get<{ records: Choice[] }>('/api/blade-system/lookup', { resource: 'store', size: 100 })
      .then((p) => { setStores(p?.records ?? []); if (p?.records?.length === 1) setStore(p.records[0].id); }, (e) => setErr(e instanceof ApiError ? e.message : String(e)));
  }, []);
  useEffect(() => {
    setArea('');
    setAreas([]);
    if (!store) return;
    get<{ records: Choice[] }>('/api/blade-system/lookup', { resource: 'reservoirarea', storeId_equal: store, size: 100 }).then((p) => setAreas(p?.records ?? []), () => setAreas([]));
  }, [store]);
  const load = async () => {
    if (!store) return setRows(undefined);
    setRows(undefined);
    try {
      const q: Record<string, string | number> = { storeId: store, size: PAGE };
      if (area) q.areaId = area;
      const p = await get<{ records: Row[]; total: number }>(`${W}/stockdata/list`, q);
      // Bins only: goods waiting in 收货暂存 or 待发货 belong to open documents and are not counted.
      const bins = (p?.records ?? []).filter((r) => String(r.location ?? '').startsWith('bin:'))
        // In the order the clerk walks the racks: by bin, then goods.
        .sort((a, b) => String(a.locationName).localeCompare(String(b.locationName)) || String(a.goodsName).localeCompare(String(b.goodsName)));
      setRows(bins);
      setMore((p?.total ?? 0) > PAGE);
      setCounted({});
    } catch (e) {
      setErr(e instanceof ApiError ? e.message : String(e));
    }
  };
  useEffect(() => { void load(); }, [store, area]);
  const entered = useMemo(() => (rows ?? []).filter((r) => (counted[r.id] ?? '').trim() !== ''), [rows, counted]);
  const bad = entered.filter((r) => !QTY.test(counted[r.id].trim()));
  const differs = entered.filter((r) => QTY.test(counted[r.id].trim()) && sub(counted[r.id].trim(), r.qty) !== '0');
  const submit = async () => {
    if (entered.length === 0) return toast(L('请先填写实盘数量', 'Enter what you counted first'), 'warning');
    if (bad.length) return toast(L(`第 ${(rows ?? []).indexOf(bad[0]) + 1} 行的实盘数量不是有效数量`, `Row ${(rows ?? []).indexOf(bad[0]) + 1}: not a quantity`), 'warning');
    if (differs.length && !reason.trim()) return toast(L('盘点有差异,请填写差异原因', 'The count differs from the books: say why'), 'warning');
    setBusy(true);
    try {
      const r = await post<{ countNo: string; rows: number; changed: number; gain: string; loss: string }>(`${W}/stockdata/count`, {
        storeId: store, reason: reason.trim(), rows: entered.map((x) => ({ id: x.id, countedQty: counted[x.id].trim(), bookQty: x.qty })),
      });
      toast(L(`盘点完成 ${r.countNo}:${r.rows} 行,差异 ${r.changed} 行(盘盈 ${r.gain},盘亏 ${r.loss})`, `Counted ${r.countNo}: ${r.rows} rows, ${r.changed} differ (gain ${r.gain}, loss ${r.loss})`));
      setReason('');
      await load();
    } catch (e) {
      toast(e instanceof ApiError ? e.message : String(e), 'error');
    } finally {
      setBusy(false);
    }
  };
  return (
    <section className="detail-page" aria-label={L('库存盘点', 'Stock count')}>
      <div className="card">
        <h2>{L('库存盘点', 'Stock count')}</h2>
        <p className="muted">{L('逐行填写储位上实际清点的数量,未填写的行不参与本次盘点;提交后差异一次性计入盘点损溢,并记入库存流水。', 'Write what you counted on each bin; rows left blank are not counted. On submit every difference is posted to count gains and losses at once, and shows on the stock card.')}</p>
        {err && <div className="form-err" role="alert">{err}</div>}
        <div className="scan-row">
          <label>{L('仓库', 'Store')} <select aria-label={L('仓库', 'Store')} value={store} onChange={(e) => setStore(e.target.value)}>
            <option value="">{L('请选择', 'Choose')}</option>
            {stores.map((s) => <option key={s.id} value={s.id}>{s.title}</option>)}
          </select></label>
          <label>{L('库区', 'Zone')} <select aria-label={L('库区', 'Zone')} value={area} disabled={!store} onChange={(e) => setArea(e.target.value)}>
            <option value="">{L('全部库区', 'All zones')}</option>
            {areas.map((a) => <option key={a.id} value={a.id}>{a.title}</option>)}
          </select></label>
        </div>
      </div>
      {store && (
        <div className="card">
          {rows === undefined ? <p className="muted">{L('加载中…', 'Loading…')}</p> : (<>
            {more && <p className="form-warn" role="note">{L(`本仓库超过 ${PAGE} 行,只列出前 ${PAGE} 行;请按库区分开盘点`, `More than ${PAGE} rows: only the first ${PAGE} are listed; count one zone at a time`)}</p>}
            <Table label={L('盘点明细', 'Count sheet')} empty={L('没有储位库存', 'No stock in bins')} rows={rows} cols={[
              [L('库位', 'Bin'), (r) => r.locationName], [L('商品', 'Goods'), (r) => r.goodsName], [L('批次', 'Batch'), (r) => r.batch || '—'],
              [L('账面数量', 'Books'), (r) => r.qty], [L('预留', 'Reserved'), (r) => r.reserved],
              [L('实盘数量', 'Counted'), (r) => <input aria-label={L(`实盘数量 ${r.locationName} ${r.goodsName}`, `Counted ${r.locationName} ${r.goodsName}`)} inputMode="decimal" size={8}
                value={counted[r.id] ?? ''} onChange={(e) => setCounted({ ...counted, [r.id]: e.target.value })} />],
              [L('差异', 'Difference'), (r) => {
                const c = (counted[r.id] ?? '').trim();
                if (!c) return '';
                if (!QTY.test(c)) return <span className="overdue">{L('无效', 'invalid')}</span>;
                const d = sub(c, r.qty);
                return d === '0' ? '0' : d.startsWith('-') ? <span className="overdue">{d}</span> : `+${d}`;
              }],
            ]} />
            <div className="scan-row">
              <label className="wide">{L('差异原因', 'Why it differs')} <input aria-label={L('差异原因', 'Why it differs')} maxLength={200} value={reason} placeholder={L('有差异时必填,如:月末盘点,A区破损2张', 'Required when a count differs')} onChange={(e) => setReason(e.target.value)} /></label>
              <span className="muted">{L(`已填写 ${entered.length} 行,差异 ${differs.length} 行`, `${entered.length} counted, ${differs.length} differ`)}</span>
              <button type="button" className="btn btn-primary" disabled={busy} onClick={() => void submit()}>{L('提交盘点', 'Submit the count')}</button>
            </div>
          </>)}
        </div>
      )}
    </section>
  );
}
