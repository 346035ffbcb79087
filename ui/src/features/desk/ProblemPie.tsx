// Pie of project completion problems (SPEC §2), visx Pie over fixed sample data, with a legend.
import { useTranslation } from 'react-i18next';
import { Group } from '@visx/group';
import { Pie } from '@visx/shape';
import { PROBLEMS } from './sample';

const SIZE = 220;

export function ProblemPie() {
  const { t } = useTranslation();
  const total = PROBLEMS.reduce((a, p) => a + p.value, 0);
  return (
    <section className="card desk-pie" aria-labelledby="desk-pie-h">
      <h3 id="desk-pie-h">{t('desk.pie')}</h3>
      <div className="desk-pie-body">
        <svg width={SIZE} height={SIZE} viewBox={`0 0 ${SIZE} ${SIZE}`} role="img" aria-label={t('desk.pie')}>
          <Group top={SIZE / 2} left={SIZE / 2}>
            <Pie data={PROBLEMS as unknown as { key: string; value: number; color: string }[]} pieValue={(d) => d.value} outerRadius={SIZE / 2 - 4} innerRadius={SIZE / 4} padAngle={0.01} pieSort={null}>
              {(pie) => pie.arcs.map((a) => <path key={a.data.key} d={pie.path(a) ?? ''} fill={a.data.color} />)}
            </Pie>
          </Group>
        </svg>
        <ul className="legend">
          {PROBLEMS.map((p) => (
            <li key={p.key}><span className="swatch" style={{ background: p.color }} aria-hidden="true" />{t(p.key)} <b>{Math.round((p.value / total) * 100)}%</b></li>
          ))}
        </ul>
      </div>
    </section>
  );
}
