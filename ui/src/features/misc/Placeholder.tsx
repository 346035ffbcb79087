// Pages the business issues will fill, and the frame page for external menu links.
import { useTranslation } from '../../i18n/react';
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

/** The origin of an absolute http(s) address, as the server computes it (`pages::origin_of`). */
export function originOf(url: string): string | null {
  const m = /^(https?):\/\/([^/?#]+)/i.exec(url.trim());
  if (!m || !/^[a-z0-9.\-:[\]_]+$/i.test(m[2])) return null;
  return `${m[1].toLowerCase()}://${m[2].toLowerCase()}`;
}

/** Whether the frame page may show `src`: an address whose origin the tenant configured (menus, launcher,
 * feedback and appraise sites), or one of its menus' same-site .html pages. */
export function frameAllowed(src: string, frames: string[]): boolean {
  const o = originOf(src);
  if (o) return frames.includes(o);
  return src.startsWith('/') && !src.startsWith('//') && !/[\u0000-\u001f\\]/.test(src) && frames.includes(src);
}

export function FramePage() {
  const props = useProps();
  const { t } = useTranslation();
  const src = new URLSearchParams(splitUrl(props.url)[1]).get('src') ?? '';
  if (!src) return <Placeholder title="menu.iframe" params={{}} />;
  if (!frameAllowed(src, props.site.frames ?? [])) {
    return (
      <section className="card" role="alert">
        <h2>{t('menu.iframe')}</h2>
        <p>{t('frame.notAllowed')}</p>
        <p className="muted">{src}</p>
      </section>
    );
  }
  // Sandboxed: the page runs its own scripts and forms in its own origin, and cannot steer this window.
  return <iframe className="frame" src={src} title={src} sandbox="allow-scripts allow-forms allow-same-origin allow-popups allow-downloads" referrerPolicy="no-referrer" />;
}
