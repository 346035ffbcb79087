// The application root shared by the server and the client: props in, tree out. Everything
// that varies (time, locale, user, menus, page data) comes from props; browser-only state
// (tags, lock, theme) is read in effects after hydration.
import { createContext, useCallback, useContext, useEffect, useMemo, useState } from 'react';
import { I18nextProvider } from './i18n/react';
import { Router } from 'wouter';
import type { Props } from './types';
import { i18nFor, type Locale } from './i18n';
import { matchRoute, partsOf } from './routes';
import { ensure } from './parts';
import { ToastProvider } from './components/ui/toast';
import { store } from './lib/storage';

type AppCtx = {
  props: Props;
  /** Goes to an in-app URL: fetches its props from the server when it can, else loads it. */
  navigate: (href: string, opts?: { replace?: boolean }) => void;
  setLocale: (l: Locale) => void;
};
const Ctx = createContext<AppCtx | null>(null);
export const useApp = () => useContext(Ctx)!;
export const useProps = () => useContext(Ctx)!.props;

export function splitUrl(url: string): [string, string] {
  const i = url.indexOf('?');
  return i < 0 ? [url, ''] : [url.slice(0, i), url.slice(i + 1)];
}

/** Asks the server for a page's props (header X-ZZ-Props); null when it only serves HTML. */
async function fetchProps(href: string): Promise<Props | null> {
  try {
    const r = await fetch(href, { headers: { 'X-ZZ-Props': '1', Accept: 'application/json' }, credentials: 'same-origin' });
    if (!r.ok || !(r.headers.get('content-type') || '').includes('json')) return null;
    return (await r.json()) as Props;
  } catch {
    return null;
  }
}

export function App({ initial }: { initial: Props }) {
  const [props, setProps] = useState(initial);
  const [path, search] = splitUrl(props.url);
  const i18n = i18nFor(props.locale);

  const navigate = useCallback((href: string, opts: { replace?: boolean } = {}) => {
    if (typeof window === 'undefined') return;
    if (/^https?:\/\//.test(href)) { window.location.assign(href); return; }
    void fetchProps(href).then(async (p) => {
      if (!p) { window.location.assign(href); return; }
      // The new page's part before the switch (the old page stays until it is here).
      try { await ensure(partsOf(splitUrl(p.url)[0], p)); } catch { window.location.assign(href); return; }
      if (opts.replace) history.replaceState(null, '', p.url); else history.pushState(null, '', p.url);
      setProps(p);
      window.scrollTo(0, 0);
    });
  }, []);

  const setLocale = useCallback((l: Locale) => {
    store(props.site.storagePrefix).set('language', l);
    document.cookie = `zz-lang=${l}; path=/; max-age=31536000; SameSite=Lax`;
    document.documentElement.lang = l === 'zh' ? 'zh-CN' : 'en';
    setProps((p) => ({ ...p, locale: l }));
    // Strings that come from the server (menu names, resource labels) follow with fresh props.
    void fetchProps(location.pathname + location.search).then((p) => { if (p && p.locale === l) setProps(p); });
  }, [props.site.storagePrefix]);

  useEffect(() => {
    const onPop = () => navigate(location.pathname + location.search, { replace: true });
    window.addEventListener('popstate', onPop);
    return () => window.removeEventListener('popstate', onPop);
  }, [navigate]);

  useEffect(() => { document.title = props.site.title; }, [props.site.title]);
  // Marks the document once React owns it (browser tests wait for this before acting).
  useEffect(() => { document.documentElement.dataset.hydrated = '1'; }, []);

  const ctx = useMemo(() => ({ props, navigate, setLocale }), [props, navigate, setLocale]);
  return (
    <Ctx.Provider value={ctx}>
      <I18nextProvider i18n={i18n}>
        <ToastProvider>
          <Router ssrPath={path} ssrSearch={search}>
            <Page path={path} />
          </Router>
        </ToastProvider>
      </I18nextProvider>
    </Ctx.Provider>
  );
}
function Page({ path }: { path: string }) {
  const props = useProps();
  const m = matchRoute(path, props);
  return m.route.render(m.params);
}
