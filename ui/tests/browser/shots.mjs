// Screenshots of many screens against a demo server, for a person to look at (not a test).
//   cd ui && node tests/browser/shots.mjs <binary> <outdir> <path>...
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const [bin, out, ...paths] = process.argv.slice(2);
const PASSWORD = 'Admin#2026';
// PORT: use a server already running there (with ZZ_ADMIN_PASSWORD=Admin#2026) instead of starting one.
const port = Number(process.env.PORT) || 18000 + Math.floor(Math.random() * 1000);
const dir = mkdtempSync(join(tmpdir(), 'zz-shots-'));
const child = process.env.PORT ? null : spawn(bin, ['serve', '--dir', dir, '--http', `127.0.0.1:${port}`, '--demo'], { env: { ...process.env, ZZ_ADMIN_PASSWORD: PASSWORD }, stdio: 'ignore' });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
for (let i = 0; i < 200; i++) { try { if ((await fetch(`http://127.0.0.1:${port}/api/health`)).ok) break; } catch {} await sleep(150); }
const host = process.env.HOST || 'edu.localhost';
const tenantId = process.env.TENANT || '157270';
const user = process.env.ZZUSER || 'admin';
const md5 = (s) => createHash('md5').update(s).digest('hex');
const q = new URLSearchParams({ tenantId, username: user, password: md5(PASSWORD), grant_type: 'password', scope: 'all', type: 'account' });
const b = await (await fetch(`http://127.0.0.1:${port}/api/blade-auth/oauth/token?${q}`, { method: 'POST', headers: { Authorization: 'Basic c2FiZXI6c2FiZXJfc2VjcmV0', 'Tenant-Id': tenantId } })).json();
const item = (content) => JSON.stringify({ dataType: typeof content, content, datetime: Date.now() });
const exp = Math.floor(Date.now() / 1000);
const cookie = (name, value, secs, path = '/') => ({ name, value, domain: host, path, expires: exp + secs, httpOnly: true, secure: false, sameSite: 'Strict' });
const origin = `http://${host}:${port}`;
const state = { cookies: [cookie('zz-token', b.access_token, Number(b.expires_in)), cookie('zz-refresh', b.refresh_token, 7 * 86400, '/api/blade-auth/oauth/token')],
  origins: [{ origin, localStorage: [
    { name: 'saber-token', value: item(b.access_token) },
    { name: 'saber-token-meta', value: item({ expiresIn: Number(b.expires_in), issuedAt: Date.now(), tenantId: b.tenant_id }) },
    { name: 'saber-userInfo', value: item({ user_id: b.user_id, real_name: b.real_name, user_name: b.user_name, avatar: b.avatar, tenant_id: b.tenant_id, role_name: b.role_name, oauth_id: b.oauth_id }) }] }] };
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', `--host-resolver-rules=MAP *.localhost 127.0.0.1`] });
const ctx = await browser.newContext({ viewport: { width: 1366, height: 768 }, storageState: state, locale: process.env.LOCALE || 'zh-CN' });
mkdirSync(out, { recursive: true });
const page = await ctx.newPage();
if (process.env.PRINT === '1') await page.emulateMedia({ media: 'print' });
const errs = [];
page.on('pageerror', (e) => errs.push(String(e)));
page.on('console', (m) => { if (m.type() === 'error') errs.push(m.text()); });
// A path may be followed by `|text` to click a button or link with that text before the screenshot.
for (const arg of paths) {
  const [p, ...clicks] = arg.split('|');
  errs.length = 0;
  await page.goto(origin + p, { waitUntil: 'networkidle' }).catch((e) => console.log('goto', p, e.message));
  await sleep(600);
  for (const c of clicks) {
    await page.getByText(c, { exact: true }).first().click().catch((e) => console.log('click', c, e.message));
    await sleep(500);
  }
  const name = arg.replace(/[^a-zA-Z0-9]+/g, '_').replace(/^_/, '') || 'root';
  await page.screenshot({ path: join(out, name + '.png'), fullPage: process.env.FULL === '1' });
  console.log(p, errs.length ? 'ERR ' + errs.join(' | ').slice(0, 300) : 'ok');
}
await browser.close();
child?.kill('SIGTERM');
