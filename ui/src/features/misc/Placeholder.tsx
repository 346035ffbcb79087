// Pages the business issues will fill, and the frame page for external menu links.
import { useTranslation } from 'react-i18next';
import { useProps, splitUrl } from '../../app';

export function Placeholder({ title, params }: { title: string; params: Record<string, string> }) {
  const { t } = useTranslation();
  const entries = Object.entries(params);
  return (
    <section className="card">
      <h2>{t(title)}</h2>
      <p className="muted">{t('page.placeholder')}</p>
      {entries.length > 0 && <dl className="params">{entries.map(([k, v]) => <div key={k}><dt>{k}</dt><dd>{v}</dd></div>)}</dl>}
    </section>
  );
}

export function FramePage() {
  const props = useProps();
  const src = new URLSearchParams(splitUrl(props.url)[1]).get('src') ?? '';
  const ok = /^https?:\/\//i.test(src) || (src.startsWith('/') && !src.startsWith('//'));
  return ok ? <iframe className="frame" src={src} title={src} /> : <Placeholder title="menu.iframe" params={{}} />;
}
