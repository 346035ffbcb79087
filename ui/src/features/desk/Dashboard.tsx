import { useTranslation } from 'react-i18next';
import { useProps } from '../../app';
import { formatDate } from './Welcome';

export function Dashboard() {
  const { t } = useTranslation();
  const props = useProps();
  return (
    <section className="card">
      <h2>{t('desk.console')}</h2>
      <p className="muted">{props.tenant.name} · {formatDate(props.now)}</p>
    </section>
  );
}
