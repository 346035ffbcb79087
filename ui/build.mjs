// Bundles the UI (run as `npx bun build.mjs <outdir>`; works offline).
//   <outdir>/client/app-<hash>.js (+ app-<hash>.css)  hydrating browser bundle
//   <outdir>/manifest.json                              { js, css } names of the above
//   <outdir>/server.js                                  one classic script defining globalThis.render
import { mkdirSync, writeFileSync, rmSync, readdirSync, renameSync } from 'node:fs';
import { join, resolve } from 'node:path';

if (typeof Bun === 'undefined') {
  console.error('build.mjs needs bun: run `npx bun build.mjs <outdir>` inside ui/');
  process.exit(2);
}
const out = resolve(process.argv[2] || 'dist');
const here = import.meta.dir;
rmSync(join(out, 'client'), { recursive: true, force: true });
mkdirSync(join(out, 'client'), { recursive: true });

const define = { 'process.env.NODE_ENV': '"production"' };
// react-i18next -> src/i18n/react.ts, a memoising drop-in for the API the app uses (see there;
// it halves list-page SSR time in QuickJS). Tests under bun still get the real package.
const i18nAlias = { name: 'fast-i18n', setup(b) { b.onResolve({ filter: /^react-i18next$/ }, () => ({ path: join(here, 'src/i18n/react.ts') })); } };

function fail(what, res) {
  for (const m of res.logs) console.error(m);
  throw new Error(`${what} build failed`);
}

const client = await Bun.build({
  entrypoints: [join(here, 'src/entry-client.tsx')],
  outdir: join(out, 'client'),
  target: 'browser',
  format: 'esm',
  minify: true,
  define,
  plugins: [i18nAlias],
  naming: { entry: 'app-[hash].[ext]', asset: '[name]-[hash].[ext]', chunk: 'chunk-[hash].[ext]' },
});
if (!client.success) fail('client', client);
const manifest = { js: null, css: null };
for (const f of readdirSync(join(out, 'client'))) {
  if (/^app-.*\.js$/.test(f)) manifest.js = f;
  else if (/^app-.*\.css$/.test(f)) manifest.css = f;
  else if (/\.css$/.test(f) && !manifest.css) {
    // bun names the css after the entry; give it the app- prefix the manifest promises.
    const hashed = 'app-' + f;
    renameSync(join(out, 'client', f), join(out, 'client', hashed));
    manifest.css = hashed;
  }
}
writeFileSync(join(out, 'manifest.json'), JSON.stringify(manifest));

const server = await Bun.build({
  entrypoints: [join(here, 'src/entry-server.tsx')],
  target: 'browser', // QuickJS: no node built-ins; resolves react-dom/server to its browser build
  format: 'iife',
  minify: true,
  define,
  // The server never needs the stylesheet.
  plugins: [i18nAlias, { name: 'no-css', setup(b) { b.onLoad({ filter: /\.css$/ }, () => ({ contents: '', loader: 'js' })); } }],
});
if (!server.success) fail('server', server);
writeFileSync(join(out, 'server.js'), await server.outputs[0].text());
console.log(`ui built into ${out}: ${manifest.js} ${manifest.css ?? ''} server.js`);
