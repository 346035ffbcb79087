// Client entry: hydrates #root from the same props the server rendered with.
import { hydrateRoot, createRoot } from 'react-dom/client';
import { App, splitUrl } from './app';
import { partsOf } from './routes';
import { ensure } from './parts';
// Small modules most parts share, in the first file: as chunks of their own each cost a request (150 ms apart on
// a slow line) for a few hundred bytes.
import './lib/markup';
import './components/ui/host';
import './components/ui/icons';
import './components/ui/record';
import './components/ui/pager';
import './lib/words';
import './features/crud/ImportDialog';
import './features/crud/useRemove';
import type { Props } from './types';
import { installErrorLog } from './lib/errorlog';
import './styles.css';
// The screens' own styles are in the one stylesheet the first page loads (their scripts come later: parts.ts).
import './features/desk/desk.css';
import './features/print/print.css';

const el = document.getElementById('__ZZ_PROPS__');
const props = JSON.parse(el?.textContent || '{}') as Props;
installErrorLog(props.site?.storagePrefix ?? 'saber');
const root = document.getElementById('root')!;
// The page's part first (the server named it for preloading), so hydration meets the tree the server rendered.
// The server falls back to an empty shell when its render fails: render on the client then.
const start = () => {
  if (root.firstElementChild) hydrateRoot(root, <App initial={props} />);
  else createRoot(root).render(<App initial={props} />);
};
ensure(partsOf(splitUrl(props.url || location.pathname)[0], props)).then(start, start);
