// My desktop (SPEC §2): application launcher (BIM/ERP/BBC/PMS, URLs from site.apps, each a
// separate site in a new window) and the fixed sample widgets: urgent tasks, system messages,
// approval counts, project distribution map and the completion-problem pie.
import { useTranslation } from 'react-i18next';
import { useProps } from '../../app';
import { ChinaMap } from './ChinaMap';
import { ProblemPie } from './ProblemPie';
import { APPROVALS, MESSAGES, URGENT } from './sample';
import './desk.css';

const pad = (n: number) => String(n).padStart(2, '0');
/** yyyy-MM-dd from props.now; UTC+8 (the product's home zone) without locale lookups. */
export function formatDate(ms: number) {
  const d = new Date(ms + 8 * 3600_000);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
}

export function Launcher() {
  const { t } = useTranslation();
  const props = useProps();
  return (
    <section className="card" aria-labelledby="desk-apps">
      <h3 id="desk-apps">{t('desk.apps')}</h3>
      <ul className="launcher">
        {props.site.apps.map((a) => (
          <li key={a.name}><a href={a.url} target="_blank" rel="noopener noreferrer"><span className="app-icon" aria-hidden="true">{a.name.slice(0, 1)}</span>{a.name}</a></li>
        ))}
      </ul>
    </section>
  );
}

export function Approvals() {
  const { t } = useTranslation();
  return (
    <section className="card" aria-labelledby="desk-appr">
      <h3 id="desk-appr">{t('desk.approvals')}</h3>
      <dl className="desk-counts">
        {APPROVALS.map((a) => <div key={a.key}><dt>{t(a.key)}</dt><dd className="big-number">{a.n}</dd></div>)}
      </dl>
    </section>
  );
}

export function Welcome() {
  const { t } = useTranslation();
  const props = useProps();
  const today = formatDate(props.now);
  return (
    <div className="desk">
      <section className="card desk-hello">
        <h2>{t('desk.welcome', { name: props.user?.realName ?? '' })}</h2>
        <p className="muted">{t('desk.today', { date: today })}</p>
      </section>
      <Launcher />
      <div className="desk-grid">
        <section className="card" aria-labelledby="desk-urgent"><h3 id="desk-urgent">{t('desk.urgent')}</h3><ul>{URGENT.map((x) => <li key={x}>{t(x)}</li>)}</ul></section>
        <section className="card" aria-labelledby="desk-msg"><h3 id="desk-msg">{t('desk.messages')}</h3><ul>{MESSAGES.map((x) => <li key={x}>{t(x)}</li>)}</ul></section>
        <Approvals />
      </div>
      <div className="desk-charts">
        <ChinaMap today={today} />
        <ProblemPie />
      </div>
    </div>
  );
}
