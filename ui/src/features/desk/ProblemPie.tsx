// Pie of project completion problems (SPEC §2): the tenant's rectifications by category (visx Pie), with a
// legend; left out for a user who may not read rectifications, never filled with invented figures.
import { useEffect, useState } from 'react';
import { useTranslation } from '../../i18n/react';
import { get } from '../../lib/api';
import { useProps } from '../../app';
import { Group } from '@visx/group';
import { Pie } from '@visx/shape';

const SIZE = 220;

const COLORS = ['#409EFF', '#67C23A', '#E6A23C', '#F56C6C', '#909399', '#9B59B6', '#1ABC9C', '#34495E'];
type Slice = { key: string; label?: string; value: number; color: string };

export function ProblemPie() {
  const { t } = useTranslation();
  // The rectifications by category once fetched: undefined while loading, null when not readable here.
  const allowed = useProps().permissions.includes('building_rectification');
  const [real, setReal] = useState<Slice[] | null | undefined>(allowed ? undefined : null);
  useEffect(() => {
    if (!allowed) return;
    get('/api/blade-biz/statistic/desk')
      .then((d) => {
        if (d?.rectificationsAllowed === false) { setReal(null); return; }
        const rows = (d?.rectifications ?? []) as { key: number; name: string; count: number }[];
        setReal(rows.map((r, i) => ({ key: String(r.key), label: r.name, value: r.count, color: COLORS[i % COLORS.length] })));
      })
      .catch(() => setReal(null));
  }, [allowed]);
  if (real === null) return null;
  const data: Slice[] = real ?? [];
  const total = data.reduce((a, p) => a + p.value, 0) || 1;
  return (
    <section className="card desk-pie" aria-labelledby="desk-pie-h" aria-busy={real === undefined}>
      <h3 id="desk-pie-h">{t('desk.pieReal')}</h3>
      {real === undefined ? <p className="muted">{t('common.loading')}</p> : data.length === 0 ? <p className="muted">{t('desk.noRectifications')}</p> : null}
      {data.length > 0 && <div className="desk-pie-body">
        <svg width={SIZE} height={SIZE} viewBox={`0 0 ${SIZE} ${SIZE}`} role="img" aria-label={t('desk.pie')}>
          <Group top={SIZE / 2} left={SIZE / 2}>
            <Pie data={data} pieValue={(d) => d.value} outerRadius={SIZE / 2 - 4} innerRadius={SIZE / 4} padAngle={0.01} pieSort={null}>
              {(pie) => pie.arcs.map((a) => <path key={a.data.key} d={pie.path(a) ?? ''} fill={a.data.color} />)}
            </Pie>
          </Group>
        </svg>
        <ul className="legend">
          {data.map((p) => (
            <li key={p.key}><span className="swatch" style={{ background: p.color }} aria-hidden="true" />{p.label ?? t(p.key)} <b>{Math.round((p.value / total) * 100)}%</b></li>
          ))}
        </ul>
      </div>}
    </section>
  );
}
