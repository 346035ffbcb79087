// Bundles the UI (run as `npx bun build.mjs <outdir>`; works offline).
//   <outdir>/client/app-<hash>.js (+ app-<hash>.css)  hydrating browser bundle (the first page's code)
//   <outdir>/client/chunk-<hash>.js                     the screens' parts (src/parts.ts), fetched when needed
//   <outdir>/client/*.br, *.gz                          each of them compressed (brotli 11, gzip 9)
//   <outdir>/manifest.json                              { js, css, parts: { name: [files] } }
//   <outdir>/server.js                                  one classic script defining globalThis.render
import { mkdirSync, writeFileSync, rmSync, readdirSync, renameSync, readFileSync } from 'node:fs';
import { brotliCompressSync, gzipSync, constants as zlib } from 'node:zlib';
import { join, resolve } from 'node:path';
import { preactAliases } from './preact.mjs';

if (typeof Bun === 'undefined') {
  console.error('build.mjs needs bun: run `npx bun build.mjs <outdir>` inside ui/');
  process.exit(2);
}
const out = resolve(process.argv[2] || 'dist');
const here = import.meta.dir;
rmSync(join(out, 'client'), { recursive: true, force: true });
mkdirSync(join(out, 'client'), { recursive: true });

const define = { 'process.env.NODE_ENV': '"production"' };
// React's API, served by Preact (preact/compat): the same components, hooks and Radix parts in ~12 KB instead of
// react-dom's ~218 KB — most of what a low-end PC on a slow line waited for before the sign-in page answered
// (issue 57). The server renders with Preact too (preact-render-to-string), so hydration meets its own markup.
// `preact.mjs` holds the same table for the unit tests (bunfig.toml's preload).
const preact = { name: 'preact', setup(b) { preactAliases(b, here); } };
// The server renders every screen at once: src/parts.ts (screens fetched when needed) becomes parts.server.ts.
const serverParts = { name: 'server-parts', setup(b) { b.onResolve({ filter: /\/parts$/ }, (a) => (a.importer.includes('/src/') ? { path: join(here, 'src/parts.server.ts') } : undefined)); } };

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
  // Screens in parts (src/parts.ts): each dynamic import its own chunk, code two parts share in a chunk of its own.
  splitting: true,
  metafile: true,
  define,
  plugins: [preact],
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
// Each part's files: its chunk and the chunks it imports, the app's own file aside (the server names them in
// <link rel="modulepreload"> for the page it renders, so they come alongside the app instead of after it).
const outputs = client.metafile.outputs;
const base = (p) => p.replace(/^\.\//, '');
manifest.parts = {};
for (const [file, o] of Object.entries(outputs)) {
  const m = /(?:^|\/)src\/parts\/(\w+)\.ts$/.exec(o.entryPoint || '');
  if (!m) continue;
  const files = [];
  const walk = (f) => {
    const b = base(f);
    if (b === manifest.js || files.includes(b)) return;
    files.push(b);
    for (const i of outputs['./' + b]?.imports ?? outputs[b]?.imports ?? []) if (i.kind === 'import-statement') walk(i.path);
  };
  walk(file);
  manifest.parts[m[1]] = files;
}
writeFileSync(join(out, 'manifest.json'), JSON.stringify(manifest));
// Compressed once here, served as they are (app/pages.rs `asset`): brotli when the browser takes it, else gzip.
for (const f of readdirSync(join(out, 'client'))) {
  if (!/\.(js|css)$/.test(f)) continue;
  const bytes = readFileSync(join(out, 'client', f));
  writeFileSync(join(out, 'client', f + '.br'), brotliCompressSync(bytes, { params: { [zlib.BROTLI_PARAM_QUALITY]: 11, [zlib.BROTLI_PARAM_SIZE_HINT]: bytes.length } }));
  writeFileSync(join(out, 'client', f + '.gz'), gzipSync(bytes, { level: 9 }));
}

const server = await Bun.build({
  entrypoints: [join(here, 'src/entry-server.tsx')],
  target: 'browser', // QuickJS: no node built-ins; resolves react-dom/server to its browser build
  format: 'iife',
  minify: true,
  define,
  // The server never needs the stylesheet.
  plugins: [preact, serverParts, { name: 'no-css', setup(b) { b.onLoad({ filter: /\.css$/ }, () => ({ contents: '', loader: 'js' })); } }],
});
if (!server.success) fail('server', server);
writeFileSync(join(out, 'server.js'), await server.outputs[0].text());
console.log(`ui built into ${out}: ${manifest.js} ${manifest.css ?? ''} server.js`);
