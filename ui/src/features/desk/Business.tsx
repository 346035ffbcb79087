// The console's business figures (经营概况, from /api/blade-biz/statistic): projects by status, contract value,
// received and outstanding from the contract ledgers, and this year's monthly output value (invoiced) against
// its targets as bars. Shown to those who may read the ledgers; fetched after hydration.
import { useEffect, useState } from 'react';
import { useApp } from '../../app';
import { get, post } from '../../lib/api';
import { useL, yuan } from '../../lib/words';

type Row = Record<string, any>;
const S = '/api/blade-biz/statistic';
const STATUS: Record<string, [string, string]> = { 1: ['筹备中', 'Preparing'], 2: ['进行中', 'In progress'], 3: ['已竣工', 'Completed'], 4: ['已关闭', 'Closed'] };
const fen = (v: unknown) => Math.round(Number(v ?? 0) * 100);

function MonthBars({ months, label }: { months: Row[]; label: string }) {
  const { L } = useL();
  const width = 640, height = 200, left = 8, bottom = 22, top = 8;
  const max = Math.max(1, ...months.flatMap((m) => [fen(m.target), fen(m.actual)]));
  const band = (width - left * 2) / 12;
  const y = (v: number) => height - bottom - (v / max) * (height - bottom - top);
  return (
    <svg width="100%" viewBox={`0 0 ${width} ${height}`} role="img" aria-label={label}>
      {months.map((m, i) => {
        const x = left + i * band;
        const [t, a] = [fen(m.target), fen(m.actual)];
        return (
          <g key={m.month}>
            <rect x={x + band * 0.12} y={y(t)} width={band * 0.36} height={height - bottom - y(t)} fill="#b3d8ff"><title>{`${m.month} ${L('目标', 'target')} ${yuan(m.target)}`}</title></rect>
            <rect x={x + band * 0.5} y={y(a)} width={band * 0.36} height={height - bottom - y(a)} fill={a >= t && t > 0 ? '#67c23a' : '#409eff'}><title>{`${m.month} ${L('实际', 'actual')} ${yuan(m.actual)}`}</title></rect>
            <text x={x + band / 2} y={height - 6} textAnchor="middle" fontSize={11} fill="#909399">{Number(m.month.slice(5))}{L('月', '')}</text>
          </g>
        );
      })}
    </svg>
  );
}

export function Business() {
  const { props } = useApp();
  const { L, st } = useL();
  const [info, setInfo] = useState<Row | null>(null);
  const [year, setYear] = useState<Row | null>(null);
  const allowed = props.permissions.includes('contract_ledger');
  useEffect(() => {
    if (!allowed) return;
    get(`${S}/companyinfo`).then(setInfo).catch(() => setInfo(null));
    post(`${S}/monthcarryovertarget`, {}).then(setYear).catch(() => setYear(null));
  }, [allowed]);
  if (!allowed || !info) return null;
  const months: Row[] = year?.months ?? [];
  const last = months.filter((m) => fen(m.actual) > 0 || fen(m.target) > 0).pop();
  return (
    <section className="card desk-business" aria-labelledby="desk-biz-h">
      <h3 id="desk-biz-h">{L('经营概况', 'Business')}</h3>
      <dl className="facts">
        <div><dt>{L('项目', 'Projects')}</dt><dd>{info.projectCount} <span className="muted small">{(info.projectsByStatus ?? []).map((x: Row) => `${st(STATUS, x.key)} ${x.count}`).join(' · ')}</span></dd></div>
        <div><dt title={L('已签订、执行中、已完成合同的金额(含已批准的变更);已终止合同按已收款计;草稿不计', 'Signed, executing and completed contracts with approved changes; terminated ones at what was received; drafts not counted')}>{L('合同总额', 'Contract value')}</dt><dd><b>{yuan(info.contractValue)}</b></dd></div>
        <div><dt>{L('已收款', 'Received')}</dt><dd>{yuan(info.received)}</dd></div>
        <div><dt>{L('未收款', 'Outstanding')}</dt><dd>{yuan(info.outstanding)}</dd></div>
        {last && <div><dt title={L('本年开票金额(冲销后)', 'Invoiced this year, net of reversals')}>{L('累计产值(开票)', 'Output to date (invoiced)')}</dt><dd>{yuan(last.actualToDate)} / {yuan(last.targetToDate)}</dd></div>}
      </dl>
      {months.length > 0 && (
        <>
          <p className="muted small">{L(`${year?.year} 年月度产值(开票)与目标:浅色为目标,深色为实际,绿色为达成`, `${year?.year} monthly output (invoiced) against target: light target, solid actual, green reached`)}</p>
          <MonthBars months={months} label={L('月度产值与目标', 'Monthly output against target')} />
        </>
      )}
    </section>
  );
}
