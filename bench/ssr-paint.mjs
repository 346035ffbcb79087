// UI benchmark in one run (issue 3 item 9): server-side render time, TTFB and first contentful
// paint, SSR against the same build with SSR switched off.
//
//   node bench/ssr-paint.mjs --bin <zhizhuang> [--work /tmp/zzpaint] [--n 400] [--conc 2,4] [--fcp-runs 5]
//
// Starts the binary twice on copies of one data directory: A (SSR on) and B (--no-ssr). Signs in
// to each, seeds 25 parameters, then:
//   1. latency of GET /wel/dashboard and GET /system/param?current=1&size=20 (20 rows), sequential
//      and at each concurrency: p50/p99 and pages/s. B serves the same URLs as the client shell,
//      so A minus B is the server-side render's share of the request;
//   2. TTFB (time to response headers) of those pages on an idle server;
//   3. FCP in headless Chromium (playwright-core from ui/node_modules, /usr/bin/chromium), CPU
//      throttled 4x (Emulation.setCPUThrottlingRate) and a slow network (400 ms latency,
//      400 kbit/s down, 200 kbit/s up; cache disabled), median of --fcp-runs cold loads each.
import { spawn, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, rmSync, cpSync, openSync } from 'node:fs';
import { createRequire } from 'node:module';
import { request } from 'node:http';

const args = Object.fromEntries(process.argv.slice(2).reduce((a, v, i, all) => (v.startsWith('--') ? a.concat([[v.slice(2), all[i + 1]]]) : a), []));
const BIN = args.bin;
if (!BIN) { console.error('usage: node bench/ssr-paint.mjs --bin <zhizhuang> [--work DIR] [--n N] [--conc 2,4] [--fcp-runs 5]'); process.exit(2); }
const WORK = args.work || '/tmp/zzpaint';
const N = Number(args.n || 400);
const CONC = String(args.conc || '2,4').split(',').map(Number);
const FCP_RUNS = Number(args['fcp-runs'] || 5);
const PW = 'Admin#2026';
const TENANT = '157270';
const PAGES = { dashboard: '/wel/dashboard', 'list(20)': '/system/param?current=1&size=20' };
const require = createRequire(new URL('../ui/package.json', import.meta.url));
const { chromium } = require('playwright-core');

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const pct = (v, p) => { const s = [...v].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor((s.length * p) / 100))]; };
const f1 = (x) => x.toFixed(1);

/** One HTTP/1.1 GET on a fresh keep-alive agent-less socket; resolves timings in ms. */
function get(port, path, cookie) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    let ttfb = 0, bytes = 0;
    const req = request({ host: '127.0.0.1', port, path, headers: { cookie, 'accept-language': 'zh-CN' }, agent: false }, (res) => {
      ttfb = performance.now() - t0;
      res.on('data', (c) => { bytes += c.length; });
      res.on('end', () => resolve({ status: res.statusCode, ttfb, total: performance.now() - t0, bytes }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function api(port, method, path, token, body) {
  const r = await fetch(`http://127.0.0.1:${port}${path}`, {
    method,
    headers: { Authorization: 'Basic c2FiZXI6c2FiZXJfc2VjcmV0', 'Tenant-Id': TENANT, ...(token ? { 'Blade-Auth': `bearer ${token}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const j = await r.json().catch(() => ({}));
  if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(j)}`);
  return j;
}

async function signIn(port) {
  const md5 = createHash('md5').update(PW).digest('hex');
  const j = await api(port, 'POST', `/api/blade-auth/oauth/token?tenantId=${TENANT}&username=admin&password=${md5}&grant_type=password&scope=all&type=account`);
  if (!j.access_token) throw new Error('sign-in failed: ' + JSON.stringify(j));
  return j.access_token;
}

function start(name, port, dir, extra) {
  const p = spawn(BIN, ['serve', '--dir', dir, '--http', `127.0.0.1:${port}`, '--demo', ...extra], {
    env: { ...process.env, ZZ_ADMIN_PASSWORD: PW },
    // Access logs go to a file beside the data: printing them would slow the servers down.
    stdio: ['ignore', openSync(`${WORK}/${name}.log`, 'a'), openSync(`${WORK}/${name}.log`, 'a')],
  });
  p.label = name;
  return p;
}
async function ready(port) {
  for (let i = 0; i < 300; i++) {
    try { const r = await fetch(`http://127.0.0.1:${port}/api/health`); if (r.ok) return; } catch {}
    await sleep(100);
  }
  throw new Error(`server on ${port} did not come up`);
}
async function stop(p) {
  if (p.exitCode !== null) return;
  p.kill('SIGTERM');
  for (let i = 0; i < 100 && p.exitCode === null; i++) await sleep(100);
  if (p.exitCode === null) p.kill('SIGKILL');
}

async function latency(port, cookie, path, conc) {
  for (let i = 0; i < 20; i++) await get(port, path, cookie); // warm both runtimes
  const times = [];
  let next = 0;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: conc }, async () => {
    while (next < N) {
      next++;
      const r = await get(port, path, cookie);
      if (r.status !== 200) throw new Error(`${path}: HTTP ${r.status}`);
      times.push(r.total);
    }
  }));
  const secs = (performance.now() - t0) / 1000;
  return { p50: pct(times, 50), p99: pct(times, 99), rps: times.length / secs };
}

async function ttfb(port, cookie, path) {
  const v = [];
  for (let i = 0; i < 50; i++) { v.push((await get(port, path, cookie)).ttfb); await sleep(5); }
  return { p50: pct(v, 50), p99: pct(v, 99) };
}

async function fcp(browser, port, token, path) {
  const v = [];
  for (let i = 0; i < FCP_RUNS; i++) {
    const ctx = await browser.newContext({ viewport: { width: 1366, height: 768 } });
    await ctx.addCookies([{ name: 'saber-access-token', value: token, domain: '127.0.0.1', path: '/' }]);
    const page = await ctx.newPage();
    const cdp = await ctx.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 400, downloadThroughput: (400 * 1024) / 8, uploadThroughput: (200 * 1024) / 8 });
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
    await page.goto(`http://127.0.0.1:${port}${path}`, { waitUntil: 'load', timeout: 120000 });
    // The client-only shell paints its first contentful frame after `load` (module scripts
    // run, then React renders), so wait for the entry; `first-paint` alone does not count.
    const t = await page.evaluate(() => new Promise((resolve) => {
      const pick = (l) => l.find((e) => e.name === 'first-contentful-paint');
      const e = pick(performance.getEntriesByType('paint'));
      if (e) return resolve(e.startTime);
      new PerformanceObserver((l) => { const f = pick(l.getEntries()); if (f) resolve(f.startTime); }).observe({ type: 'paint', buffered: true });
      setTimeout(() => resolve(NaN), 60000);
    }));
    v.push(t);
    await ctx.close();
  }
  return pct(v, 50);
}

const procs = [];
async function main() {
  rmSync(WORK, { recursive: true, force: true });
  mkdirSync(WORK, { recursive: true });
  const [PA, PB] = [18471, 18472];
  // Seed once, stop, copy: both servers then hold the same data.
  let a = start('seed', PA, `${WORK}/a`, []);
  procs.push(a);
  await ready(PA);
  const tok = await signIn(PA);
  for (let i = 0; i < 25; i++) {
    await api(PA, 'POST', '/api/blade-system/param/submit', tok, { paramName: `基准参数${i}`, paramKey: `bench.key.${i}`, paramValue: `value-${i}<b>&"`, remark: '' });
  }
  await stop(a);
  cpSync(`${WORK}/a`, `${WORK}/b`, { recursive: true });
  a = start('ssr', PA, `${WORK}/a`, []);
  const b = start('no-ssr', PB, `${WORK}/b`, ['--no-ssr']);
  procs.push(a, b);
  await Promise.all([ready(PA), ready(PB)]);
  const [ta, tb] = await Promise.all([signIn(PA), signIn(PB)]);
  const ca = `saber-access-token=${ta}`, cb = `saber-access-token=${tb}`;
  const sample = await get(PA, PAGES['list(20)'], ca);
  if (sample.status !== 200) throw new Error('list page: HTTP ' + sample.status);

  const cpu = execFileSync('nproc').toString().trim();
  console.log(`# UI bench: ${BIN}; ${cpu} cores; n=${N} per cell; pool = server default (one runtime per core)`);
  console.log('\n## Request latency through HTTP (ms): SSR server vs the same page served as the client shell (--no-ssr)');
  console.log('page        conc  ssr p50  ssr p99  ssr pages/s | shell p50  shell p99  shell pages/s | ssr-shell p50');
  for (const [name, path] of Object.entries(PAGES)) {
    for (const c of [1, ...CONC]) {
      const ra = await latency(PA, ca, path, c);
      const rb = await latency(PB, cb, path, c);
      console.log(`${name.padEnd(11)} ${String(c).padStart(4)}  ${f1(ra.p50).padStart(7)}  ${f1(ra.p99).padStart(7)}  ${f1(ra.rps).padStart(11)} | ${f1(rb.p50).padStart(9)}  ${f1(rb.p99).padStart(9)}  ${f1(rb.rps).padStart(13)} | ${f1(ra.p50 - rb.p50).padStart(13)}`);
    }
  }
  console.log('\n## TTFB on an idle server (ms, 50 sequential requests, p50 / p99)');
  for (const [name, path] of Object.entries(PAGES)) {
    const ra = await ttfb(PA, ca, path), rb = await ttfb(PB, cb, path);
    console.log(`${name.padEnd(11)} ssr ${f1(ra.p50)} / ${f1(ra.p99)}   shell ${f1(rb.p50)} / ${f1(rb.p99)}`);
  }
  console.log(`\n## First contentful paint, Chromium, CPU 4x slower, 400 ms RTT + 400 kbit/s down, cold cache (ms, median of ${FCP_RUNS})`);
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'] });
  try {
    for (const [name, path] of Object.entries(PAGES)) {
      const fa = await fcp(browser, PA, ta, path);
      const fb = await fcp(browser, PB, tb, path);
      console.log(`${name.padEnd(11)} ssr ${f1(fa)}   no-ssr ${f1(fb)}   ratio ${(fa / fb).toFixed(2)}`);
    }
  } finally {
    await browser.close();
  }
}

try {
  await main();
} catch (e) {
  console.error(e);
  process.exitCode = 1;
} finally {
  for (const p of procs) await stop(p);
}
