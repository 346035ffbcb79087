// 项目成本 /bim/projectcost/detail/{projectId}: revenue from the contract ledgers, budget against actual per cost
// category as a bar chart (visx) and a table, the gross profit rate, and the warehouse moves that make the
// material cost. Data from /api/blade-biz/bim/projectcost (getInformationDetails, getCostComparison,
// getMaterialDetailList).
import { useEffect, useState } from 'react';
import { Group } from '@visx/group';
import { Bar } from '@visx/shape';
import { get, ApiError } from '../../lib/api';
import { useTagName } from '../../lib/tagname';
import { Pager } from '../../components/ui/pager';
import { Facts, Table } from '../../components/ui/record';
import { useL, yuan } from '../../lib/words';

type Row = Record<string, any>;
const C = '/api/blade-biz/bim/projectcost';
const fen = (v: unknown) => Math.round(Number(v ?? 0) * 100);

/** Budget (light) and actual (solid, red past the budget) per category. */
export function CostChart({ rows, label }: { rows: Row[]; label: string }) {
  const { L } = useL();
  const width = 640, height = 240, left = 70, bottom = 28, top = 10;
  // Hand-rolled scales (@visx/scale would bring all of d3-scale into both bundles): a band per category and a
  // linear axis rounded up to a 1-2-5 step.
  const raw = Math.max(1, ...rows.flatMap((r) => [fen(r.budget), fen(r.actual)]));
  const mag = 10 ** Math.floor(Math.log10(raw / 4));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s * 4 >= raw) ?? 10 * mag;
  const max = step * 4;
  const ticks = [0, 1, 2, 3, 4].map((i) => i * step);
  const y = (v: number) => height - bottom - (v / max) * (height - bottom - top);
  const band = (width - 10 - left) / Math.max(1, rows.length);
  const x = (k: string) => left + rows.findIndex((r) => String(r.costType) === k) * band + band * 0.15;
  const bw = (band * 0.7) / 2;
  return (
    <svg className="cost-chart" width="100%" viewBox={`0 0 ${width} ${height}`} role="img" aria-label={label}>
      {ticks.map((t) => (
        <g key={t}>
          <line x1={left} x2={width - 10} y1={y(t)} y2={y(t)} stroke="#ebeef5" />
          <text x={left - 6} y={y(t) + 4} textAnchor="end" fontSize={11} fill="#909399">{t >= 1_000_000 ? `${t / 1_000_000}万` : (t / 100).toLocaleString()}</text>
        </g>
      ))}
      {rows.map((r) => {
        const x0 = x(String(r.costType)) ?? 0;
        const [b, a] = [fen(r.budget), fen(r.actual)];
        return (
          <Group key={r.costType}>
            <Bar x={x0} y={y(b)} width={bw} height={y(0) - y(b)} fill="#b3d8ff"><title>{`${r.costTypeName} ${L('预算', 'budget')} ${yuan(r.budget)}`}</title></Bar>
            <Bar x={x0 + bw} y={y(a)} width={bw} height={y(0) - y(a)} fill={a > b ? '#f56c6c' : '#409eff'}><title>{`${r.costTypeName} ${L('实际', 'actual')} ${yuan(r.actual)}`}</title></Bar>
            <text x={x0 + bw} y={height - 10} textAnchor="middle" fontSize={12} fill="#606266">{L(r.costTypeName, r.costTypeNameEn)}</text>
          </Group>
        );
      })}
    </svg>
  );
}

export function CostPage({ projectId }: { projectId: string }) {
  const { L } = useL();
  const [info, setInfo] = useState<Row | null | undefined>(undefined);
  const [rows, setRows] = useState<Row[]>([]);
  const [moves, setMoves] = useState<Row | null>(null);
  const [page, setPage] = useState(1);
  const [err, setErr] = useState<string | null>(null);
  useEffect(() => {
    Promise.all([get(`${C}/getInformationDetails?projectId=${projectId}`), get(`${C}/getCostComparison?projectId=${projectId}`)])
      .then(([i, c]) => { setInfo(i); setRows(c ?? []); })
      .catch((e) => (e instanceof ApiError && e.code === 404 ? setInfo(null) : setErr(e instanceof ApiError ? e.message : String(e))));
  }, [projectId]);
  useEffect(() => {
    get(`${C}/getMaterialDetailList?projectId=${projectId}&current=${page}&size=10`).then(setMoves).catch(() => setMoves(null));
  }, [projectId, page]);
  useTagName(info?.projectName);
  if (err) return <section className="detail-page"><div className="form-err" role="alert">{err}</div></section>;
  if (info === undefined) return <section className="detail-page" aria-busy="true"><p className="muted">{L('加载中…', 'Loading…')}</p></section>;
  if (info === null) return <section className="detail-page"><p className="empty">{L('项目不存在或无权查看', 'The project does not exist or is not yours to see')}</p></section>;
  const rate = info.grossProfitRate;
  return (
    <section className="detail-page" aria-label={L('项目成本', 'Project cost')}>
      <div className="card">
        <h2>{info.projectName} <span className="tag">{info.projectCode}</span></h2>
        <Facts rows={[
          [L('合同收入', 'Revenue'), <b title={L('即项目的合同总额:已签订、执行中、已完成合同(含已批准的变更);已终止合同按已收款计;草稿不计', "The project's contract value: signed, executing and completed contracts with approved changes; terminated ones at what was received; drafts not counted")}>{yuan(info.revenue)}</b>], [L('已收款', 'Received'), yuan(info.received)],
          [L('成本预算', 'Budget'), yuan(info.budget)], [L('实际成本', 'Actual cost'), <b>{yuan(info.cost)}</b>],
          [L('其中材料', 'Materials'), yuan(info.material)], [L('其中人工(点工)', 'Labour (day work)'), yuan(info.labour)],
          [L('其中其他', 'Other'), yuan(info.other)], [L('预算结余', 'Budget left'), <span className={Number(info.budgetBalance) < 0 ? 'overdue' : ''}>{yuan(info.budgetBalance)}</span>],
          [L('毛利', 'Gross profit'), <b className={Number(info.grossProfit) < 0 ? 'overdue' : ''}>{yuan(info.grossProfit)}</b>],
          [L('毛利率', 'Gross margin'), rate == null ? '—' : <b className={Number(rate) < 0 ? 'overdue' : ''}>{rate}%</b>],
        ]} />
      </div>
      <div className="card">
        <h3>{L('预算与实际', 'Budget and actual')} <span className="muted small">{L('浅色为预算,深色为实际,红色为超支', 'light: budget, solid: actual, red: over budget')}</span></h3>
        <CostChart rows={rows} label={L('成本预算与实际对比图', 'Budget against actual')} />
        <Table label={L('成本对比', 'Cost comparison')} empty={L('暂无成本', 'No costs')} rows={rows.map((r) => ({ ...r, id: r.costType }))} cols={[
          [L('成本类别', 'Category'), (r) => L(r.costTypeName, r.costTypeNameEn)], [L('预算', 'Budget'), (r) => yuan(r.budget)], [L('实际', 'Actual'), (r) => yuan(r.actual)],
          [L('结余', 'Left'), (r) => <span className={Number(r.difference) < 0 ? 'overdue' : ''}>{yuan(r.difference)}</span>],
          [L('使用率', 'Used'), (r) => (r.usedPercent == null ? '—' : `${r.usedPercent}%`)],
          [L('实际来源', 'Actual from'), (r) => ({ warehouse: L('仓库领料 + 手工登记', 'warehouse issues + entered'), dayWork: L('点工 + 手工登记', 'day work + entered'), entered: L('手工登记', 'entered') } as Record<string, string>)[r.source]],
        ]} />
      </div>
      <div className="card">
        <h3>{L('材料明细', 'Materials')}</h3>
        <Table label={L('材料明细', 'Materials')} empty={Number(info.materialEntered) > 0
          ? L(`该项目还没有仓库领料;材料费 ${yuan(info.materialEntered)} 为手工登记`, `No materials issued from the warehouse; the material cost of ${yuan(info.materialEntered)} was entered by hand`)
          : L('该项目还没有领料', 'No materials issued to the project yet')} rows={moves?.records ?? []} cols={[
          [L('时间', 'When'), (r) => r.createTime], [L('单据', 'Document'), (r) => r.docNo], [L('商品', 'Goods'), (r) => `${r.goodsName ?? ''} ${r.spec ?? ''}`],
          [L('数量', 'Qty'), (r) => `${r.direction === 'return' ? '-' : ''}${r.qty} ${r.unit ?? ''}`],
          [L('金额', 'Value'), (r) => <span className={r.direction === 'return' ? 'muted' : ''}>{r.direction === 'return' ? '-' : ''}{yuan(r.amount)}</span>],
          [L('类型', 'Kind'), (r) => (r.direction === 'return' ? L('退料', 'Return') : L('领料', 'Issue'))],
        ]} />
        {moves && moves.total > 10 && <Pager total={moves.total} current={moves.current} pages={moves.pages} size={10} go={(o) => o.current && setPage(o.current)} />}
      </div>
    </section>
  );
}
