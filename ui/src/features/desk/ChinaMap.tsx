// Project distribution map (SPEC §2): province outlines drawn with visx, BU and period radios, a
// date picker, zoom, and the top-5 scatter. Outlines are precomputed SVG paths (geo/paths.ts,
// from geo/china-provinces.json by geo/gen.mjs): SSR in QuickJS does no projection work.
// Zoom: the spec's "default zoom 5" is read as a web-map zoom level where 5 shows the whole
// country; each level doubles the scale around the centre (level z -> scale 2^(z-5)), 3..8.
import { useEffect, useState } from 'react';
import { get } from '../../lib/api';
import { useProps } from '../../app';
import { useTranslation } from '../../i18n/react';
import { PROVINCES, VIEW } from './geo/paths';
import { BUS, PERIODS, top5Of6, type Bu, type Period } from './map';
import { Host } from '../../components/ui/host';

// Hand-rolled scales: @visx/scale brings all of d3-scale (~90 KB) into both bundles.
const LO = [0xe8, 0xf3, 0xff];
const HI = [0x1d, 0x6f, 0xd6];
/** Linear colour ramp LO..HI at t in [0, 1], as an integer rgb() string (same in every engine). */
const mix = (t: number) => `rgb(${LO.map((l, i) => Math.round(l + (HI[i] - l) * t)).join(',')})`;

export const DEFAULT_ZOOM = 5;
const MIN_ZOOM = 3;
const MAX_ZOOM = 8;
const [W, H] = VIEW;

/** The first day of the period that ends on `date` (yyyy-MM-dd): a year, a quarter or a month back. */
export function periodStart(date: string, period: Period): string {
  const [y, m, d] = date.split('-').map(Number);
  const months = period === 'year' ? 12 : period === 'quarter' ? 3 : 1;
  // The same day that many months back (the month's last day when it is shorter), then the day after it.
  const last = new Date(Date.UTC(y, m - months, 0)).getUTCDate();
  const start = new Date(Date.UTC(y, m - 1 - months, Math.min(d, last) + 1));
  return start.toISOString().slice(0, 10);
}

export function ChinaMap({ today }: { today: string }) {
  const { t } = useTranslation();
  const [bu, setBu] = useState<Bu>('all');
  const [period, setPeriod] = useState<Period>('year');
  const [date, setDate] = useState(today);
  const [zoom, setZoom] = useState(DEFAULT_ZOOM);
  // The projects the user may see, by province, once fetched (after hydration): undefined while loading, null
  // when the user may not read projects (the card is left out); with none located the map says so.
  const allowed = useProps().permissions.includes('project');
  const [real, setReal] = useState<{ byCode: Map<string, number>; located: number } | null | undefined>(allowed ? undefined : null);
  useEffect(() => {
    if (!allowed) return;
    get('/api/blade-biz/statistic/desk', { businessUnit: bu, since: periodStart(date, period) })
      .then((d) => setReal(d?.projectsAllowed === false ? null : { byCode: new Map((d?.provinces ?? []).map((p: { code: string; count: number }) => [p.code, p.count])), located: Number(d?.locatedProjects ?? 0) }))
      .catch(() => setReal(null));
  }, [bu, period, date, allowed]);
  if (real === null) return null;
  const rows = PROVINCES.map(([code, name, x, y]) => ({ code, name, x, y, value: real?.byCode.get(code) ?? 0 }));
  const byCode = new Map(rows.map((r) => [r.code, r.value]));
  const max = Math.max(1, ...rows.map((r) => r.value));
  const top = top5Of6(rows).filter((r) => r.value > 0);
  const fill = (v: number) => mix(v / max);
  const radius = (v: number) => 4 + 10 * Math.sqrt(v / max);
  const k = 2 ** (zoom - DEFAULT_ZOOM);
  const transform = `translate(${(W / 2) * (1 - k)},${(H / 2) * (1 - k)}) scale(${k})`;

  return (
    <section className="card desk-map" aria-labelledby="desk-map-h">
      <h3 id="desk-map-h">{t('desk.map')}</h3>
      {real === undefined ? <p className="muted small">{t('common.loading')}</p>
        : real.located === 0 ? <p className="muted small">{t('desk.noLocated')}</p> : null}
      <div className="desk-map-tools">
        <div role="radiogroup" aria-label={t('desk.bu')} className="seg">
          {BUS.map((b) => (
            <label key={b} className={b === bu ? 'on' : ''}>
              <input type="radio" name="desk-bu" value={b} checked={b === bu} onChange={() => setBu(b)} />
              {t(`desk.bu.${b}`)}
            </label>
          ))}
        </div>
        <div role="radiogroup" aria-label={t('desk.period')} className="seg">
          {PERIODS.map((p) => (
            <label key={p} className={p === period ? 'on' : ''}>
              <input type="radio" name="desk-period" value={p} checked={p === period} onChange={() => setPeriod(p)} />
              {t(`desk.period.${p}`)}
            </label>
          ))}
        </div>
        <input type="date" aria-label={t('desk.date')} value={date} onChange={(e) => setDate(e.target.value)} />
        <span className="desk-zoom">
          <button type="button" className="btn" aria-label={t('desk.zoomOut')} disabled={zoom <= MIN_ZOOM} onClick={() => setZoom(zoom - 1)}>−</button>
          <span aria-live="polite">{t('desk.zoom', { n: zoom })}</span>
          <button type="button" className="btn" aria-label={t('desk.zoomIn')} disabled={zoom >= MAX_ZOOM} onClick={() => setZoom(zoom + 1)}>+</button>
        </span>
      </div>
      <Host tag="svg" viewBox={`0 0 ${W} ${H}`} role="img" aria-label={t('desk.mapLabel', { date })} className="desk-map-svg">
        <g className="visx-group" transform={transform}>
          {PROVINCES.map(([code, name, , , d]) => (
            <path key={code} d={d} fill={fill(byCode.get(code) ?? 0)} stroke="#fff" strokeWidth={0.8 / k}>
              <title>{`${name} ${byCode.get(code) ?? 0}`}</title>
            </path>
          ))}
          {top.map((r, i) => (
            <g key={r.code} transform={`translate(${r.x},${r.y})`}>
              <circle r={radius(r.value) / k} fill="#F56C6C" fillOpacity={0.75} stroke="#fff" strokeWidth={1 / k} />
              <text y={-radius(r.value) / k - 3 / k} fontSize={15 / k} textAnchor="middle" fill="#303133">{`${i + 1}. ${r.name}`}</text>
            </g>
          ))}
        </g>
      </Host>
      <ol className="desk-top5" aria-label={t('desk.top5')}>
        {top.map((r) => <li key={r.code}>{r.name}<span>{t('desk.projects', { n: r.value })}</span></li>)}
      </ol>
    </section>
  );
}
