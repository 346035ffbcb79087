// First load on a low-end PC (issue 57 item 4), against the real binary: each page opened in a fresh
// browser context (empty cache) at 150 ms latency, 1.6 Mbit/s down, 750 kbit/s up and the CPU slowed 4×
// (Chromium's own emulation through CDP), the median of --runs loads:
//   - FCP: the first contentful paint;
//   - interactive: when React has hydrated the page (the app marks <html data-hydrated>; before it a click
//     does nothing), from the start of the navigation;
//   - JS: the compressed bytes of every script the page loaded (transfer sizes), and how many.
// Pages: the sign-in page (signed out), the desk and a list screen (signed in by the session cookie), and
// beside them, in the same run and settings, a hello-world page (the same server's /api/health as a
// document): the floor that latency and emulation alone put under every figure.
//
//   node bench/first-load.mjs --bin <zhizhuang> [--work /tmp/zzfirst] [--runs 5] [--port 18097]
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';

const args = Object.fromEntries(process.argv.slice(2).reduce((a, v, i, all) => (v.startsWith('--') ? a.concat([[v.slice(2), all[i + 1]]]) : a), []));
const BIN = args.bin;
if (!BIN) { console.error('usage: node bench/first-load.mjs --bin <zhizhuang> [--work DIR] [--runs 5] [--port 18097]'); process.exit(2); }
const WORK = args.work || '/tmp/zzfirst';
const RUNS = Number(args.runs || 5);
const PORT = Number(args.port || 18097);
const PW = 'Bench#2026';
const TENANT = '157270';
const require = createRequire(new URL('../ui/package.json', import.meta.url));
const { chromium } = require('playwright-core');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const median = (v) => { const s = [...v].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };

rmSync(WORK, { recursive: true, force: true });
mkdirSync(WORK, { recursive: true });
const server = spawn(BIN, ['serve', '--http', `127.0.0.1:${PORT}`, '--dir', `${WORK}/data`, '--demo'], { env: { ...process.env, ZZ_LOG: 'warn', ZZ_ADMIN_PASSWORD: PW }, stdio: 'ignore' });
const base = `http://127.0.0.1:${PORT}`;
try {
  for (let i = 0; ; i++) {
    try { if ((await fetch(`${base}/api/ready`)).status === 200) break; } catch { /* starting */ }
    if (i > 1200) throw new Error('server did not start');
    await sleep(250);
  }
  // The render pool loads after /api/ready: wait for a server-rendered sign-in page.
  for (let i = 0; i < 240; i++) { if ((await (await fetch(`${base}/login`)).text()).includes('type="password"')) break; await sleep(250); }
  const md5 = createHash('md5').update(PW).digest('hex');
  const q = new URLSearchParams({ tenantId: TENANT, username: 'admin', password: md5, grant_type: 'password', scope: 'all' });
  const tok = await (await fetch(`${base}/api/blade-auth/oauth/token?${q}`, { method: 'POST', headers: { Authorization: 'Basic c2FiZXI6c2FiZXJfc2VjcmV0', 'Tenant-Id': TENANT } })).json();
  if (!tok.access_token) throw new Error('sign-in failed: ' + JSON.stringify(tok));

  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'] });
  async function load(path, signedIn, hydrates = true) {
    const ctx = await browser.newContext({ viewport: { width: 1366, height: 768 } });
    if (signedIn) {
      await ctx.addCookies([{ name: 'zz-token', value: tok.access_token, domain: '127.0.0.1', path: '/', httpOnly: true, sameSite: 'Strict' }]);
      await ctx.addInitScript((a) => localStorage.setItem('saber-token', JSON.stringify({ dataType: 'string', content: a, datetime: Date.now() })), tok.access_token);
    }
    // When React has hydrated: the app sets <html data-hydrated="1">; an observer notes the time it happens.
    await ctx.addInitScript(() => {
      new MutationObserver((_, o) => {
        if (document.documentElement.dataset.hydrated === '1') { window.__hydratedAt = performance.now(); o.disconnect(); }
      }).observe(document, { attributes: true, subtree: true, attributeFilter: ['data-hydrated'] });
    });
    const page = await ctx.newPage();
    const cdp = await ctx.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 150, downloadThroughput: 1.6e6 / 8, uploadThroughput: 750e3 / 8 });
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
    await page.goto(base + path, { waitUntil: 'load', timeout: 120000 });
    if (hydrates) await page.waitForFunction(() => document.documentElement.dataset.hydrated === '1', null, { timeout: 120000 });
    const m = await page.evaluate(async (hydrates) => {
      const fcp = await new Promise((resolve) => {
        const pick = (l) => l.find((e) => e.name === 'first-contentful-paint');
        const e = pick(performance.getEntriesByType('paint'));
        if (e) return resolve(e.startTime);
        new PerformanceObserver((l) => { const f = pick(l.getEntries()); if (f) resolve(f.startTime); }).observe({ type: 'paint', buffered: true });
        setTimeout(() => resolve(NaN), 30000);
      });
      const scripts = performance.getEntriesByType('resource').filter((r) => r.initiatorType === 'script' || r.initiatorType === 'link' && r.name.endsWith('.js') || r.name.endsWith('.js'));
      const js = scripts.reduce((s, r) => s + (r.transferSize || r.encodedBodySize || 0), 0);
      // When the last script had arrived (what is left after it is the CPU's: parse, run, hydrate).
      const jsEnd = scripts.reduce((m, r) => Math.max(m, r.responseEnd), 0);
      return { fcp, hydrated: hydrates ? window.__hydratedAt ?? NaN : NaN, js, n: scripts.length, jsEnd };
    }, hydrates);
    await ctx.close();
    return m;
  }
  const pages = [
    ['hello-world (/api/health)', '/api/health', false, false],
    ['sign-in page /login', '/login', false, true],
    ['desk /wel/index', '/wel/index', true, true],
    ['list /system/param', '/system/param', true, true],
    ['list /wms/stockdata', '/wms/stockdata', true, true],
  ];
  console.log(`first load at 150 ms RTT, 1.6 Mbit/s, CPU 4x, empty cache; median of ${RUNS} (ms, JS compressed KB)`);
  for (const [label, path, signedIn, hydrates] of pages) {
    const runs = [];
    for (let i = 0; i < RUNS; i++) runs.push(await load(path, signedIn, hydrates));
    const f = (k) => median(runs.map((r) => r[k]));
    console.log(`${label.padEnd(28)} FCP ${String(Math.round(f('fcp'))).padStart(5)}  interactive ${hydrates ? String(Math.round(f('hydrated'))).padStart(5) : '    -'}  JS ${(f('js') / 1024).toFixed(1).padStart(6)} KB in ${f('n')} files, all in by ${Math.round(f('jsEnd'))}`);
  }
  await browser.close();
} finally {
  server.kill('SIGTERM');
}
