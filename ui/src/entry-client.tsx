// Client entry: hydrates #root from the same props the server rendered with.
import { hydrateRoot, createRoot } from 'react-dom/client';
import { App } from './app';
import type { Props } from './types';
import { installErrorLog } from './lib/errorlog';
import './styles.css';

const el = document.getElementById('__ZZ_PROPS__');
const props = JSON.parse(el?.textContent || '{}') as Props;
installErrorLog(props.site?.storagePrefix ?? 'saber');
const root = document.getElementById('root')!;
// The server falls back to an empty shell when its render fails: render on the client then.
if (root.firstElementChild) hydrateRoot(root, <App initial={props} />);
else createRoot(root).render(<App initial={props} />);
