// Console (SPEC §2 /wel/dashboard): the launcher, approval counts, the project distribution map
// and the completion-problem pie, all fixed sample data.
import { useTranslation } from 'react-i18next';
import { useProps } from '../../app';
import { ChinaMap } from './ChinaMap';
import { ProblemPie } from './ProblemPie';
import { Approvals, Launcher, formatDate } from './Welcome';

export function Dashboard() {
  const { t } = useTranslation();
  const props = useProps();
  const today = formatDate(props.now);
  return (
    <div className="desk">
      <section className="card">
        <h2>{t('desk.console')}</h2>
        <p className="muted">{props.tenant.name ? `${props.tenant.name} · ${today}` : today}</p>
      </section>
      <Launcher />
      <Approvals />
      <div className="desk-charts">
        <ChinaMap today={today} />
        <ProblemPie />
      </div>
    </div>
  );
}
