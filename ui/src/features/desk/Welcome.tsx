// My desktop (SPEC §2): application launcher (URLs from site.apps) and the fixed sample widgets.
import { useTranslation } from 'react-i18next';
import { useProps } from '../../app';

const pad = (n: number) => String(n).padStart(2, '0');
/** yyyy-MM-dd from props.now; UTC+8 (the product's home zone) without locale lookups. */
export function formatDate(ms: number) {
  const d = new Date(ms + 8 * 3600_000);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
}

const URGENT = ['项目A 材料验收', '项目B 进度延期预警', '合同C 待签署'];
const MESSAGES = ['系统将于周六 22:00 维护', '新版审批流程已上线'];

export function Welcome() {
  const { t } = useTranslation();
  const props = useProps();
  return (
    <div className="desk">
      <section className="card desk-hello">
        <h2>{t('desk.welcome', { name: props.user?.realName ?? '' })}</h2>
        <p className="muted">{t('desk.today', { date: formatDate(props.now) })}</p>
      </section>
      <section className="card" aria-labelledby="desk-apps">
        <h3 id="desk-apps">{t('desk.apps')}</h3>
        <ul className="launcher">
          {props.site.apps.map((a) => (
            <li key={a.name}><a href={a.url} target="_blank" rel="noopener noreferrer"><span className="app-icon" aria-hidden="true">{a.name.slice(0, 1)}</span>{a.name}</a></li>
          ))}
        </ul>
      </section>
      <div className="desk-grid">
        <section className="card" aria-labelledby="desk-urgent"><h3 id="desk-urgent">{t('desk.urgent')}</h3><ul>{URGENT.map((x) => <li key={x}>{x}</li>)}</ul></section>
        <section className="card" aria-labelledby="desk-msg"><h3 id="desk-msg">{t('desk.messages')}</h3><ul>{MESSAGES.map((x) => <li key={x}>{x}</li>)}</ul></section>
        <section className="card" aria-labelledby="desk-appr"><h3 id="desk-appr">{t('desk.approvals')}</h3><div className="big-number">12</div></section>
      </div>
    </div>
  );
}
