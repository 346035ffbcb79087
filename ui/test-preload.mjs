// The unit tests run on the renderer the app ships with: React's names answered by Preact (preact.mjs).
import { plugin } from 'bun';
import { table } from './preact.mjs';

const modules = {};
for (const [name, file] of Object.entries(table)) modules[name] = await import('./node_modules/' + file);
plugin({
  name: 'preact',
  setup(b) {
    for (const [name, m] of Object.entries(modules)) b.module(name, () => ({ exports: { ...m }, loader: 'object' }));
  },
});
