// Server entry: a classic script for the embedded QuickJS runtime (ssr crate).
// globalThis.render(url, propsJson) -> HTML of the root element. When the page should not be
// served as is, the HTML starts with a directive comment the host strips and acts on:
//   <!--zz-redirect:/login?redirect=%2Fwel%2Findex-->   (answer 302 to that location; body empty)
//   <!--zz-status:404-->                                 (answer with that status; body follows)
// and a page whose screen is in a part (src/parts.ts) says which, for the page's modulepreload links:
//   <!--zz-parts:layout,desk-->                          (after any status directive)
import './server/polyfills';
import { renderToString } from 'react-dom/server';
import { App, splitUrl } from './app';
import { matchRoute, partsOf } from './routes';
import { guard } from './lib/guard';
import type { Props } from './types';
import { leanServerElements } from './server/vnodes';

leanServerElements();

function render(url: string, propsJson: string): string {
  const props = JSON.parse(propsJson) as Props;
  props.url = props.url || url;
  const [path, search] = splitUrl(props.url);
  const m = matchRoute(path, props);
  if (m.redirect) return `<!--zz-redirect:${m.redirect}-->`;
  // The lock flag lives in session storage, so the client applies that part of the guard.
  const g = guard({ path, query: new URLSearchParams(search), hasToken: !!props.user, locked: false, mustChange: !!props.user?.mustChangePassword, isPublic: !!m.route.public });
  if (g) return `<!--zz-redirect:${g.redirect}-->`;
  const html = renderToString(<App initial={props} />);
  const names = partsOf(path, props);
  const parts = names.length ? `<!--zz-parts:${names.join(',')}-->` : '';
  return (m.route.status ? `<!--zz-status:${m.route.status}-->` : '') + parts + html;
}

(globalThis as any).render = render;
