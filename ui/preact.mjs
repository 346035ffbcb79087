// React's module names, answered by Preact's compatibility layer (see build.mjs). Used by the build and, through
// bunfig.toml's preload, by the unit tests, so both run the renderer the browser and the server run.
import { join } from 'node:path';

export const table = {
  react: 'preact/compat/dist/compat.mjs',
  'react-dom': 'preact/compat/dist/compat.mjs',
  'react-dom/client': 'preact/compat/client.mjs',
  'react-dom/server': 'preact/compat/server.browser.mjs',
  'react/jsx-runtime': 'preact/compat/jsx-runtime.mjs',
  'react/jsx-dev-runtime': 'preact/compat/jsx-dev-runtime.mjs',
  scheduler: 'preact/compat/scheduler.mjs',
};

/** Registers the aliases on a Bun plugin builder; `root` is ui/. */
export function preactAliases(b, root) {
  const names = Object.keys(table).map((k) => k.replace(/[/-]/g, (c) => '\\' + c)).join('|');
  b.onResolve({ filter: new RegExp(`^(${names})$`) }, (a) => ({ path: join(root, 'node_modules', table[a.path]) }));
}
