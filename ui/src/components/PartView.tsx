// A screen from its part (../parts.ts). The page the server rendered and every in-app navigation fetch their
// part first, so this renders the screen at once; only a part that could not be fetched ahead shows 加载中
// while it comes, and says so with a way to reload if it cannot come (the network is gone, or the server was
// upgraded and the page names a part it no longer has).
import { useEffect, useState, type ReactNode } from 'react';
import { useTranslation } from '../i18n/react';
import { ensure, loaded, type PartName } from '../parts';

export function PartView({ part, view }: { part: PartName; view: (m: any) => ReactNode }) {
  const { i18n } = useTranslation();
  const mod = loaded(part);
  const [, setTick] = useState(0);
  const [failed, setFailed] = useState(false);
  const en = i18n.language === 'en';
  useEffect(() => {
    if (mod) return;
    let live = true;
    ensure([part]).then(() => live && setTick((n) => n + 1), () => live && setFailed(true));
    return () => { live = false; };
  }, [mod, part]);
  if (mod) return <>{view(mod)}</>;
  if (failed) {
    return (
      <section className="detail-page" role="alert">
        <p>{en ? 'This screen could not be loaded.' : '页面加载失败。'}</p>
        <button type="button" className="btn" onClick={() => window.location.reload()}>{en ? 'Reload' : '重新加载'}</button>
      </section>
    );
  }
  return <section className="detail-page" aria-busy="true"><p className="muted">{en ? 'Loading…' : '加载中…'}</p></section>;
}
