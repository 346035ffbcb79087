// Console (SPEC §2 /wel/dashboard): the launcher, approval counts, the project distribution map
// (from the engine; samples, marked, for a tenant without processes), the business figures and monthly output
// (statistics, for those who may read the ledgers) and the sample map and pie.
import { useTranslation } from '../../i18n/react';
import { useProps } from '../../app';
import { ChinaMap } from './ChinaMap';
import { ProblemPie } from './ProblemPie';
import { Approvals, Launcher, formatDate, useCounts } from './Welcome';
import { Business } from './Business';

export function Dashboard() {
  const { t } = useTranslation();
  const props = useProps();
  const today = formatDate(props.now);
  const counts = useCounts();
  return (
    <div className="desk">
      <section className="card">
        <h2>{t('desk.console')}</h2>
        <p className="muted">{props.tenant.name ? `${props.tenant.name} · ${today}` : today}</p>
      </section>
      <Launcher />
      <Approvals counts={counts} />
      <Business />
      <div className="desk-charts">
        <ChinaMap today={today} />
        <ProblemPie />
      </div>
    </div>
  );
}
