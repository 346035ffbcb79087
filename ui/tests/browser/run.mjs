// Browser tests against the real binary, in headless Chromium (issue 3 item 8).
//   cd ui && node tests/browser/run.mjs <path-to-zhizhuang-binary>
// Starts the binary on a free port with a fresh data dir and the demo tenants, runs every test
// in order (a failure never stops the next one), saves screenshots into ../tests/artifacts/ and
// ends with exactly one line `browser: N passed, M failed` (exit 1 when M > 0).
//
// Sign-in: the login page uses the captcha grant, whose answer is only in the image, so the
// tests get a token with the password grant from Node and put it where a sign-in leaves it (the
// server's HttpOnly cookies zz-token and zz-refresh; local storage saber-token, saber-token-meta and
// saber-userInfo). One test drives the real form up to the server's answer to a wrong captcha; one
// signs in through the token endpoint inside the page and checks that no script can read the cookies.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const HERE = dirname(fileURLToPath(import.meta.url));
const ARTIFACTS = resolve(HERE, '../../../tests/artifacts');
const PASSWORD = 'Admin#2026';
const BASIC = 'Basic c2FiZXI6c2FiZXJfc2VjcmV0';
const PREFIX = 'saber';
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const TENANTS = [
  { host: 'platform.localhost', id: '000000' },
  { host: 'edu.localhost', id: '157270' },
  { host: 'cloud.localhost', id: '741487' },
];
const EDU = TENANTS[1];
const VIEWPORT = { width: 1366, height: 768 };
/** A phone held upright (site managers on site). */
const PHONE = { width: 390, height: 844 };
const STEP_MS = 8000;

const md5 = (s) => createHash('md5').update(s).digest('hex');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------- server

function freePort() {
  return new Promise((res, rej) => {
    const s = createServer();
    s.once('error', rej);
    s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => res(port)); });
  });
}

async function startServer(bin) {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'zz-browser-'));
  const log = [];
  const child = spawn(bin, ['serve', '--dir', dir, '--http', `127.0.0.1:${port}`, '--demo'], {
    env: { ...process.env, ZZ_ADMIN_PASSWORD: PASSWORD },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const keep = (d) => { log.push(String(d)); if (log.length > 400) log.shift(); };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  let exited = null;
  child.on('exit', (code) => { exited = code; });
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (exited !== null) throw new Error(`server exited with ${exited}:\n${log.join('')}`);
    try {
      const r = await fetch(`http://127.0.0.1:${port}/api/health`);
      if (r.ok) break;
    } catch { /* not yet */ }
    if (Date.now() > deadline) { child.kill('SIGKILL'); throw new Error('server not healthy in 30 s:\n' + log.join('')); }
    await sleep(150);
  }
  return {
    port,
    log,
    stop: async () => {
      if (exited === null) {
        child.kill('SIGTERM');
        for (let i = 0; i < 50 && exited === null; i++) await sleep(100);
        if (exited === null) child.kill('SIGKILL');
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

// ---------------------------------------------------------------- helpers

let server;
let browser;
const origin = (host) => `http://${host}:${server.port}`;

/** The password grant from Node; the same body the login page receives. */
async function token(tenantId, username = 'admin') {
  const q = new URLSearchParams({ tenantId, username, password: md5(PASSWORD), grant_type: 'password', scope: 'all', type: 'account' });
  const r = await fetch(`http://127.0.0.1:${server.port}/api/blade-auth/oauth/token?${q}`, {
    method: 'POST', headers: { Authorization: BASIC, 'Tenant-Id': tenantId },
  });
  const b = await r.json();
  if (!b.access_token) throw new Error(`sign-in to ${tenantId} failed: ${JSON.stringify(b)}`);
  return b;
}

const item = (content) => JSON.stringify({ dataType: typeof content, content, datetime: Date.now() });

/** Browser state exactly as the token answer's cookies and lib/auth.ts keep() leave it after a sign-in. */
function signedInState(host, b) {
  const exp = Math.floor(Date.now() / 1000);
  const cookie = (name, value, secs, path = '/') => ({ name, value, domain: host, path, expires: exp + secs, httpOnly: true, secure: false, sameSite: 'Strict' });
  return {
    cookies: [
      cookie('zz-token', b.access_token, Number(b.expires_in)),
      cookie('zz-refresh', b.refresh_token, 7 * 86400, '/api/blade-auth/oauth/token'),
    ],
    origins: [{
      origin: origin(host),
      localStorage: [
        { name: `${PREFIX}-token`, value: item(b.access_token) },
        { name: `${PREFIX}-token-meta`, value: item({ expiresIn: Number(b.expires_in), issuedAt: Date.now(), tenantId: b.tenant_id }) },
        { name: `${PREFIX}-userInfo`, value: item({ user_id: b.user_id, real_name: b.real_name, user_name: b.user_name, avatar: b.avatar, tenant_id: b.tenant_id, role_name: b.role_name, oauth_id: b.oauth_id }) },
      ],
    }],
  };
}

/**
 * A fresh browser context whose every page is watched: console errors, page errors and React
 * hydration warnings are collected into `problems` (checked after each test). `allow` lists
 * expected console errors (e.g. the 400 of a refused sign-in).
 */
async function session(t, { host = EDU.host, signedIn = true, locale = 'zh-CN', user = 'admin', phone = false } = {}) {
  const opts = phone ? { viewport: PHONE, isMobile: true, hasTouch: true, deviceScaleFactor: 1, locale, baseURL: origin(host) } : { viewport: VIEWPORT, locale, baseURL: origin(host) };
  if (signedIn) {
    const tenant = TENANTS.find((x) => x.host === host);
    t.user = await token(tenant ? tenant.id : '000000', user);
    opts.storageState = signedInState(host, t.user);
  }
  const ctx = await browser.newContext(opts);
  ctx.setDefaultTimeout(STEP_MS);
  const watch = (page) => {
    page.on('console', (m) => {
      const text = m.text();
      const url = m.location()?.url || '';
      const hydration = /hydrat|did not match|Minified React error #(418|423|425)/i.test(text);
      if (m.type() !== 'error' && !hydration) return;
      if (!hydration && t.allow.some((re) => re.test(text + ' ' + url))) return;
      t.problems.push(`console ${m.type()} on ${page.url()}: ${text}${url ? ' @' + url : ''}`);
    });
    page.on('pageerror', (e) => t.problems.push(`page error on ${page.url()}: ${e.message}`));
  };
  ctx.on('page', watch);
  t.contexts.push(ctx);
  const page = await ctx.newPage();
  return { ctx, page };
}

class Fail extends Error {}
function check(cond, msg) { if (!cond) throw new Fail(msg); }

/** Loads a page and waits until React has hydrated it (the client bundle marks <html>). */
async function visit(page, path) {
  const r = await page.goto(path, { waitUntil: 'load' });
  await hydrated(page);
  return r;
}
async function hydrated(page) {
  await page.waitForFunction(() => document.documentElement.dataset.hydrated === '1', null, { timeout: STEP_MS });
}

async function shot(page, name) {
  await page.screenshot({ path: join(ARTIFACTS, name + '.png'), fullPage: false });
}

const pathOf = (page) => new URL(page.url()).pathname;
async function waitPath(page, path) {
  await page.waitForURL((u) => u.pathname === path, { timeout: STEP_MS });
}

const sidebar = (page) => page.getByRole('navigation', { name: /^(导航菜单|Navigation)$/ });
const tagbar = (page) => page.getByRole('navigation', { name: /^(标签操作|Tab actions)$/ });
/** A toast: its text exactly (Radix also announces it in a hidden live region). */
const toast = (page, text) => page.locator('.toast').getByText(text, { exact: true }).last();
const tagNames = async (page) => (await tagbar(page).getByRole('link').allInnerTexts()).map((s) => s.trim());
/** Checks the tag bar shows `names`, waiting (up to 5 s) for a tab that is closing to leave it. */
async function tagsAre(page, names, what) {
  const want = JSON.stringify(names);
  let got = '';
  for (let i = 0; i < 50 && (got = JSON.stringify(await tagNames(page))) !== want; i++) await page.waitForTimeout(100);
  check(got === want, `${what}: ${got}`);
}

/** Opens a menu entry from the sidebar the way a person does: expand its group, click it. */
async function openMenu(page, group, name, path) {
  const nav = sidebar(page);
  const link = nav.getByRole('link', { name, exact: true });
  if (!(await link.isVisible())) await nav.getByRole('button', { name: group }).click();
  await link.click();
  await waitPath(page, path);
  await tagbar(page).getByRole('link', { name, exact: true }).waitFor();
}

// ---------------------------------------------------------------- tests

const tests = [];
const test = (name, fn) => tests.push({ name, fn });

test('login page: tenant box hidden on a known host, shown on localhost', async (t) => {
  for (const tn of TENANTS) {
    const { page } = await session(t, { host: tn.host, signedIn: false });
    await visit(page, '/login');
    await page.getByRole('form', { name: '登录' }).waitFor();
    check(await page.getByLabel('账号').isVisible(), `${tn.host}: account box`);
    check(await page.getByLabel('密码', { exact: true }).isVisible(), `${tn.host}: password box`);
    check(await page.getByLabel('验证码', { exact: true }).isVisible(), `${tn.host}: captcha box`);
    check((await page.getByLabel('租户编号').count()) === 0, `${tn.host}: tenant box must be hidden`);
    await page.getByRole('img', { name: '验证码' }).waitFor();
    await shot(page, `login-${tn.id}`);
  }
  const { page } = await session(t, { host: 'localhost', signedIn: false });
  await visit(page, '/login');
  check(await page.getByLabel('租户编号').isVisible(), 'localhost: tenant box must be shown');
  await page.getByRole('img', { name: '验证码' }).waitFor();
  await shot(page, 'login-localhost');
});

test('login form: a wrong captcha shows 验证码不正确', async (t) => {
  t.allow.push(/status of 400.*oauth\/token/);
  const { page } = await session(t, { host: EDU.host, signedIn: false });
  await visit(page, '/login');
  await page.getByRole('img', { name: '验证码' }).waitFor();
  await page.getByRole('button', { name: '登录' }).click();
  await page.getByText('请输入账号').waitFor();
  await page.getByLabel('账号').fill('admin');
  await page.getByLabel('密码', { exact: true }).fill(PASSWORD);
  await page.getByLabel('验证码', { exact: true }).fill('####');
  check(await page.getByText(/请输入(账号|密码|验证码)/).count() === 0, 'filled fields lose their 请输入… marks');
  const answer = page.waitForResponse((r) => r.url().includes('/api/blade-auth/oauth/token'));
  await page.getByRole('button', { name: '登录' }).click();
  const r = await answer;
  check(r.request().url().includes('grant_type=captcha'), 'the form must use the captcha grant');
  check(r.request().url().includes('password=' + md5(PASSWORD)), 'the password must be sent as MD5');
  await page.getByRole('alert').filter({ hasText: '验证码不正确' }).waitFor();
  check(pathOf(page) === '/login', 'stays on /login');
  check((await page.getByLabel('验证码', { exact: true }).inputValue()) === '', 'captcha box cleared for a new try');
  await shot(page, 'login-wrong-captcha');
});

for (const tn of TENANTS) {
  test(`sign in to ${tn.id} (${tn.host}): desk with the user's name and the sidebar`, async (t) => {
    const { page } = await session(t, { host: tn.host });
    await visit(page, '/');
    await waitPath(page, '/wel/index');
    const name = t.user.real_name;
    check(name, 'token carries real_name');
    await page.getByRole('banner').getByText(name, { exact: true }).waitFor();
    await page.getByRole('heading', { name: new RegExp(name) }).waitFor();
    await sidebar(page).getByRole('link', { name: '我的桌面' }).waitFor();
    check((await sidebar(page).getByRole('button').count()) > 0, 'sidebar has menu groups');
    await tagbar(page).getByRole('link', { name: '我的桌面' }).waitFor();
    const edu = tn.id === '157270';
    for (const label of ['菜单搜索', '锁屏']) {
      const n = await page.getByRole('banner').getByRole('button', { name: label }).count();
      check(edu ? n === 1 : n === 0, `${label} shown only for 157270 (count ${n})`);
    }
    const lang = await page.getByRole('banner').getByRole('group', { name: '切换语言' }).count();
    check(edu ? lang === 1 : lang === 0, 'language switch only for 157270');
    await shot(page, `desk-${tn.id}`);
  });
}

test('session cookies: the token answer sets them HttpOnly and Strict; pages, downloads and refreshes use them; no script reads a token', async (t) => {
  const { ctx, page } = await session(t, { host: EDU.host, signedIn: false });
  await visit(page, '/login');
  // A sign-in as the page's own script makes it (the password grant: the captcha's answer is only in its image).
  const b = await page.evaluate(async ({ q, basic, tenant }) => {
    const r = await fetch('/api/blade-auth/oauth/token?' + q, { method: 'POST', headers: { Authorization: basic, 'Tenant-Id': tenant } });
    return r.json();
  }, { q: new URLSearchParams({ tenantId: EDU.id, username: 'admin', password: md5(PASSWORD), grant_type: 'password', scope: 'all', type: 'account' }).toString(), basic: BASIC, tenant: EDU.id });
  check(b.access_token && b.refresh_token, 'signed in: ' + JSON.stringify(b).slice(0, 200));
  const jar = await ctx.cookies();
  const tok = jar.find((c) => c.name === 'zz-token'), rt = jar.find((c) => c.name === 'zz-refresh');
  check(tok && tok.httpOnly && tok.sameSite === 'Strict' && tok.path === '/' && tok.value === b.access_token, 'zz-token: HttpOnly, Strict, path / — ' + JSON.stringify(tok));
  check(rt && rt.httpOnly && rt.sameSite === 'Strict' && rt.path === '/api/blade-auth/oauth/token', 'zz-refresh: HttpOnly, Strict, only for the token endpoint — ' + JSON.stringify(rt));
  const seen = await page.evaluate(() => document.cookie);
  check(!seen.includes(b.access_token) && !seen.includes(b.refresh_token) && !/zz-token|zz-refresh|saber-(access|refresh)-token/.test(seen), 'no token is readable by a script: ' + seen);
  // A server-rendered page knows the user by the cookie alone.
  await page.evaluate((a) => localStorage.setItem('saber-token', JSON.stringify({ dataType: 'string', content: a, datetime: Date.now() })), b.access_token);
  await visit(page, '/wel/index');
  check(pathOf(page) === '/wel/index', 'the desk opens signed in, got ' + page.url());
  // A refresh sends no refresh token: the server takes its cookie, rotates it and sets both again.
  const r2 = await page.evaluate(async ({ basic, tenant }) => {
    const r = await fetch('/api/blade-auth/oauth/token?grant_type=refresh_token&scope=all&tenantId=' + tenant, { method: 'POST', headers: { Authorization: basic, 'Tenant-Id': tenant } });
    return { status: r.status, body: await r.json() };
  }, { basic: BASIC, tenant: EDU.id });
  check(r2.status === 200 && r2.body.access_token && r2.body.access_token !== b.access_token, 'refresh by the cookie: ' + JSON.stringify(r2).slice(0, 200));
  check(r2.body.refresh_token === undefined, 'a refresh by the cookie hands the script no refresh token');
  const jar2 = await ctx.cookies();
  const rt2 = jar2.find((c) => c.name === 'zz-refresh');
  check(rt2 && rt2.value !== rt.value && rt2.httpOnly, 'the refresh cookie rotated');
  // Signing out clears them: the desk then asks for a sign-in again.
  const out = await page.evaluate(async ({ basic, tenant, a }) => (await fetch('/api/blade-auth/oauth/logout', { headers: { Authorization: basic, 'Tenant-Id': tenant, 'Blade-Auth': 'bearer ' + a } })).status, { basic: BASIC, tenant: EDU.id, a: r2.body.access_token });
  check(out === 200, 'logout answered ' + out);
  const left = (await ctx.cookies()).filter((c) => c.name.startsWith('zz-') && c.name !== 'zz-lang');
  check(left.length === 0, 'cookies cleared at sign-out: ' + JSON.stringify(left));
  await visit(page, '/wel/dashboard');
  check(pathOf(page) === '/login', 'signed out: /login, got ' + page.url());
});

test('a tab whose access token ran out signs out for good: the refresh cookie goes too', async (t) => {
  t.allow.push(/status of 401/);
  const { ctx, page } = await session(t, { host: EDU.host });
  // The page's script holds a token the server no longer takes (as after a night asleep); the cookies are live.
  // Once per tab: a later page of the same tab (the sign-in page) starts from what the UI left.
  await ctx.addInitScript(() => {
    if (sessionStorage.getItem('zz-test-expired')) return;
    sessionStorage.setItem('zz-test-expired', '1');
    localStorage.setItem('saber-token', JSON.stringify({ dataType: 'string', content: 'expired.token.x', datetime: Date.now() }));
  });
  await page.goto('/wel/index');
  await waitPath(page, '/login');
  // It stays there: a live session would send /login straight back to the desk.
  await page.getByRole('button', { name: '登录' }).waitFor();
  check(pathOf(page) === '/login', 'still on /login, got ' + page.url());
  const left = (await ctx.cookies()).filter((c) => c.name === 'zz-token' || c.name === 'zz-refresh');
  check(left.length === 0, 'both session cookies cleared by the server: ' + JSON.stringify(left.map((c) => c.name)));
});

test('signed out: a main route sends to /login with the way back', async (t) => {
  const { page } = await session(t, { host: EDU.host, signedIn: false });
  await visit(page, '/wel/dashboard');
  check(pathOf(page) === '/login', 'redirected to /login, got ' + page.url());
  check(new URL(page.url()).searchParams.get('redirect') === '/wel/dashboard', 'redirect param kept');
});

test('dashboard /wel/dashboard renders', async (t) => {
  const { page } = await session(t, { host: EDU.host });
  const r = await visit(page, '/wel/dashboard');
  check(r.status() === 200, 'status 200');
  await page.getByRole('main').getByRole('heading', { name: '控制台' }).waitFor();
  await tagbar(page).getByRole('link', { name: '控制台' }).waitFor();
  check(await sidebar(page).getByRole('link', { name: '控制台' }).getAttribute('aria-current') === 'page', 'sidebar marks the current page');
  // The business figures of the demo company: contract value from the ledgers, the monthly output chart.
  const biz = page.getByRole('region', { name: '经营概况' });
  await biz.getByText('合同总额').waitFor();
  await biz.getByRole('img', { name: '月度产值与目标' }).waitFor();
  await shot(page, 'dashboard');
});

test('user dropdown reaches the console and personal info', async (t) => {
  // 刘强 has a phone and an e-mail on file: the form must show them and keep what is not changed.
  const { page } = await session(t, { user: 'liuqiang' });
  await visit(page, '/wel/index');
  await page.getByRole('banner').getByRole('button', { name: t.user.real_name }).click();
  await page.getByRole('menuitem', { name: '个人信息' }).click();
  await waitPath(page, '/info/index');
  await page.getByRole('tab', { name: '修改密码' }).waitFor();
  // The form holds what is on file: 姓名 the real name, 昵称 the nickname, the phone and e-mail kept.
  const me = await bladeCall(t, 'GET', '/api/blade-user/info');
  await page.waitForFunction(() => document.querySelector('#info-realName')?.value && !document.querySelector('.form-actions button')?.disabled);
  for (const [label, key] of [['姓名', 'realName'], ['昵称', 'name'], ['手机号', 'phone'], ['邮箱', 'email']]) {
    check((await page.getByLabel(label).inputValue()) === (me[key] ?? ''), `${label} shows ${await page.getByLabel(label).inputValue()}, on file ${me[key]}`);
  }
  // The tabs sit above the form, not beside it.
  const tabs = await page.getByRole('tablist').boundingBox();
  check(tabs.y + tabs.height <= (await page.getByLabel('姓名').boundingBox()).y, 'the tabs are above the form');
  check(!!me.phone, 'the demo keeper has a phone on file');
  await page.getByLabel('邮箱').fill('liuqiang@zhizhuang.example');
  await page.getByRole('button', { name: '保存' }).click();
  await toast(page, '更新成功').waitFor();
  const after = await bladeCall(t, 'GET', '/api/blade-user/info');
  check(after.email === 'liuqiang@zhizhuang.example' && after.phone === me.phone && after.realName === me.realName && after.name === me.name, 'saving changed the e-mail alone');
  await shot(page, 'info');
  // A new password follows the rule of /password here too ("123" was taken), said beside the box, nothing sent.
  await page.getByRole('tab', { name: '修改密码' }).click();
  let sent = false;
  page.on('request', (r) => { if (r.url().includes('update-password')) sent = true; });
  await page.locator('#pw-oldPassword').fill('whatever-it-was');
  await page.locator('#pw-newPassword').fill('123');
  await page.locator('#pw-newPassword1').fill('123');
  await page.getByRole('tabpanel').getByRole('button', { name: '保存' }).click();
  await page.getByRole('tabpanel').getByRole('alert').filter({ hasText: '至少 8 位,并含字母、数字、符号中的两种' }).waitFor();
  check(!sent, 'a weak password is not sent');
});

test('unknown path shows /404', async (t) => {
  t.allow.push(/status of 404 \(Not Found\) http:\/\/[^ ]+\/no\/such\/page$/); // the document itself
  const { page } = await session(t, { host: EDU.host });
  const r = await visit(page, '/no/such/page');
  check(r.status() === 404, 'status 404, got ' + r.status());
  await page.getByText('抱歉，您访问的页面不存在').waitFor();
  await shot(page, '404');
});

test('sidebar: an accordion that scrolls by itself; opening groups never makes the page longer', async (t) => {
  const { page } = await session(t);
  await visit(page, '/wel/index');
  const nav = sidebar(page);
  const groups = nav.locator(':scope > ul > li.menu-group > button');
  const n = await groups.count();
  check(n >= 5, `top-level groups: ${n}`);
  for (let i = 0; i < n; i++) await groups.nth(i).click();
  const open = await nav.locator(':scope > ul > li.menu-group.open').count();
  check(open === 1, `one top-level group open after opening each in turn, not ${open}`);
  // Measured at one moment (the desk's own cards load meanwhile and may grow it): the page is as long as the
  // header and the desk, or the window, never longer because of the menu.
  const m = await page.evaluate(() => ({ height: document.documentElement.scrollHeight, content: Math.max(...[...document.querySelectorAll('.view > *')].map((e) => e.getBoundingClientRect().bottom)) + window.scrollY + 16, window: window.innerHeight }));
  check(m.height <= Math.max(m.content, m.window) + 4, `the menu adds nothing to the page's height: ${m.height}px, the desk alone ${m.content}px`);
  // Opening a group far down keeps it reachable: the sidebar scrolls itself.
  const box = await page.locator('aside.sidebar').evaluate((el) => ({ overflow: getComputedStyle(el).overflowY, h: el.clientHeight }));
  check(box.overflow === 'auto' && box.h <= 768, `sidebar scrolls by itself: ${JSON.stringify(box)}`);
  await shot(page, 'sidebar-accordion');
});

test('a tenant signed in at 127.0.0.1 gets its own header (search box, lock), not the default tenant\'s', async (t) => {
  const user = await token(EDU.id, 'admin');
  const ctx = await browser.newContext({ viewport: VIEWPORT, locale: 'zh-CN', baseURL: origin('127.0.0.1'), storageState: signedInState('127.0.0.1', user) });
  ctx.setDefaultTimeout(STEP_MS);
  t.contexts.push(ctx);
  const page = await ctx.newPage();
  page.on('pageerror', (e) => t.problems.push(`page error on ${page.url()}: ${e.message}`));
  await visit(page, '/wel/index');
  check(await page.getByRole('button', { name: '菜单搜索' }).isVisible(), 'the search box of 157270');
  check(await page.getByRole('button', { name: '锁屏' }).isVisible(), 'the lock of 157270');
  await shot(page, 'header-at-ip');
});

test('wide lists fit 1366 px: no column under the pinned 操作, names wrap, codes and dates do not', async (t) => {
  const { page } = await session(t);
  // The four were first; 施工管理, 入库单, 出库单 and ERP回调 covered a column each before their screens left 施工楼栋, 货主,
  // 联系电话, 明细行数 and an ERP record's 备注 to 查看 and 导出 (ui.hide) and the check and index columns narrowed.
  // In English too: titles and choices wrap between words (出库单 alone still runs 66 px under the actions there).
  const paths = ['/project/index', '/wms/goods', '/wechat/history', '/finance/possign', '/construct/index', '/wms/order/ck', '/wms/order/rk', '/wms/erpcallback'];
  const english = ['/project/index', '/wms/goods', '/construct/index', '/wms/order/rk', '/finance/contractLedger/index'];
  for (const [lang, path] of [...paths.map((p) => ['zh', p]), ...english.map((p) => ['en', p])]) {
    await visit(page, path);
    if (lang === 'en' && path === english[0]) {
      await page.getByText('English', { exact: true }).first().click();
      await page.getByRole('columnheader', { name: 'Status' }).first().waitFor();
    }
    await page.locator('.crud .table tbody tr').first().waitFor();
    const m = await page.evaluate(() => {
      const wrap = document.querySelector('.crud .table-wrap');
      const action = wrap.querySelector('th.col-action').getBoundingClientRect();
      const covered = [...wrap.querySelectorAll('thead th')].filter((th) => !th.classList.contains('col-action'))
        .filter((th) => th.getBoundingClientRect().right > action.left + 1).map((th) => th.textContent);
      const codes = [...wrap.querySelectorAll('tbody td')].filter((td) => /^[A-Z]{2}\d{8}-\d{4}$|^\d{4}-\d{2}-\d{2}/.test(td.textContent.trim()))
        .filter((td) => { const r = document.createRange(); r.selectNodeContents(td); return new Set([...r.getClientRects()].map((x) => Math.round(x.top))).size > 1; }).map((td) => td.textContent);
      return { scroll: wrap.scrollWidth - wrap.clientWidth, covered, codes };
    });
    await shot(page, 'fits-1366' + (lang === 'en' ? '-en' : '') + path.replaceAll('/', '_'));
    check(m.covered.length === 0, `${lang} ${path}: columns under the pinned actions: ${m.covered.join(', ')}`);
    check(m.scroll <= 2, `${lang} ${path}: the table scrolls sideways by ${m.scroll}px at 1366`);
    check(m.codes.length === 0, `${lang} ${path}: codes or dates broken over lines: ${m.codes.slice(0, 3).join(', ')}`);
  }
});

test('site managers on a phone (390×844): sign-in and the site screens never scroll sideways; the menu is a drawer', async (t) => {
  const sideways = (page) => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  const { page: login } = await session(t, { signedIn: false, phone: true });
  await visit(login, '/login');
  await login.getByRole('button', { name: '登录' }).waitFor();
  await shot(login, 'phone-login');
  check(await sideways(login) <= 0, `sign-in scrolls sideways by ${await sideways(login)}px`);
  const spill = await login.evaluate(() => { const box = document.querySelector('.login-box').getBoundingClientRect(); return Math.max(...[...document.querySelectorAll('.login-form input, .login-form button')].map((e) => e.getBoundingClientRect().right - box.right + 12)); });
  check(spill <= 0, `the sign-in fields reach the card's edge (${spill}px past its padding)`);

  const { page } = await session(t, { user: 'zhangwei', phone: true });
  await visit(page, '/wel/index');
  // The menu is a drawer: closed at first, opened by the menu button over the page, closed again by a choice.
  const nav = sidebar(page);
  check(!(await nav.getByRole('link', { name: '我的桌面' }).isVisible()), 'the drawer starts closed');
  await page.getByRole('button', { name: /折叠|展开|菜单|Collapse/ }).first().click();
  await nav.getByRole('button', { name: '业务管理' }).click();
  await shot(page, 'phone-drawer');
  await nav.getByRole('link', { name: '项目管理', exact: true }).click();
  await waitPath(page, '/project/index');
  await page.waitForFunction(() => { const s = document.querySelector('.sidebar'); return s && s.getBoundingClientRect().right <= 0; });
  const screens = [
    ['/project/index', '.crud .table tbody tr'],
    ['/construct/index', '.crud .table tbody tr'],
    ['/speedProgress/index', '.table tbody tr'],
    ['/attendDay/index', '.table tbody tr'],
    ['/buildingRectification/index', '.table tbody tr'],
    ['/worklist/order', '.crud .table tbody tr'],
    ['/worklist/addworklist', 'form'],
    ['/wel/index', '.view'],
    ['/work/process/leave', '.table'],
  ];
  for (const [path, ready] of screens) {
    await visit(page, path);
    await page.locator(ready).first().waitFor();
    await shot(page, 'phone' + path.replaceAll('/', '_'));
    const over = await sideways(page);
    check(over <= 0, `${path} scrolls sideways by ${over}px on a phone`);
  }
  // A project's page and a construct's page from their lists.
  for (const [list, link, name] of [['/project/index', '详情', 'project-detail'], ['/construct/index', '详情', 'construct-info']]) {
    await visit(page, list);
    await page.locator('.crud .table tbody tr').first().getByRole('link', { name: link }).first().click();
    await page.waitForURL((u) => u.pathname !== list);
    await page.locator('.detail-page, .card').first().waitFor();
    await shot(page, 'phone-' + name);
    const over = await sideways(page);
    check(over <= 0, `${name} scrolls sideways by ${over}px on a phone`);
  }
});

test('phones: header buttons, list-card links and the progress matrix can be tapped; the matrix scrolls in its own box with the building pinned', async (t) => {
  const { page } = await session(t, { user: 'zhangwei', phone: true });
  const small = (sel) => page.evaluate((sel) => [...document.querySelectorAll(sel)].filter((e) => e.offsetParent !== null)
    .map((e) => [e.getAttribute('aria-label') || e.textContent.trim().slice(0, 12), Math.round(e.getBoundingClientRect().width), Math.round(e.getBoundingClientRect().height)])
    .filter(([, w, h]) => w < 40 || h < 40), sel);
  await visit(page, '/project/index');
  await page.locator('.crud .table tbody tr').first().waitFor();
  const header = await small('header button, header a');
  check(header.length === 0, `header targets under 40 px: ${JSON.stringify(header)}`);
  const cards = await small('.crud .table td.col-action .link, .crud .table td.col-action button');
  check(cards.length === 0, `list-card actions under 40 px: ${JSON.stringify(cards.slice(0, 5))}`);
  const inputs = await small('.crud-search input, .crud-search select, .crud-search button');
  check(inputs.length === 0, `filter controls under 40 px: ${JSON.stringify(inputs)}`);
  await visit(page, '/speedProgress/index');
  await page.locator('.table tbody tr').first().waitFor();
  const detail = page.locator('.table tbody tr').first().getByRole('link').first();
  if (await detail.count()) { await detail.click(); await page.waitForURL((u) => u.pathname !== '/speedProgress/index'); }
  const matrix = page.locator('.matrix');
  await matrix.waitFor();
  await shot(page, 'phone-progress-matrix');
  const m = await page.evaluate(() => {
    const wrap = document.querySelector('.matrix').closest('.table-wrap');
    const pinned = wrap.querySelector('.matrix tbody th[scope=row]');
    const before = pinned.getBoundingClientRect().left;
    wrap.scrollLeft = wrap.scrollWidth;
    const after = pinned.getBoundingClientRect().left;
    return { page: document.documentElement.scrollWidth - window.innerWidth, inner: wrap.scrollWidth - wrap.clientWidth, moved: Math.abs(after - before), right: wrap.getBoundingClientRect().right };
  });
  check(m.page <= 0, `the page scrolls sideways by ${m.page}px`);
  check(m.right <= 390, `the matrix box ends past the screen (${m.right})`);
  check(m.moved < 1, `the building column moved ${m.moved}px when the matrix scrolled`);
  const cells = await small('.matrix .cell-btn');
  check(cells.length === 0, `matrix cells under 40 px: ${JSON.stringify(cells.slice(0, 3))}`);
  await shot(page, 'phone-progress-matrix-scrolled');
});

test('the spec\'s last screens: WeChat accounts say the server does not connect to WeChat; POS terminals need an enabled channel', async (t) => {
  const { page } = await session(t);
  await visit(page, '/wel/index');
  await openMenu(page, '微信管理', '公众号接入', '/wechat/deploy');
  await page.getByText('本系统不连接微信服务器').waitFor();
  await page.locator('.crud .table tbody tr').filter({ hasText: '服务号' }).first().waitFor();
  await shot(page, 'wechat-deploy');
  await openMenu(page, '微信管理', '推送记录', '/wechat/history');
  await page.locator('.crud .table tbody tr').filter({ hasText: '接收人未关注公众号' }).first().waitFor();
  check(await page.getByRole('button', { name: '新增', exact: true }).count() === 0, 'push history is not added by hand');
  await openMenu(page, '业务管理', 'POS签约', '/finance/possign');
  await page.locator('.crud .table tbody tr').filter({ hasText: '已签约' }).first().waitFor();
  await shot(page, 'possign');
});

test('tag bar: open, close active → previous, desk not closable, close others, close all, clear cache', async (t) => {
  const { page } = await session(t, { host: EDU.host });
  await visit(page, '/wel/index');
  await tagsAre(page, ['我的桌面'], 'starts with the desk alone');
  await openMenu(page, '首页', '控制台', '/wel/dashboard');
  await openMenu(page, '系统管理', '参数管理', '/system/param');
  await openMenu(page, '系统管理', '岗位管理', '/system/post');
  await tagsAre(page, ['我的桌面', '控制台', '参数管理', '岗位管理'], 'four tabs in order');
  check(await tagbar(page).getByRole('link', { name: '岗位管理' }).getAttribute('aria-current') === 'page', 'the new tab is active');
  check((await tagbar(page).getByRole('button', { name: /我的桌面/ }).count()) === 0, 'the desk tab has no close button');
  await shot(page, 'tagbar');

  // Closing the active tab opens the previous one.
  await tagbar(page).getByRole('button', { name: '关闭 岗位管理' }).click();
  await waitPath(page, '/system/param');
  await tagsAre(page, ['我的桌面', '控制台', '参数管理'], 'closed');

  // Closing an inactive tab keeps the active page.
  await tagbar(page).getByRole('button', { name: '关闭 控制台' }).click();
  await page.waitForFunction(() => document.querySelectorAll('.tags .tag').length === 2);
  check(pathOf(page) === '/system/param', 'still on the active page');

  // Tabs survive a reload.
  await openMenu(page, '首页', '控制台', '/wel/dashboard');
  await page.reload();
  await hydrated(page);
  await page.waitForFunction(() => document.querySelectorAll('.tags .tag').length === 3);
  await tagsAre(page, ['我的桌面', '参数管理', '控制台'], 'after reload');

  // Close others (dropdown) keeps the desk and the active tab.
  await page.getByRole('button', { name: '标签操作' }).click();
  await page.getByRole('menuitem', { name: '关闭其他' }).click();
  await page.waitForFunction(() => document.querySelectorAll('.tags .tag').length === 2);
  await tagsAre(page, ['我的桌面', '控制台'], 'close others');
  check(pathOf(page) === '/wel/dashboard', 'close others stays');

  // Right-click menu: close all returns to the desk.
  await openMenu(page, '系统管理', '参数管理', '/system/param');
  await tagbar(page).getByRole('link', { name: '参数管理' }).click({ button: 'right' });
  await page.getByRole('menuitem', { name: '关闭全部' }).click();
  await waitPath(page, '/wel/index');
  await page.waitForFunction(() => document.querySelectorAll('.tags .tag').length === 1);
  await tagsAre(page, ['我的桌面'], 'close all');

  // The last tab cannot be closed.
  check((await tagbar(page).getByRole('button').count()) === 0, 'no close button on the last tab');

  // Clear cache asks first, then says it is done; the session stays signed in.
  await page.evaluate((p) => localStorage.setItem(p + '-someCache', '{"content":1}'), PREFIX);
  await page.getByRole('button', { name: '标签操作' }).click();
  await page.getByRole('menuitem', { name: '清除缓存' }).click();
  const dlg = page.getByRole('alertdialog');
  await dlg.getByText('是否需要清除缓存?').waitFor();
  await shot(page, 'clear-cache-confirm');
  await dlg.getByRole('button', { name: '确定' }).click();
  await toast(page, '清除完毕').waitFor();
  check(await page.evaluate((p) => localStorage.getItem(p + '-someCache'), PREFIX) === null, 'cache cleared');
  await visit(page, '/wel/dashboard');
  await page.getByRole('banner').getByText(t.user.real_name, { exact: true }).waitFor();
});

test('language: zh → en changes visible strings and survives reload', async (t) => {
  const { page } = await session(t, { host: EDU.host });
  await visit(page, '/system/param');
  await tagbar(page).getByRole('link', { name: '参数管理', exact: true }).waitFor();
  await visit(page, '/wel/index');
  await page.getByRole('banner').getByRole('button', { name: 'English' }).click();
  await tagbar(page).getByRole('link', { name: 'My desktop' }).waitFor();
  // A tag opened in Chinese follows the language too (it kept the words it was opened with).
  await tagbar(page).getByRole('link', { name: 'Parameters', exact: true }).waitFor();
  await page.getByRole('banner').getByRole('button', { name: 'Lock screen' }).waitFor();
  await sidebar(page).getByRole('button', { name: 'System', exact: true }).waitFor(); // menu names come from the server
  check(await page.evaluate(() => document.documentElement.lang) === 'en', 'html lang en');
  await page.reload();
  await hydrated(page);
  await tagbar(page).getByRole('link', { name: 'My desktop' }).waitFor();
  await page.getByRole('banner').getByRole('button', { name: 'Lock screen' }).waitFor();
  const text = await page.locator('body').innerText();
  for (const zh of ['我的桌面', '锁屏', '应用中心', '紧急任务', '系统消息', '系统管理', '控制台']) check(!text.includes(zh), `"${zh}" still shown in English`);
  await shot(page, 'desk-en');
  await visit(page, '/system/param');
  await page.getByRole('button', { name: 'Add' }).waitFor();
  await page.getByRole('columnheader', { name: 'Name' }).waitFor();
  await shot(page, 'param-en');
  await page.getByRole('banner').getByRole('button', { name: '中文' }).click();
  await page.getByRole('button', { name: '新增' }).waitFor();
  await page.reload();
  await hydrated(page);
  await page.getByRole('button', { name: '新增' }).waitFor();
});

test('English everywhere: no Han characters in the chrome, headers and seeded values of any menu screen', async (t) => {
  const { page } = await session(t, { host: EDU.host });
  const h = { Authorization: BASIC, 'Tenant-Id': EDU.id, 'Blade-Auth': 'bearer ' + t.user.access_token };
  const tree = (await (await fetch(`http://127.0.0.1:${server.port}/api/blade-system/menu/routes`, { headers: h })).json()).data;
  const paths = [];
  const walk = (ns) => ns.forEach((n) => { if (n.children?.length) walk(n.children); else if (n.path?.startsWith('/') && !n.path.includes(':') && n.isOpen !== 2) paths.push(n.path); });
  walk(tree);
  // menu/routes answers other clients and leaves out the screens only our UI has; they are checked too.
  paths.push('/monitor/log/login');
  check(paths.length > 50, `menu screens: ${paths.length}`);
  await visit(page, '/wel/index');
  await page.getByRole('banner').getByRole('button', { name: 'English' }).click();
  await tagbar(page).getByRole('link', { name: 'My desktop' }).waitFor();
  const found = [];
  for (const path of paths) {
    await visit(page, path);
    await page.locator('.crud .table tbody tr, .empty, main table, main .card, main form').first().waitFor({ timeout: STEP_MS }).catch(() => {});
    await sleep(300);
    const han = await page.evaluate((me) => {
      const HAN = /\p{Script=Han}/u;
      const out = new Set();
      const take = (where, s) => { s = (s || '').trim(); if (HAN.test(s)) out.add(`${where}: ${s.slice(0, 60)}`); };
      // What people type is theirs (names, notes, codes): list cells other than coded choices, the user's and the
      // tenant's names, record titles in the tag bar. Everything the product says or seeds is checked.
      // A button naming a language in that language (中文) is right in any language.
      const own = (el) => el.closest('td:not(.choice), th[scope=row], .tree-caret, [role=treeitem], .user-btn, .dept-node, .tree-row, .ctree, [lang]:not([lang^="en"]), .tag-bar a, .tags a, [data-user-text], pre, textarea, input');
      for (const el of document.querySelectorAll('header, nav, th, button, label, legend, h1, h2, h3, h4, .crud-toolbar, .filters, td.choice, .tag, .card-title, .empty, dt, option')) {
        if (own(el) && !el.matches('td.choice')) continue;
        const txt = [...el.childNodes].filter((n) => n.nodeType === 3).map((n) => n.textContent).join(' ');
        const said = el.matches('td.choice, option, th, button, dt, h1, h2, h3, h4, label') ? el.innerText : txt;
        take(el.tagName.toLowerCase() + (el.className && typeof el.className === 'string' ? '.' + el.className.split(' ')[0] : ''), said.replace(me, ''));
      }
      for (const el of document.querySelectorAll('[placeholder], [aria-label], [title]')) {
        if (own(el) && !el.matches('input, textarea')) continue;
        for (const a of ['placeholder', 'aria-label', 'title']) if (el.hasAttribute(a)) take(`@${a}`, el.getAttribute(a));
      }
      return [...out];
    }, t.user.real_name);
    if (han.length) found.push(`${path}\n    ${han.slice(0, 12).join('\n    ')}`);
  }
  if (process.env.ZZ_SHOW_HAN) console.log(found.join('\n'));
  check(found.length === 0, `Han characters in English on ${found.length} screens:\n  ${found.slice(0, 15).join('\n  ')}`);
});

test('language: the login page switches too', async (t) => {
  const { page } = await session(t, { host: TENANTS[2].host, signedIn: false });
  await visit(page, '/login');
  await page.getByRole('button', { name: 'English' }).click();
  await page.getByRole('form', { name: 'Sign in' }).waitFor();
  await page.reload();
  await hydrated(page);
  await page.getByRole('form', { name: 'Sign in' }).waitFor();
  await shot(page, 'login-en');
});

test('theme: the dialog changes the primary colour and it persists across reload', async (t) => {
  const { page } = await session(t, { host: TENANTS[0].host });
  await visit(page, '/wel/index');
  const primary = () => page.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue('--primary').trim().toLowerCase());
  check(await primary() === '#409eff', 'default colour #409EFF, got ' + await primary());
  await page.getByRole('banner').getByRole('button', { name: '主题' }).click();
  const dlg = page.getByRole('dialog', { name: '选择主题' });
  await dlg.waitFor();
  check((await dlg.getByRole('radio').count()) === 11, '11 themes');
  await dlg.getByRole('radio', { name: '白色主题' }).click();
  await dlg.getByLabel('主题色').fill('#e6a23c');
  check(await primary() === '#e6a23c', 'colour applied, got ' + await primary());
  check(await page.evaluate(() => document.body.classList.contains('theme-white')), 'theme class applied');
  await shot(page, 'theme-dialog');
  await dlg.getByRole('button', { name: '关闭' }).click();
  await page.reload();
  await hydrated(page);
  await page.waitForFunction(() => getComputedStyle(document.documentElement).getPropertyValue('--primary').trim().toLowerCase() === '#e6a23c');
  check(await page.evaluate(() => document.body.classList.contains('theme-white')), 'theme kept after reload');
  // The server renders the theme from the cookie, so the first paint has it (no flash).
  const html = await page.evaluate(() => fetch('/wel/index').then((r) => r.text()));
  check(/class="layout theme-white/.test(html) && html.includes('--primary:#e6a23c'), 'server-rendered layout carries the theme');
  await shot(page, 'desk-theme-white');
});

test('logout: asked in the app\'s own dialog; 取消 stays, 确定 signs out and the desk needs a sign-in again', async (t) => {
  const { page } = await session(t);
  await visit(page, '/wel/index');
  let browserDialog = false;
  page.on('dialog', (d) => { browserDialog = true; void d.dismiss(); });
  const out = async () => {
    await page.getByRole('banner').locator('.user-btn').click();
    await page.getByRole('menuitem', { name: '退出登录' }).click();
    const dlg = page.getByRole('dialog', { name: '提示' });
    await dlg.getByText('退出系统, 是否继续?').waitFor();
    return dlg;
  };
  let dlg = await out();
  await shot(page, 'logout-ask');
  await dlg.getByRole('button', { name: '取消' }).click();
  await dlg.waitFor({ state: 'hidden' });
  check(new URL(page.url()).pathname === '/wel/index', 'cancelled: still on the desk');
  dlg = await out();
  await dlg.getByRole('button', { name: '确定' }).click();
  await waitPath(page, '/login');
  check(!browserDialog, 'no browser confirm()');
  await page.goto('/wel/index');
  await waitPath(page, '/login');
});

test('lock: empty password refused, lock goes to /lock, unlock with the right password returns', async (t) => {
  t.allow.push(/status of 400.*check-password/);
  const { page } = await session(t, { host: EDU.host });
  await visit(page, '/wel/dashboard');
  await page.getByRole('banner').getByRole('button', { name: '锁屏' }).click();
  const dlg = page.getByRole('dialog', { name: '设置锁屏密码' });
  await dlg.getByRole('button', { name: '锁屏' }).click();
  await dlg.getByText('锁屏密码不能为空').waitFor();
  await shot(page, 'lock-dialog');
  await dlg.getByLabel('锁屏密码').fill(PASSWORD);
  await dlg.getByRole('button', { name: '锁屏' }).click();
  await waitPath(page, '/lock');
  await hydrated(page);
  check(!(await page.evaluate(() => JSON.stringify({ ...sessionStorage, ...localStorage }))).includes(PASSWORD), 'the password is never stored in clear');
  await shot(page, 'lock');
  // A locked session cannot reach a main page.
  await page.goto('/wel/index');
  await waitPath(page, '/lock');
  await hydrated(page);
  // A wrong password does not unlock.
  await page.getByLabel('锁屏密码').fill('wrong-password');
  const wrong = page.waitForResponse((r) => r.url().includes('/api/blade-user/check-password'));
  await page.getByRole('button', { name: '解锁' }).click();
  const w = await wrong;
  check(w.status() !== 404, 'PENDING: POST /api/blade-user/check-password answers 404 (server endpoint not there yet)');
  await page.getByRole('alert').filter({ hasText: '解锁密码错误' }).waitFor();
  check(pathOf(page) === '/lock', 'still locked');
  await page.getByLabel('锁屏密码').fill(PASSWORD);
  await page.getByRole('button', { name: '解锁' }).click();
  await waitPath(page, '/wel/index');
  await hydrated(page);
  await page.getByRole('banner').getByText(t.user.real_name, { exact: true }).waitFor();
  // The lock password set in the dialog unlocks too (it was asked for, then refused as 解锁密码错误).
  await page.getByRole('banner').getByRole('button', { name: '锁屏' }).click();
  await page.getByRole('dialog', { name: '设置锁屏密码' }).getByLabel('锁屏密码').fill('1234');
  await page.getByRole('dialog', { name: '设置锁屏密码' }).getByRole('button', { name: '锁屏' }).click();
  await waitPath(page, '/lock');
  await hydrated(page);
  await page.getByLabel('锁屏密码').fill('1234');
  await page.getByRole('button', { name: '解锁' }).click();
  await waitPath(page, '/wel/index');
});

test('parameters: add with blur validation, edit, delete with selection, page sizes', async (t) => {
  const { page } = await session(t, { host: TENANTS[0].host });
  await visit(page, '/system/param');
  await page.getByRole('columnheader', { name: '参数名称' }).waitFor();
  await shot(page, 'param-list');

  // A dialog closed by Escape gives the cursor back to the button that opened it.
  await page.getByRole('button', { name: '新增', exact: true }).click();
  await page.getByRole('dialog', { name: /新增/ }).waitFor();
  await page.keyboard.press('Escape');
  await page.getByRole('dialog', { name: /新增/ }).waitFor({ state: 'hidden' });
  await page.waitForFunction(() => document.activeElement?.textContent === '新增');

  // Add: each required field says so on blur.
  await page.getByRole('button', { name: '新增', exact: true }).click();
  let dlg = page.getByRole('dialog', { name: /新增/ });
  await dlg.waitFor();
  for (const label of ['参数名称', '参数键名', '参数键值']) {
    await dlg.getByLabel(label).focus();
    await dlg.getByLabel(label).blur();
    await dlg.getByText('请输入' + label).waitFor();
  }
  await shot(page, 'param-add-validation');
  const key = 'zz.browser.test';
  await dlg.getByLabel('参数名称').fill('浏览器测试参数');
  await dlg.getByLabel('参数键名').fill(key);
  await dlg.getByLabel('参数键值').fill('42');
  check((await dlg.getByText('请输入参数名称').count()) === 0, 'message goes once the field is filled');
  await dlg.getByRole('button', { name: '保存' }).click();
  await toast(page, '新增成功').waitFor();
  await dlg.waitFor({ state: 'detached' });
  const row = page.getByRole('row').filter({ hasText: key });
  await row.waitFor();
  check((await row.getByRole('cell').allInnerTexts()).includes('浏览器测试参数'), 'the new row shows its name');

  // Edit.
  await row.getByRole('button', { name: '编辑' }).click();
  dlg = page.getByRole('dialog', { name: /编辑/ });
  await dlg.waitFor();
  await page.waitForFunction(() => document.querySelector('#f-paramName')?.value === '浏览器测试参数');
  await dlg.getByLabel('参数键值').fill('43');
  await dlg.getByRole('button', { name: '保存' }).click();
  await toast(page, '更新成功').waitFor();
  await page.getByRole('row').filter({ hasText: key }).getByRole('cell', { name: '43', exact: true }).waitFor();

  // Delete needs a selection, asks, then deletes.
  await page.getByRole('button', { name: '删除', exact: true }).first().click();
  await toast(page, '请选择至少一条数据').waitFor();
  await page.getByRole('row').filter({ hasText: key }).getByRole('checkbox').check();
  await page.locator('.crud-tools').getByRole('button', { name: '删除' }).click();
  const confirm = page.getByRole('alertdialog');
  await confirm.getByText('确定将选择数据删除?').waitFor();
  await shot(page, 'param-delete-confirm');
  await confirm.getByRole('button', { name: '确定' }).click();
  await toast(page, '删除成功').waitFor();
  await page.getByRole('row').filter({ hasText: key }).waitFor({ state: 'detached' });

  // Paging: 10/30/50/100/200, default 10; choosing one reloads with that size.
  const sizes = page.getByRole('navigation', { name: 'pagination' }).getByRole('combobox');
  const opts = (await sizes.locator('option').allInnerTexts()).map((s) => s.trim());
  check(JSON.stringify(opts) === JSON.stringify(['10条/页', '30条/页', '50条/页', '100条/页', '200条/页']), 'page sizes: ' + opts);
  check(await sizes.inputValue() === '10', 'default size 10');
  await sizes.selectOption('30');
  await page.waitForURL((u) => u.searchParams.get('size') === '30');
  await page.waitForFunction(() => document.querySelector('.pager select')?.value === '30');
  await page.reload();
  await hydrated(page);
  check(await sizes.inputValue() === '30', 'size 30 after reload');
});

test('parameters: the search bar filters by name; export of the filter', async (t) => {
  const { page } = await session(t, { host: TENANTS[2].host });
  await visit(page, '/system/param');
  // Paging goes by what was searched, not by text typed and not yet searched.
  await page.locator('.crud-search input[name=keyword]').fill('zzzznothing');
  await page.locator('.pager select').selectOption('30');
  await page.waitForURL((u) => u.searchParams.get('size') === '30');
  check(!new URL(page.url()).searchParams.has('keyword'), 'unsearched text stays out of the address: ' + page.url());
  await page.locator('.crud-search input[name=keyword]').fill('');
  const add = async (name, key) => {
    await page.getByRole('button', { name: '新增', exact: true }).click();
    const dlg = page.getByRole('dialog', { name: /新增/ });
    await dlg.getByLabel('参数名称').fill(name);
    await dlg.getByLabel('参数键名').fill(key);
    await dlg.getByLabel('参数键值').fill('v');
    await dlg.getByRole('button', { name: '保存' }).click();
    await dlg.waitFor({ state: 'detached' });
    await page.getByRole('row').filter({ hasText: key }).waitFor();
  };
  await add('甲参数', 'search.a');
  await add('乙参数', 'search.b');
  await page.locator('.crud-search').getByLabel('参数名称').fill('甲');
  await page.locator('.crud-search').getByRole('button', { name: '搜索' }).click();
  await page.waitForURL((u) => u.searchParams.get('paramName') === '甲');
  await page.getByRole('row').filter({ hasText: 'search.b' }).waitFor({ state: 'detached' });
  await page.getByRole('row').filter({ hasText: 'search.a' }).waitFor();
  // Export: an Excel file of the current filter (the filtered row only).
  const [dl] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: '导出' }).click()]);
  check(dl.suggestedFilename().endsWith('.xlsx'), 'an .xlsx file: ' + dl.suggestedFilename());
  const { readFileSync } = await import('node:fs');
  const bytes = readFileSync(await dl.path());
  check(bytes[0] === 0x50 && bytes[1] === 0x4b, 'the download is a zip (xlsx)');
  // Created from today to today (the product's zone): both days are whole, so today's parameter is found.
  const today = new Date(Date.now() + 8 * 3600_000).toISOString().slice(0, 10);
  const bar = page.locator('.crud-search');
  await bar.getByLabel('开始日期').fill(today);
  await bar.getByLabel('结束日期').fill(today);
  await bar.getByRole('button', { name: '搜索' }).click();
  await page.waitForURL((u) => u.searchParams.get('createTime_datele') === today);
  await page.getByRole('row').filter({ hasText: 'search.a' }).waitFor();
});

test('api log: the search form filters by method, route and status exactly', async (t) => {
  // The session's own sign-in (a POST to the token route) is in its tenant's api log.
  const { page } = await session(t, { host: EDU.host });
  await visit(page, '/monitor/log/api');
  const bar = page.locator('.crud-search');
  await bar.getByLabel('请求方法').selectOption('POST');
  await bar.getByLabel('请求接口').fill('/api/blade-auth/oauth/token');
  await bar.getByRole('button', { name: '搜索' }).click();
  await page.waitForURL((u) => u.searchParams.get('requestUri_equal') === '/api/blade-auth/oauth/token' && u.searchParams.get('method_equal') === 'POST');
  const rows = page.locator('table tbody tr');
  await rows.filter({ hasText: '/api/blade-auth/oauth/token' }).first().waitFor();
  const texts = await rows.allInnerTexts();
  check(texts.length > 0 && texts.every((x) => x.includes('/api/blade-auth/oauth/token') && x.includes('POST')), 'every row is a sign-in: ' + texts.join(' | '));
  await shot(page, 'log-api-filtered');
  // A status no request had: nothing, and the boxes keep what was asked.
  await bar.getByLabel('状态码').fill('599');
  await bar.getByRole('button', { name: '搜索' }).click();
  await page.waitForURL((u) => u.searchParams.get('httpStatus_equal') === '599');
  await page.getByText('暂无数据').waitFor();
  check(await bar.getByLabel('请求接口').inputValue() === '/api/blade-auth/oauth/token', 'the route box keeps its value');
  // Letters in the status box: no rows, and the reason (not every entry as if the filter had been applied).
  await bar.getByLabel('状态码').fill('abc');
  await bar.getByRole('button', { name: '搜索' }).click();
  await page.getByRole('alert').filter({ hasText: '状态码' }).waitFor();
  check(await page.locator('table tbody tr').filter({ hasText: '/api/' }).count() === 0, 'no rows beside the error');
});

/** Picks a record in the search form's reference box `label` (typing `typed`, choosing `option`) and searches by it. */
async function searchByRef(page, label, typed, option, field) {
  const bar = page.locator('.crud-search');
  const box = bar.getByRole('combobox', { name: label });
  await box.click();
  await box.fill(typed);
  await page.getByRole('option', { name: option }).click();
  await bar.getByRole('button', { name: '搜索' }).click();
  await page.waitForURL((u) => /^[0-9]+$/.test(u.searchParams.get(field + '_equal') ?? ''));
  return box;
}

test('picks: the search form filters by a picked order, and keeps its name after a reload', async (t) => {
  const { page } = await session(t, { host: EDU.host });
  // Two orders with picks, found by what they are (the demo's numbers carry the day it was seeded).
  const picks = (await bladeCall(t, 'GET', '/api/blade-api/wms/down/list?size=200')).records;
  const orders = [...new Set(picks.map((p) => p.orderName))];
  check(orders.length >= 2, 'the demo has picks of two orders: ' + orders.join(' | '));
  const [picked, other] = orders;
  await visit(page, '/wms/down');
  const box = await searchByRef(page, '单据', picked.slice(0, 10), picked, 'orderId');
  const rows = page.locator('table tbody tr');
  await rows.filter({ hasText: other }).first().waitFor({ state: 'detached' });
  const texts = await rows.allInnerTexts();
  check(texts.length > 0 && texts.every((x) => x.includes(picked)), 'only the picked order\'s picks: ' + texts.join(' | '));
  await page.reload();
  await hydrated(page);
  check(await box.inputValue() === picked, 'the picked order is named after a reload: ' + await box.inputValue());
  await shot(page, 'picks-by-order');
});

test('transfers: the demo\'s planned transfer is listed and found by its store; goods of one name are told apart by code', async (t) => {
  const { page } = await session(t, { host: EDU.host });
  await visit(page, '/wms/transfer');
  const row = page.locator('table tbody tr').filter({ hasText: '计划中' }).first();
  await row.waitFor();
  // And one carried out three days ago (its moves are in the stock ledger: `verify` agrees).
  check(await page.locator('table tbody tr').filter({ hasText: /\d{4}-\d\d-\d\d \d\d:\d\d/ }).count() >= 1, 'a done transfer with its time');
  const bar = page.locator('.crud-search');
  // Six goods are called 釉面墙砖 (each its own size and colour): the choices show their codes.
  const goods = bar.getByRole('combobox', { name: '商品' });
  await goods.click();
  await goods.fill('釉面墙砖');
  await page.getByRole('option', { name: /釉面墙砖 SP0*\d+/ }).first().waitFor();
  const names = await page.getByRole('option').allInnerTexts();
  check(names.length > 1 && new Set(names).size === names.length, 'each choice is told apart: ' + names.join(' | '));
  await shot(page, 'picker-codes');
  await goods.press('Escape');
  await page.locator('h1, .crud-tools').first().click();
  await searchByRef(page, '源仓库', '南京建材', '南京建材总仓', 'storeId');
  await page.locator('table tbody tr').filter({ hasText: '计划中' }).first().waitFor();
});

test('generic forms, as the roles that use them: 刘强\'s transfer rows carry 执行移库 and 取消 and its form no 状态; 张伟\'s measure rooms are a table, not JSON', async (t) => {
  let { page } = await session(t, { user: 'liuqiang' });
  await visit(page, '/wms/transfer');
  const planned = page.locator('table tbody tr').filter({ hasText: '计划中' }).first();
  await planned.getByRole('button', { name: '执行移库' }).waitFor();
  check(await planned.getByRole('button', { name: '取消' }).count() === 1, 'a planned transfer is cancelled from its row');
  const done = page.locator('table tbody tr').filter({ hasText: '已完成' }).first();
  check(await done.getByRole('button', { name: '删除' }).count() === 0 && await done.getByRole('button', { name: '取消' }).count() === 0, 'a done transfer offers neither 删除 nor 取消');
  await page.getByRole('button', { name: '新增', exact: true }).click();
  const add = dialogNamed(page, /新增/);
  await add.getByLabel('移库单号').waitFor();
  check(await add.getByLabel('状态').count() === 0, 'the form of a new transfer offers no 状态 (已完成 was refused)');
  check(await add.getByLabel('移库单号').getAttribute('placeholder') === '留空自动生成', 'the code says it is made when left empty');
  await add.getByRole('button', { name: '取消' }).click();

  // 测量管理, as the project manager: a draft measure's rooms in a table of names and millimetres, with the floor area.
  ({ page } = await session(t, { user: 'zhangwei' }));
  await visit(page, '/measure/index');
  const draft = page.locator('table tbody tr').filter({ hasText: '草稿' }).first();
  await draft.getByRole('button', { name: '编辑' }).click();
  const edit = page.getByRole('dialog').filter({ has: page.getByRole('table', { name: '房间尺寸' }) });
  await edit.getByLabel('第 1 个房间名称').waitFor();
  check(!(await edit.innerText()).includes('"roomName"'), 'no JSON in the form');
  const n = await edit.getByRole('table', { name: '房间尺寸' }).locator('tbody tr').count();
  await edit.getByRole('button', { name: '添加房间' }).click();
  await edit.getByLabel(`第 ${n + 1} 个房间名称`).fill('储藏间');
  await edit.getByLabel(`第 ${n + 1} 个房间长(mm)`).fill('2000');
  await edit.getByLabel(`第 ${n + 1} 个房间宽(mm)`).fill('1500');
  await edit.getByRole('table', { name: '房间尺寸' }).getByRole('cell', { name: '3.00', exact: true }).waitFor();
  await shot(page, 'measure-rooms-form');
  await edit.getByRole('button', { name: '保存' }).click();
  await edit.waitFor({ state: 'detached' });
  const saved = (await bladeCall(t, 'POST', '/api/blade-scm/measure/list', { current: 1, size: 100 })).records.find((m) => JSON.stringify(m.rooms ?? '').includes('储藏间'));
  check(saved && Number(saved.roomCount) === n + 1, `the room was saved with the others: ${JSON.stringify(saved?.rooms)}`);
});

test('outbound orders and constructs: the search form finds one status of one store, and one project\'s constructs', async (t) => {
  const { page } = await session(t, { host: EDU.host });
  await visit(page, '/wms/order/ck');
  const bar = page.locator('.crud-search');
  // The orders waiting to be picked: 状态 已释放 (a depot clerk's first look of the day).
  await bar.getByLabel('状态').selectOption({ label: '已释放' });
  await bar.getByRole('button', { name: '搜索' }).click();
  await page.waitForURL((u) => (u.searchParams.get('orderStatus_equal') ?? '') !== '');
  const rows = page.locator('table tbody tr');
  await rows.filter({ hasText: '已发货' }).first().waitFor({ state: 'detached' });
  let texts = await rows.allInnerTexts();
  check(texts.length > 0 && texts.every((x) => x.includes('已释放')), 'only released orders: ' + texts.join(' | '));
  // And of one store, both filters kept.
  await searchByRef(page, '仓库', '南京建材', '南京建材总仓', 'storeId');
  check(new URL(page.url()).searchParams.get('orderStatus_equal') !== null, 'the status filter is kept: ' + page.url());
  texts = await rows.allInnerTexts();
  check(texts.length > 0 && texts.every((x) => x.includes('已释放') && x.includes('南京建材总仓')), 'released orders of the store: ' + texts.join(' | '));
  await shot(page, 'orders-by-status-and-store');
  await visit(page, '/construct/index');
  await searchByRef(page, '所属项目', '万科城市', '万科城市之光外立面清洗', 'projectId');
  await rows.first().waitFor();
  texts = await rows.allInnerTexts();
  check(texts.length > 0 && texts.every((x) => x.includes('万科城市之光外立面清洗')), 'only the project\'s constructs: ' + texts.join(' | '));
  // Projects by 开始时间 (the project screen's range), from and to one day: the project started that day.
  await visit(page, '/project/index');
  const pbar = page.locator('.crud-search');
  check(await pbar.getByText('开始时间', { exact: true }).count() === 1, 'the range is 开始时间');
  await pbar.getByLabel('开始日期').fill('2026-10-12');
  await pbar.getByLabel('结束日期').fill('2026-10-12');
  await pbar.getByRole('button', { name: '搜索' }).click();
  await page.waitForURL((u) => u.searchParams.get('startTime_datele') === '2026-10-12');
  await rows.filter({ hasText: '万科城市之光外立面清洗' }).first().waitFor({ state: 'detached' });
  texts = await rows.allInnerTexts();
  check(texts.length === 1 && texts[0].includes('江宁区教育局幼儿园地坪工程'), 'the project started that day: ' + texts.join(' | '));
});

test('error log (157270): badge caps at 99, upload and clear are confirmed', async (t) => {
  const { page } = await session(t, { host: EDU.host });
  await visit(page, '/wel/index');
  const button = page.getByRole('banner').getByRole('button', { name: '错误日志' });
  check((await button.locator('.badge').count()) === 0, 'no badge without entries');
  // Entries as the global error handler writes them (an uncaught error here would fail the run).
  await page.evaluate((p) => {
    const logs = Array.from({ length: 120 }, (_, i) => ({ type: 'error', message: 'boom ' + i, stack: 'Error: boom\n    at test', info: 'test', url: location.href, time: '2026-01-01 00:00:00' }));
    localStorage.setItem(p + '-logs', JSON.stringify({ dataType: 'object', content: logs, datetime: Date.now() }));
    window.dispatchEvent(new Event('zz-logs'));
  }, PREFIX);
  await button.locator('.badge', { hasText: '99+' }).waitFor();
  await button.click();
  const dlg = page.getByRole('dialog', { name: '错误日志' });
  for (const h of ['类型', '地址', '内容', '错误堆栈', '时间']) await dlg.getByRole('columnheader', { name: h }).waitFor();
  await dlg.getByRole('cell', { name: 'boom 7', exact: true }).waitFor();
  await shot(page, 'error-log');
  const upload = page.waitForResponse((r) => r.url().includes('/api/blade-log/error/upload'));
  await dlg.getByRole('button', { name: '上传服务器' }).click();
  await page.getByRole('alertdialog').getByText('确定上传本地日志到服务器?').waitFor();
  await page.getByRole('alertdialog').getByRole('button', { name: '确定' }).click();
  const r = await upload;
  check(r.status() === 200, 'upload answered ' + r.status());
  await toast(page, '发送成功!').waitFor();
  await dlg.getByRole('button', { name: '清空本地日志' }).click();
  await page.getByRole('alertdialog').getByText('确定清空本地日志记录?').waitFor();
  await page.getByRole('alertdialog').getByRole('button', { name: '确定' }).click();
  await toast(page, '清空成功!').waitFor();
  await button.locator('.badge').waitFor({ state: 'detached' });
});

/** Opens the header's search on the desk of 157270; returns the page and the search box. */
async function openSearch(t) {
  const { page } = await session(t, { host: EDU.host });
  await visit(page, '/wel/index');
  await page.getByRole('banner').getByRole('button', { name: '菜单搜索' }).click();
  return { page, box: page.getByRole('searchbox', { name: '搜索菜单' }) };
}

test('menu search (157270): prefix, Esc closes, choosing navigates', async (t) => {
  const { page, box } = await openSearch(t);
  await box.fill('参数');
  await page.getByRole('option', { name: /参数管理/ }).waitFor();
  await shot(page, 'menu-search');
  await page.keyboard.press('Escape');
  await box.waitFor({ state: 'detached' });
  await page.getByRole('banner').getByRole('button', { name: '菜单搜索' }).click();
  await box.fill('参数');
  await page.getByRole('option', { name: /参数管理/ }).getByRole('link').click();
  await waitPath(page, '/system/param');
  // As people type a menu's name in pinyin: its initials' start (kq) or its spelling (kaoqin).
  for (const typed of ['kq', 'kaoqin']) {
    await page.getByRole('banner').getByRole('button', { name: '菜单搜索' }).click();
    await box.fill(typed);
    await page.getByRole('option', { name: /考勤管理/ }).waitFor();
    await page.keyboard.press('Escape');
    await box.waitFor({ state: 'detached' });
  }
});

test('search box (157270): menus first, then records grouped by resource; a click opens the screen on the record', async (t) => {
  const { page, box } = await openSearch(t);
  // Pinyin initials of a person's name find the user record.
  await box.fill('zw');
  const users = page.getByRole('listbox', { name: '用户管理' });
  await users.getByRole('option', { name: /张伟/ }).waitFor();
  // A fragment: records of several resources, each group labelled, matches marked.
  await box.fill('施工一队');
  await page.getByRole('listbox', { name: '机构管理' }).getByRole('option', { name: /施工一队/ }).waitFor();
  await page.getByRole('listbox', { name: '工人管理' }).waitFor();
  check((await page.locator('.search-records mark', { hasText: '施工' }).count()) > 0, 'matches are marked');
  await shot(page, 'search-box');
  await page.getByRole('listbox', { name: '机构管理' }).getByRole('option', { name: /施工一队/ }).getByRole('link').click();
  await page.waitForURL((u) => u.pathname === '/system/dept' && u.searchParams.has('id'));
  await box.waitFor({ state: 'detached' });
  // A record opened on a list screen: the list shows it alone and says so, with the way back to all.
  await page.getByRole('banner').getByRole('button', { name: '菜单搜索' }).click();
  await box.fill('星巴克新街口');
  await page.getByRole('listbox', { name: '项目管理' }).getByRole('option', { name: /星巴克新街口/ }).first().getByRole('link').click();
  await page.waitForURL((u) => u.pathname === '/project/index' && u.searchParams.has('id'));
  await page.getByRole('status').filter({ hasText: '仅显示搜索选中的一条记录' }).waitFor();
  check(await page.locator('.crud .table tbody tr').count() === 1, 'one row');
  await page.getByRole('button', { name: '显示全部' }).click();
  await page.waitForURL((u) => u.pathname === '/project/index' && !u.searchParams.has('id'));
  await page.waitForFunction(() => document.querySelectorAll('.crud .table tbody tr').length > 1);
  // Enter opens the first match (a menu when one matches).
  await page.getByRole('banner').getByRole('button', { name: '菜单搜索' }).click();
  await box.fill('参数');
  await page.getByRole('option', { name: /参数管理/ }).waitFor();
  await box.press('Enter');
  await waitPath(page, '/system/param');
});

test('system status (platform): the search index is shown with its documents and lag', async (t) => {
  const { page } = await session(t, { host: TENANTS[0].host });
  await visit(page, '/monitor/status');
  await page.getByRole('rowheader', { name: '搜索索引' }).waitFor();
  await page.getByRole('cell', { name: /\d+ 条，/ }).waitFor({ timeout: 15000 });
  await page.getByRole('rowheader', { name: '索引落后' }).waitFor();
  // The write-ahead log's checkpoints: how long the last held writes and took to reach the disk.
  await page.getByRole('rowheader', { name: '检查点', exact: true }).waitFor();
  // The logs' writer is said to run (a failure would say when and why).
  await page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: '日志写入', exact: true }) }).getByRole('cell', { name: '运行中' }).waitFor();
  await shot(page, 'status-index');
});

test('list keyword: the user list finds by pinyin and by fragment', async (t) => {
  const { page } = await session(t, { host: EDU.host });
  await visit(page, '/system/user');
  const bar = page.locator('.crud-search');
  const list = page.waitForResponse((r) => r.url().includes('/api/blade-user/page') && r.url().includes('keyword=zw'));
  await bar.getByRole('searchbox', { name: '关键字' }).fill('zw');
  await bar.getByRole('button', { name: '搜索' }).click();
  check((await list).status() === 200, 'keyword list answered');
  await page.getByRole('row').filter({ hasText: '张伟' }).waitFor();
  await page.getByRole('row').filter({ hasText: '李娜' }).waitFor({ state: 'detached' });
  await shot(page, 'user-keyword');
  await bar.getByRole('searchbox', { name: '关键字' }).fill('李');
  await bar.getByRole('button', { name: '搜索' }).click();
  await page.getByRole('row').filter({ hasText: '李娜' }).waitFor();
  await page.getByRole('row').filter({ hasText: '张伟' }).waitFor({ state: 'detached' });
});


// ---------------------------------------------------------------- administration screens (issue 4 item 9)

/** Waits for the answer of an API call made by `action`; a 404 means the endpoint is not there yet. */
async function api(page, part, action) {
  const [r] = await Promise.all([page.waitForResponse((x) => x.url().includes(part), { timeout: STEP_MS }), action()]);
  check(r.status() !== 404, `PENDING: ${r.request().method()} ${part} answers 404 (server endpoint not there yet)`);
  return r;
}
/** Reloads the screen: its first rows come in the server's HTML (no loading table), then it hydrates. */
async function serverRows(page) {
  const res = await page.reload();
  const html = await res.text();
  check(!html.includes('aria-busy="true"'), 'the first rows are server-rendered, not a loading state');
  await hydrated(page);
}
const dialogNamed = (page, re) => page.getByRole('dialog', { name: re });
async function blurMessage(dlg, label, message) {
  await dlg.getByLabel(label).focus();
  await dlg.getByLabel(label).blur();
  await dlg.getByText(message, { exact: true }).waitFor();
}

test('header and desk: external links say 未配置 until the admin sets them in 参数管理, then open in a new tab', async (t) => {
  const { page } = await session(t, { host: TENANTS[2].host });
  await visit(page, '/wel/index');
  for (const name of ['意见反馈', '评价']) {
    check(await page.getByRole('banner').getByRole('button', { name: `${name}（未配置）` }).isVisible(), `${name} says it is not configured`);
  }
  check(await page.locator('.launcher .app-unset').filter({ hasText: '未配置' }).count() === 4, 'the four applications say 未配置');
  check((await page.content()).indexOf('example.com') < 0, 'no made-up address anywhere on the desk');
  const tn = TENANTS[2];
  for (const [key, value] of [['site.feedback', 'https://feedback.acme.cn'], ['site.appraise', 'https://survey.acme.cn'], ['site.app.erp', 'https://erp.acme.cn']]) {
    const r = await fetch(`http://127.0.0.1:${server.port}/api/blade-system/param/submit`, { method: 'POST', headers: { Authorization: BASIC, 'Tenant-Id': tn.id, 'Blade-Auth': 'bearer ' + t.user.access_token, 'Content-Type': 'application/json' }, body: JSON.stringify({ paramName: key, paramKey: key, paramValue: value }) });
    check(r.ok, `param ${key}: ${r.status}`);
  }
  await visit(page, '/wel/index');
  for (const [name, href] of [['意见反馈', 'https://feedback.acme.cn'], ['评价', 'https://survey.acme.cn']]) {
    const a = page.getByRole('banner').getByRole('link', { name });
    check(await a.getAttribute('href') === href, `${name} links to the tenant's setting`);
    check(await a.getAttribute('target') === '_blank', `${name} opens a new tab`);
  }
  check(await page.locator('.launcher a', { hasText: 'ERP' }).getAttribute('href') === 'https://erp.acme.cn', 'ERP opens the tenant\'s ERP');
  await shot(page, 'desk-links-configured');
});

for (const [path, menuName, host] of [['/system/dict', '系统字典', TENANTS[0].host], ['/system/dictbiz', '业务字典', TENANTS[2].host]]) {
  test(`dictionaries ${path}: add a parent and a child, blur messages, 880 dialog, sealed entries locked`, async (t) => {
    const { page } = await session(t, { host });
    await page.goto(path);
    await hydrated(page);
    await page.getByRole('table', { name: menuName }).waitFor();
    const parent = page.locator('.dict-parent');
    await serverRows(page);
    check(Math.abs((await parent.locator('th.col-action').boundingBox()).width - 150) <= 2, 'parent action column 150 wide');
    for (const h of ['序号', '字典编号', '字典名称', '封存']) await parent.getByRole('columnheader', { name: h, exact: true }).waitFor();
    check((await parent.getByRole('columnheader', { name: '字典排序' }).count()) === 0, 'sort hidden in the list');

    // Add a parent: the on-blur messages of SPEC §5; a dialog 880 wide that an outside click does not close.
    await parent.getByRole('button', { name: '新增', exact: true }).click();
    let dlg = dialogNamed(page, /新增/);
    await dlg.waitFor();
    check(Math.round((await dlg.boundingBox()).width) === 880, 'dialog 880 wide');
    await blurMessage(dlg, '字典编号', '请输入字典编号');
    await blurMessage(dlg, '字典名称', '请输入字典名称');
    await blurMessage(dlg, '字典排序', '请输入字典排序');
    check(await dlg.getByRole('switch', { name: '封存' }).getAttribute('aria-checked') === 'false', 'isSealed defaults to 0');
    await page.mouse.click(5, 400);
    check(await dlg.isVisible(), 'an outside click does not close the dialog');
    await shot(page, `dict${path.endsWith('biz') ? 'biz' : ''}-add-validation`);
    const code = 'zz_browser_' + path.slice(8);
    await dlg.getByLabel('字典编号').fill(code);
    await dlg.getByLabel('字典名称').fill('浏览器测试字典');
    await dlg.getByLabel('字典排序').fill('99');
    await api(page, '/submit', () => dlg.getByRole('button', { name: '保存' }).click());
    await toast(page, '新增成功').waitFor();
    const prow = parent.getByRole('row').filter({ hasText: code });
    await prow.waitFor();

    // Its entries: the child tree table, code and parent fixed on add.
    await api(page, '/child-list', () => prow.getByRole('button', { name: code }).click());
    const child = page.locator('.dict-child');
    await child.getByRole('table').waitFor();
    check(Math.abs((await child.locator('th.col-action').boundingBox()).width - 220) <= 2, 'child action column 220 wide');
    await child.getByRole('button', { name: '新增', exact: true }).click();
    dlg = dialogNamed(page, /新增/);
    check(await dlg.getByLabel('字典编号').isDisabled(), 'child code disabled on add');
    check(await dlg.getByLabel('字典编号').inputValue() === code, 'child code is the dictionary code');
    check(await dlg.getByLabel('上级字典').isDisabled(), 'parent disabled on add');
    await blurMessage(dlg, '字典键值', '请输入字典键值');
    await dlg.getByLabel('字典名称').fill('测试项');
    await dlg.getByLabel('字典键值').fill('1');
    await dlg.getByLabel('字典排序').fill('1');
    await dlg.getByRole('switch', { name: '封存' }).click();
    await shot(page, `dict${path.endsWith('biz') ? 'biz' : ''}-child-add`);
    await api(page, '/submit', () => dlg.getByRole('button', { name: '保存' }).click());
    await toast(page, '新增成功').waitFor();
    const crow = child.getByRole('row').filter({ hasText: '测试项' });
    await crow.waitFor();
    // Sealed (switched on above): edit and delete are refused in the UI.
    check(await crow.getByRole('button', { name: '编辑' }).isDisabled(), 'sealed entry: edit disabled');
    check(await crow.getByRole('button', { name: '删除' }).isDisabled(), 'sealed entry: delete disabled');
    await crow.getByRole('button', { name: '查看' }).click();
    await dialogNamed(page, /查看/).waitFor();
    await dialogNamed(page, /查看/).getByRole('button', { name: '关闭' }).first().click();
    await shot(page, `dict${path.endsWith('biz') ? 'biz' : ''}-screen`);
  });
}

test('users: add with password and confirmation, grant a role, reset shows the one-time password once', async (t) => {
  const { page } = await session(t, { host: TENANTS[2].host });
  await page.goto('/system/user');
  await hydrated(page);
  await serverRows(page);
  await page.getByRole('complementary', { name: '机构树' }).waitFor();
  await page.getByRole('button', { name: '新增', exact: true }).click();
  const dlg = dialogNamed(page, /新增/);
  await dlg.waitFor();
  const account = 'zz_browser_user';
  await dlg.getByLabel('登录账号').fill(account);
  await dlg.getByLabel('用户昵称').fill('浏览器');
  await dlg.getByLabel('用户姓名').fill('浏览器用户');
  await dlg.locator('#f-password').fill('Tmp#2026a');
  await dlg.getByLabel('确认密码').fill('Tmp#2026b');
  await dlg.getByLabel('确认密码').blur();
  await dlg.getByText('两次密码输入不一致').waitFor();
  await shot(page, 'user-add-mismatch');
  await dlg.getByLabel('确认密码').fill('Tmp#2026a');
  // The role is required on add: saving without one shows the message and sends nothing.
  await dlg.getByRole('button', { name: '保存' }).click();
  await dlg.getByRole('alert').filter({ hasText: '请选择所属角色' }).waitFor();
  await dlg.getByLabel('所属角色').selectOption({ index: 1 });
  await api(page, '/api/blade-user/submit', () => dlg.getByRole('button', { name: '保存' }).click());
  await toast(page, '新增成功').waitFor();
  const row = page.getByRole('row').filter({ hasText: account });
  await row.waitFor();

  await row.getByRole('checkbox').check();
  const g = dialogNamed(page, '角色配置');
  await api(page, '/role/tree', () => page.getByRole('button', { name: '角色配置' }).click());
  await g.waitFor();
  await g.getByRole('treeitem').first().getByRole('checkbox').first().check();
  await api(page, '/api/blade-user/grant', () => g.getByRole('button', { name: '确定' }).click());
  await g.waitFor({ state: 'detached' });

  await page.getByRole('row').filter({ hasText: account }).getByRole('checkbox').check();
  await page.getByRole('button', { name: '密码重置' }).click();
  await page.getByRole('alertdialog').getByText('确定将选择账号密码重置?').waitFor();
  await api(page, '/reset-password', () => page.getByRole('alertdialog').getByRole('button', { name: '确定' }).click());
  const otp = dialogNamed(page, '一次性密码');
  await otp.getByText(/仅显示这一次/).waitFor();
  const pw = (await otp.locator('code.otp').first().innerText()).trim();
  check(pw.length >= 8, 'a one-time password is shown');
  await otp.getByRole('button', { name: '复制' }).click();
  await otp.getByRole('button', { name: '已复制' }).waitFor();
  await shot(page, 'user-one-time-password');
  await otp.getByRole('button', { name: '我已保存' }).click();
  await otp.waitFor({ state: 'detached' });
  check(!(await page.locator('body').innerText()).includes(pw), 'the password is gone once the dialog closes');

  // The user signs in with it: every page sends him to 设置新密码 until he has set his own; the change ends the
  // session and the sign-in page says so; the new password works, the one-time one no longer.
  const tn = TENANTS[2];
  const grant = async (password) => {
    const q = new URLSearchParams({ tenantId: tn.id, username: account, password: md5(password), grant_type: 'password', scope: 'all', type: 'account' });
    return (await fetch(`http://127.0.0.1:${server.port}/api/blade-auth/oauth/token?${q}`, { method: 'POST', headers: { Authorization: BASIC, 'Tenant-Id': tn.id } })).json();
  };
  const once = await grant(pw);
  check(once.access_token && once.must_change_password === true, `the one-time password signs in and must be replaced: ${JSON.stringify(once)}`);
  const ctx2 = await browser.newContext({ viewport: VIEWPORT, locale: 'zh-CN', baseURL: origin(tn.host), storageState: signedInState(tn.host, once) });
  t.contexts.push(ctx2);
  const p2 = await ctx2.newPage();
  await p2.goto('/system/param');
  await waitPath(p2, '/password');
  await hydrated(p2);
  const form = p2.getByRole('form', { name: '设置新密码' });
  await form.getByText(/由管理员设置/).waitFor();
  await form.getByRole('button', { name: '确定' }).click();
  check(await form.getByText('请输入内容').count() === 3, 'every empty field is marked');
  await form.getByLabel('原密码').fill(pw);
  await form.getByLabel('新密码').fill(pw);
  await form.getByLabel('确认密码').fill('Mine#2027');
  await form.getByRole('button', { name: '确定' }).click();
  await form.getByText('新密码不能与原密码相同').waitFor();
  await form.getByText('两次密码输入不一致').waitFor();
  await shot(p2, 'password-must-change');
  await form.getByLabel('新密码').fill('Mine#2026');
  await form.getByLabel('确认密码').fill('Mine#2026');
  await form.getByRole('button', { name: '确定' }).click();
  await waitPath(p2, '/login');
  await p2.getByRole('status').filter({ hasText: '密码已修改,请用新密码登录' }).waitFor();
  await shot(p2, 'password-changed-login');
  const mine = await grant('Mine#2026');
  check(mine.access_token && mine.must_change_password === false, `the new password signs in for good: ${JSON.stringify(mine)}`);
  check(!(await grant(pw)).access_token, 'the one-time password is gone');
});

test('roles: grant the param menu to a new role; its user sees 参数管理', async (t) => {
  const tn = TENANTS[2];
  const { page } = await session(t, { host: tn.host });
  await page.goto('/authority/role');
  await hydrated(page);
  await serverRows(page);
  await page.getByRole('button', { name: '新增', exact: true }).click();
  const dlg = dialogNamed(page, /新增/);
  await blurMessage(dlg, '角色名称', '请输入角色名称');
  await dlg.getByLabel('角色名称').fill('参数员');
  await dlg.getByLabel('角色别名').fill('zz_param_clerk');
  await api(page, '/role/submit', () => dlg.getByRole('button', { name: '保存' }).click());
  await toast(page, '新增成功').waitFor();
  const row = page.getByRole('row').filter({ hasText: 'zz_param_clerk' });
  // The tree is asked for when the dialog opens: waited for from the click (waiting from the dialog's appearance
  // missed an answer that came first, once in a full run).
  await api(page, '/menu/grant-tree', () => row.getByRole('button', { name: '权限设置' }).click());
  const g = dialogNamed(page, '权限设置');
  await g.waitFor();
  for (const tab of ['菜单权限', '数据权限', '接口权限']) await g.getByRole('tab', { name: tab }).waitFor();
  await g.getByRole('button', { name: '+', exact: true }).click();
  await g.getByRole('checkbox', { name: '参数管理', exact: true }).check();
  await shot(page, 'role-grant');
  await api(page, '/role/grant', () => g.getByRole('button', { name: '确定' }).click());
  await g.waitFor({ state: 'detached' });

  // A user with that role (created through the API) sees the menu.
  const admin = t.user;
  const call = async (path, body) => {
    const r = await fetch(`http://127.0.0.1:${server.port}${path}`, { method: 'POST', headers: { Authorization: BASIC, 'Tenant-Id': tn.id, 'Blade-Auth': 'bearer ' + admin.access_token, 'Content-Type': 'application/json' }, body: body && JSON.stringify(body) });
    const b = await r.json();
    check(b.code === 200, `${path}: ${JSON.stringify(b)}`);
    return b.data;
  };
  const list = await (await fetch(`http://127.0.0.1:${server.port}/api/blade-system/role/list?roleAlias=zz_param_clerk`, { headers: { Authorization: BASIC, 'Tenant-Id': tn.id, 'Blade-Auth': 'bearer ' + admin.access_token } })).json();
  const flat = []; const walk = (xs) => (xs || []).forEach((x) => { flat.push(x); walk(x.children); }); walk(list.data);
  const role = flat.find((x) => x.roleAlias === 'zz_param_clerk');
  await call('/api/blade-user/submit', { account: 'zz_clerk', name: 'clerk', realName: '参数员甲', password: PASSWORD, password2: PASSWORD, roleId: role.id });
  const users = await (await fetch(`http://127.0.0.1:${server.port}/api/blade-user/page?account=zz_clerk`, { headers: { Authorization: BASIC, 'Tenant-Id': tn.id, 'Blade-Auth': 'bearer ' + admin.access_token } })).json();
  const uid = users.data.records.find((u) => u.account === 'zz_clerk').id;
  await call(`/api/blade-user/grant?userIds=${uid}&roleIds=${role.id}`);
  const clerk = await token(tn.id, 'zz_clerk');
  const ctx2 = await browser.newContext({ viewport: VIEWPORT, locale: 'zh-CN', baseURL: origin(tn.host), storageState: signedInState(tn.host, clerk) });
  t.contexts.push(ctx2);
  const p2 = await ctx2.newPage();
  await visit(p2, '/wel/index');
  await sidebar(p2).getByRole('button', { name: '系统管理' }).click();
  await sidebar(p2).getByRole('link', { name: '参数管理' }).waitFor();
  check((await sidebar(p2).getByRole('link', { name: '用户管理' }).count()) === 0, 'only the granted menu');
  await shot(p2, 'role-granted-sidebar');
});

test('menus: add a child menu, it appears in the tree', async (t) => {
  const { page } = await session(t, { host: TENANTS[0].host });
  await page.goto('/system/menu');
  await hydrated(page);
  await serverRows(page);
  const sys = page.getByRole('row').filter({ has: page.getByRole('cell', { name: 'system', exact: true }) }).first();
  await sys.getByRole('button', { name: '新增子项' }).click();
  const dlg = dialogNamed(page, /新增/);
  await blurMessage(dlg, '菜单名称', '请输入菜单名称');
  await dlg.getByLabel('菜单名称').fill('浏览器测试菜单');
  await dlg.getByLabel('菜单编号').fill('zz_browser_menu');
  await dlg.getByLabel('菜单别名').fill('menu');
  await dlg.getByLabel('路由地址').fill('/zz/browser');
  await dlg.getByRole('radio', { name: '菜单' }).check();
  await api(page, '/menu/submit', () => dlg.getByRole('button', { name: '保存' }).click());
  await toast(page, '新增成功').waitFor();
  // The tree reloads after the save; an expand clicked while it does can be lost (1 run in 3 locally, 2026-12-02:
  // to look at), so expand until the new row shows, as a person would click again.
  const row = page.getByRole('row').filter({ hasText: 'zz_browser_menu' });
  for (let i = 0; i < 20 && !(await row.count()); i++) {
    const caret = page.getByRole('button', { name: '展开 系统管理' }).first();
    if (await caret.count()) await caret.click();
    await page.waitForTimeout(400);
  }
  await row.first().waitFor();
  await shot(page, 'menu-tree');
});

// ---------------------------------------------------------------- runner

test('projects: add with company picker, a contract, bind it on the project page, contract record', async (t) => {
  const { page } = await session(t);
  await visit(page, '/project/index');
  await page.getByRole('columnheader', { name: '项目名称' }).waitFor();
  const rows = await page.locator('tbody tr').count();
  check(rows === 6, `project list pages by 6 (spec §9), got ${rows}`);
  await shot(page, 'project-list');

  // Add: the company is picked by typing part of its name.
  await page.getByRole('button', { name: '新增', exact: true }).click();
  let dlg = page.getByRole('dialog', { name: /新增/ });
  await dlg.waitFor();
  await dlg.getByLabel('项目名称').fill('浏览器测试 河西CBD办公楼精装');
  await dlg.getByLabel('所属公司').click();
  await dlg.getByLabel('所属公司').fill('南京');
  await dlg.getByRole('option', { name: '南京分公司' }).click();
  await dlg.getByLabel('业务单元').selectOption('TOB');
  await dlg.getByLabel('开始时间').fill('2026-11-23');
  await shot(page, 'project-add');
  await dlg.getByRole('button', { name: '保存' }).click();
  await toast(page, '新增成功').waitFor();
  const row = page.getByRole('row').filter({ hasText: '河西CBD办公楼精装' });
  await row.waitFor();
  check((await row.innerText()).includes('南京分公司'), 'the list shows the company by name');

  // A contract, amount in yuan with cents.
  await visit(page, '/contract/index');
  await page.getByRole('button', { name: '新增', exact: true }).click();
  dlg = page.getByRole('dialog', { name: /新增/ });
  await dlg.getByLabel('合同名称').fill('河西CBD精装施工合同');
  await dlg.getByLabel('签约方').fill('河西CBD置业');
  await dlg.getByLabel('合同金额(元)').fill('1.234');
  await dlg.getByLabel('合同金额(元)').blur();
  await dlg.getByText('请输入金额,最多两位小数').waitFor();
  await dlg.getByLabel('合同金额(元)').fill('568000.5');
  await dlg.getByRole('button', { name: '保存' }).click();
  await toast(page, '新增成功').waitFor();
  await page.getByRole('row').filter({ hasText: '河西CBD精装施工合同' }).getByText('568,000.50').waitFor();

  // The project page: bind the contract, it shows with its amount.
  await visit(page, '/project/index');
  await page.getByRole('row').filter({ hasText: '河西CBD办公楼精装' }).getByRole('link', { name: '详情' }).click();
  await page.waitForURL((u) => u.pathname.startsWith('/project/detail/XM'));
  await page.getByRole('heading', { name: /河西CBD办公楼精装/ }).waitFor();
  await page.getByRole('button', { name: '绑定合同' }).click();
  await page.getByRole('group', { name: '可绑定的合同' }).getByRole('button', { name: /河西CBD精装施工合同/ }).click();
  await toast(page, '绑定成功').waitFor();
  const contracts = page.getByRole('table', { name: '合同' });
  await contracts.getByRole('cell', { name: '¥568,000.50' }).waitFor();
  await shot(page, 'project-detail');

  // The contract's page: its record shows the binding with who did it.
  await contracts.getByRole('link', { name: /^HT/ }).click();
  await page.waitForURL((u) => u.pathname.startsWith('/contract/detail/HT'));
  const ops = page.getByRole('table', { name: '操作记录' });
  await ops.getByText('所属项目').waitFor();
  check((await ops.locator('tbody tr').count()) === 2, 'created and bound');
  await shot(page, 'contract-detail');
});

test('constructs and workers: demo constructs in every status; worker ID numbers masked', async (t) => {
  const { page } = await session(t);
  await visit(page, '/construct/index?size=30');
  await page.getByRole('columnheader', { name: '施工状态' }).waitFor();
  const text = await page.locator('tbody').innerText();
  for (const s of ['待勘察', '待派单', '施工中', '已完工']) check(text.includes(s), `a construct ${s}`);
  await shot(page, 'construct-list');
  await visit(page, '/worker/index');
  await page.getByRole('columnheader', { name: '身份证号' }).waitFor();
  const ids = await page.locator('tbody').innerText();
  check(/3201\*{10}/.test(ids) && !/320110/.test(ids), 'ID numbers are masked');
  await shot(page, 'worker-list');
});

test('buildings and progress: import rooms watching the progress bar; report a node on the progress page', async (t) => {
  const { page } = await session(t);
  // The template, as a user downloads it (four example rooms in two buildings).
  const tr = await fetch(`http://127.0.0.1:${server.port}/api/blade-scm/building/info/template`, { headers: { 'Blade-Auth': `bearer ${t.user.access_token}` } });
  check(tr.status === 200, `template: ${tr.status}`);
  const xlsx = Buffer.from(await tr.arrayBuffer());
  await visit(page, '/project/detail/XM20260302-0003');
  const card = page.locator('.card').filter({ has: page.getByRole('heading', { name: /^楼栋/ }) });
  await card.getByText('暂无楼栋').waitFor();
  await card.getByRole('button', { name: '导入楼栋' }).click();
  const dlg = dialogNamed(page, /导入楼栋/);
  await dlg.getByLabel('Excel 文件').setInputFiles({ name: '楼栋.xlsx', mimeType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', buffer: xlsx });
  await api(page, '/building/info/import', () => dlg.getByRole('button', { name: '开始导入' }).click());
  const bar = dlg.getByRole('progressbar', { name: '导入进度' });
  await bar.waitFor();
  await dlg.getByText(/新增 4 间/).waitFor();
  check(await bar.getAttribute('aria-valuenow') === '100', 'the bar ends at 100%');
  await shot(page, 'building-import');
  await dlg.getByRole('button', { name: '完成' }).click();
  await card.getByRole('cell', { name: '2栋' }).waitFor();
  check((await card.innerText()).includes('2 栋 · 4 间'), 'the card counts buildings and rooms');

  // The first demo construct is under construction: 1# is at 木作 30%.
  t.allow.push(/status of 400.*speed\/progress\/worker\/task\/data/); // the refused report below
  await visit(page, '/process/detail/SG20260108-0001');
  const matrix = page.getByRole('table', { name: '楼栋进度矩阵' });
  await matrix.waitFor();
  await page.getByRole('list', { name: '节点时间线' }).waitFor();
  await shot(page, 'process-detail');
  await matrix.getByRole('button', { name: '2# 油漆 0%' }).click();
  let td = dialogNamed(page, /2# · 油漆/);
  await td.getByLabel('完成度(%)').fill('20');
  await td.getByRole('button', { name: '填报进度' }).click();
  await toast(page, /请先完成 2# 的「木作」节点/).waitFor();
  await td.locator('.btn', { hasText: '关闭' }).click();
  await matrix.getByRole('button', { name: '1# 木作 30%' }).click();
  td = dialogNamed(page, /1# · 木作/);
  await td.getByRole('table', { name: '填报记录' }).getByText('按节点填报').waitFor();
  await td.getByLabel('完成度(%)').fill('60');
  await td.getByLabel('说明').fill('吊顶龙骨完成');
  await td.getByRole('button', { name: '填报进度' }).click();
  await toast(page, '进度已填报').waitFor();
  await matrix.getByRole('button', { name: '1# 木作 60%' }).waitFor();
  await shot(page, 'process-reported');
  // A task is given to a worker of the crew (no screen did it; the tasks of a new 施工单 stayed without one).
  await matrix.getByRole('button', { name: '2# 油漆 0%' }).click();
  td = dialogNamed(page, /2# · 油漆/);
  await td.getByLabel('负责工人').click();
  const first = td.getByRole('option').first();
  await first.waitFor();
  const who = (await first.innerText()).trim().split(/\s+/)[0]; // the name, before its trade and crew
  await first.click();
  await toast(page, `已指定 ${who} 负责`).waitFor();
  await td.locator('.btn', { hasText: '关闭' }).click();
  check((await matrix.getByRole('button', { name: '2# 油漆 0%' }).innerText()).includes(who), `the matrix names ${who} on 2# 油漆`);
});

test('a new construct for a project without a free contract offers the way to one (no dead end)', async (t) => {
  const { page } = await session(t);
  const S = '/api/blade-scm';
  const company = (await bladeCall(t, 'POST', `${S}/company/list`, { size: 1 })).records[0];
  const p = await bladeCall(t, 'POST', `${S}/project/add`, { projectName: '新街口写字楼 18F 装修', projectCompanyId: company.id, businessUnit: 1, startTime: '2026-12-01', address: '南京市玄武区新街口' });
  const project = (await bladeCall(t, 'POST', `${S}/project/detail/${p.id}`));
  await visit(page, `/project/detail/${project.projectCode}`);
  await page.getByRole('button', { name: '新建施工单' }).click();
  await page.waitForURL((u) => u.pathname === '/construct/info');
  const form = page.getByRole('form', { name: '施工单' });
  await form.getByText('该项目没有未分配的合同').waitFor({ state: 'attached' });
  await form.getByRole('link', { name: '到项目页新建或绑定合同' }).click();
  await waitPath(page, `/project/detail/${project.projectCode}`);
  await shot(page, 'construct-no-contract-way');
});

test('construct page: a new construct from the project page through dispatch to construction, a measure with rooms, server-rendered', async (t) => {
  const { page } = await session(t);
  const S = '/api/blade-scm';
  // Set-up through the API: a signed contract bound to a demo project (binding on the page has its own test).
  const project = (await bladeCall(t, 'POST', `${S}/project/list`, { projectCode_equal: 'XM20260302-0003', size: 1 })).records[0];
  const c = await bladeCall(t, 'POST', `${S}/contract/add`, { contractName: '悦府软装二期施工合同', partyName: '华润置地', contractAmount: '186000.00' });
  await bladeCall(t, 'POST', `${S}/contract/update`, { id: c.id, contractStatus: 1, signDate: '2026-11-20' });
  await bladeCall(t, 'POST', `${S}/project/contract/bind`, { projectId: project.id, contractIds: c.id });

  await visit(page, '/project/detail/XM20260302-0003');
  await page.getByRole('button', { name: '新建施工单' }).click();
  await page.waitForURL((u) => u.pathname === '/construct/info');
  const form = page.getByRole('form', { name: '施工单' });
  check((await form.getByLabel('所属项目').inputValue()).includes('华润悦府'), 'the project comes chosen');
  const opt = form.getByLabel('所属合同').locator('option', { hasText: '悦府软装二期施工合同' });
  await opt.waitFor({ state: 'attached' });
  await form.getByLabel('所属合同').selectOption(await opt.getAttribute('value'));
  await form.getByLabel('施工内容').fill('样板间软装二期');
  await form.getByLabel('计划开工').fill('2026-12-01');
  await form.getByLabel('计划完工').fill('2026-11-01');
  await form.getByRole('button', { name: '创建施工单' }).click();
  await form.getByText('计划完工不能早于计划开工').waitFor();
  await form.getByLabel('计划完工').fill('2027-01-15');
  await form.getByRole('button', { name: '创建施工单' }).click();
  await toast(page, '施工单已创建').waitFor();
  await page.waitForURL((u) => /^\/construct\/info\/SG\d{8}-\d{4}\/edit\/crew$/.test(u.pathname));
  const code = pathOf(page).split('/')[3];
  await page.getByRole('heading', { name: /样板间软装二期/ }).getByText('待勘察').waitFor();

  // The new construct is its project's manager's (to dispatch needs one); another replaces him only once asked.
  t.allow.push(/status of 400/);
  const projectManager = String(project.managerName || (await bladeCall(t, 'POST', `${S}/project/detail/${project.id}`)).managerName || '');
  check(projectManager, 'the demo project has a manager');
  await page.locator('.bind-box').first().getByText(`项目经理:${projectManager}`).waitFor();
  check(await page.getByRole('list', { name: '施工状态' }).getByText('需先在「班组」指定项目经理').count() === 0, 'nothing missing for dispatch');
  const mgr = page.locator('#k-manager');
  await mgr.click();
  await mgr.fill('管理');
  await page.getByRole('option', { name: '管理员' }).first().click();
  const first = dialogNamed(page, /提示/);
  await first.getByText(`将项目经理由 ${projectManager} 改为 管理员？`).waitFor();
  await first.getByRole('button', { name: '确定' }).click();
  // (Gone, not closing: while it closes it still holds the focus, and takes it back to the picker when it goes.)
  await first.waitFor({ state: 'detached' });
  await toast(page, '已指定项目经理').waitFor();
  await page.locator('.bind-box').first().getByText('项目经理:管理员').waitFor();
  // Cancelled, 管理员 stays.
  await mgr.click();
  await mgr.fill('张伟');
  await page.getByRole('option', { name: /张伟/ }).first().click();
  const replace = dialogNamed(page, /提示/);
  await replace.getByText('将项目经理由 管理员 改为 张伟？').waitFor();
  await shot(page, 'construct-manager-replace');
  await replace.getByRole('button', { name: '取消' }).click();
  await replace.waitFor({ state: 'detached' });
  await sleep(300);
  const kept = (await bladeCall(t, 'POST', `${S}/construct/list`, { constructCode_equal: code, size: 1 })).records[0];
  check(String(kept.managerId) === String(t.user.user_id) && (await page.locator('.bind-box').first().innerText()).includes('项目经理:管理员'), `a cancelled replacement leaves the manager (${kept.managerId})`);
  await page.getByRole('button', { name: '转为待派单' }).click();
  await toast(page, '状态已更新').waitFor();
  await page.getByRole('heading', { name: /样板间软装二期/ }).getByText('待派单').waitFor();
  // 派单 is binding a crew: from another tab the button opens 班组.
  await page.getByRole('tab', { name: '基本信息' }).click();
  await page.getByRole('button', { name: '派单', exact: true }).click();
  await page.getByRole('tab', { name: '班组', selected: true }).waitFor();
  check(pathOf(page).endsWith('/crew'), `派单 opened the crew tab (${pathOf(page)})`);

  // Construction needs a crew: without one 开始施工 says so at once (no confirmation the server would refuse),
  // then a worker is bound. 开始施工 cannot be undone: once it can, it asks first.
  const confirmStart = async () => {
    await page.getByRole('button', { name: '开始施工' }).click();
    await dialogNamed(page, /提示/).getByRole('button', { name: '确定' }).click();
  };
  const blockedStart = async (why) => {
    await page.getByRole('button', { name: '开始施工' }).click();
    await toast(page, why).waitFor();
    check(await dialogNamed(page, /提示/).count() === 0, 'no confirmation for a start that cannot happen');
  };
  await blockedStart('需先绑定班组或登记点工');
  const wk = page.locator('#k-worker');
  await wk.click();
  await wk.fill('马志');
  await page.getByRole('option', { name: '马志强' }).click();
  await toast(page, '已绑定').waitFor();
  await page.getByRole('table', { name: '施工班组' }).getByRole('cell', { name: '马志强' }).waitFor();
  // The crew goes for approval (人工组织审批): while it is pending the start is refused with the reason.
  await page.getByRole('tab', { name: '审批' }).click();
  await page.getByLabel('申请说明').fill('班组已齐,申请开工');
  await page.getByRole('button', { name: '提交人工组织审批' }).click();
  await toast(page, '已提交审批').waitFor();
  await blockedStart('人工组织审批通过后才能开始施工');
  const ap = (await session(t)).page;
  await visit(ap, '/approval/index');
  const task = ap.getByRole('table', { name: '审批任务' }).getByRole('row').filter({ hasText: code }).first();
  await task.getByRole('button', { name: '审批' }).click();
  await ap.waitForURL(/\/approval\/detail\?taskId=/);
  await ap.getByLabel('审批意见').fill('同意开工');
  await ap.getByRole('button', { name: '通过', exact: true }).click();
  await toast(ap, '已通过').waitFor();
  await page.reload();
  await hydrated(page);
  await confirmStart();
  await toast(page, '状态已更新').waitFor();
  await page.getByRole('heading', { name: /样板间软装二期/ }).getByText('施工中').waitFor();
  await page.getByRole('button', { name: '施工进度' }).waitFor();
  await shot(page, 'construct-crew');

  // 点工: each entry is listed with its day, rate and work, and one entered by mistake is removed.
  await page.getByRole('tab', { name: '点工' }).click();
  const dw = page.getByRole('form', { name: '登记点工' });
  await dw.locator('#k-dayworker').fill('马志');
  await page.getByRole('option', { name: /马志强/ }).click();
  await dw.getByLabel('日期').fill('2026-11-25');
  await dw.getByLabel('日工价(元)').fill('300');
  await dw.getByLabel('工作内容').fill('拆除旧吊顶');
  await dw.getByRole('button', { name: '登记' }).click();
  await toast(page, '点工已登记').waitFor();
  const entries = page.getByRole('table', { name: '点工明细' });
  const entry = entries.getByRole('row').filter({ hasText: '拆除旧吊顶' });
  await entry.getByRole('cell', { name: '2026-11-25' }).waitFor();
  await shot(page, 'construct-daywork');
  await entry.getByRole('button', { name: '删除' }).click();
  await dialogNamed(page, /提示/).getByRole('button', { name: '确定' }).click();
  await toast(page, '点工已删除').waitFor();
  await entries.getByText('暂无点工').waitFor();

  // A measure: rooms in millimetres, the floor area as you type and exact once saved.
  await page.getByRole('tab', { name: '量房' }).click();
  check(pathOf(page) === `/construct/info/${code}/edit/measure`, 'the tab is in the address');
  await page.getByRole('button', { name: '新增量房' }).click();
  const dlg = dialogNamed(page, /新增量房/);
  await dlg.getByLabel('量房日期').fill('2026-11-23');
  await dlg.getByLabel('量房人').fill('朱刚');
  await dlg.getByLabel('第 1 个房间长(mm)').fill('5200');
  await dlg.getByLabel('第 1 个房间宽(mm)').fill('4100');
  await dlg.getByRole('button', { name: '添加房间' }).click();
  await dlg.getByLabel('第 2 个房间名称').fill('主卧');
  await dlg.getByLabel('第 2 个房间长(mm)').fill('3900');
  await dlg.getByLabel('第 2 个房间宽(mm)').fill('3500');
  await dlg.getByText('共 2 间,地面面积约 34.97 ㎡').waitFor();
  await shot(page, 'construct-rooms');
  await dlg.getByRole('button', { name: '保存' }).click();
  await toast(page, '已保存').waitFor();
  const measures = page.getByRole('table', { name: '量房' });
  await measures.getByRole('cell', { name: '34.97' }).waitFor();
  await measures.getByRole('button', { name: '提交审批' }).waitFor();

  // The page's first screen comes from the server with the construct in it (not a loading state).
  const res = await page.reload();
  const html = await res.text();
  check(html.includes('样板间软装二期') && html.includes('马志强') && !html.includes('aria-busy="true"'), 'the construct page is server-rendered with its data');
  await hydrated(page);
  await page.getByRole('table', { name: '量房' }).getByRole('cell', { name: '34.97' }).waitFor();
  await shot(page, 'construct-info');
});

test('contract ledger: balances from entries, a receipt posted and a mistyped one corrected by reversal; receivables overdue', async (t) => {
  const { page } = await session(t);
  await visit(page, '/finance/contractLedger/index');
  await page.getByRole('columnheader', { name: '未收余额(元)' }).waitFor();
  await shot(page, 'ledger-list');
  // A project chosen in the filter bar keeps its name after a reload, also when no row can name it (a project
  // without a ledger): the box asks the title of the address's id.
  {
    const projects = (await bladeCall(t, 'GET', '/api/blade-system/lookup?resource=project&size=50')).records;
    const ledgers = (await bladeCall(t, 'GET', '/api/blade-scm/contractledger/list?current=1&size=200')).records;
    const bare = projects.find((p) => !ledgers.some((l) => String(l.projectId) === String(p.id)));
    check(!!bare, 'the demo has a project without a ledger');
    await visit(page, `/finance/contractLedger/index?projectId_equal=${bare.id}`);
    await page.waitForFunction((n) => document.querySelector('.crud-search [role=combobox]')?.value === n, bare.title);
    await visit(page, '/finance/contractLedger/index');
    await page.getByRole('columnheader', { name: '未收余额(元)' }).waitFor();
  }
  // The demo ledger of an executing contract (its first nodes received, one receipt corrected).
  const row = page.getByRole('row').filter({ hasText: 'HT20261012-0021' });
  await row.getByRole('link', { name: '详情' }).click();
  await page.waitForURL((u) => u.pathname === '/finance/contractLedger/detail');
  const facts = page.locator('.facts');
  await page.getByRole('table', { name: '收款计划' }).getByRole('cell', { name: '中期款' }).waitFor();
  const entries = page.getByRole('table', { name: '台账分录' });
  await entries.getByText('冲销分录').waitFor();
  await entries.getByText('已冲销').waitFor();
  const outstanding = async () => (await facts.locator('div', { hasText: '未收余额' }).locator('dd').innerText()).trim();
  const before = await outstanding();

  // A receipt typed wrong, then corrected: the balance follows, the original stays.
  await page.getByRole('button', { name: '登记收款', exact: true }).click();
  let dlg = dialogNamed(page, /登记收款/);
  await dlg.getByLabel('金额(元)').fill('1000.005');
  await dlg.getByRole('button', { name: '记账' }).click();
  await dlg.getByText('请输入金额,最多两位小数').waitFor();
  await dlg.getByLabel('金额(元)').fill('10000');
  await dlg.getByRole('button', { name: '记账' }).click();
  await toast(page, '已记账').waitFor();
  await page.waitForFunction((b) => !document.querySelector('.facts')?.textContent?.includes(b), before);
  const first = entries.locator('tbody tr').first();
  await first.getByRole('cell', { name: '¥10,000.00', exact: true }).waitFor(); // the new receipt heads the entries
  await first.getByRole('button', { name: '更正' }).click();
  dlg = dialogNamed(page, /更正分录/);
  await dlg.getByLabel(/正确金额/).fill('1000');
  await dlg.getByLabel('更正原因').fill('多录了一个零');
  await dlg.getByRole('button', { name: '冲销并更正' }).click();
  await toast(page, '已冲销更正').waitFor();
  await entries.getByRole('cell', { name: '-¥10,000.00' }).waitFor();
  await shot(page, 'ledger-detail');

  // Receivables: overdue nodes first, a receipt recorded from the list.
  await visit(page, '/finance/receivables');
  const table = page.getByRole('table', { name: '应收款' });
  await table.getByText(/已逾期 \d+ 天/).first().waitFor();
  // Every row on one line (dates, codes, 已逾期 N 天 and the button never break), and a pager with the total.
  const heights = await table.locator('tbody tr').evaluateAll((rows) => rows.map((r) => r.getBoundingClientRect().height));
  const line = await table.locator('tbody td').first().evaluate((td) => parseFloat(getComputedStyle(td).lineHeight) || 22);
  check(heights.every((h) => h < line * 2 + 8), `a receivables row breaks over two lines: ${heights.join(', ')}`);
  await page.getByText(/共 \d+ 条/).waitFor();
  await shot(page, 'receivables');
});

test('project cost and replay: budget against actual as a chart with the gross margin; a replay item added and closed', async (t) => {
  const { page } = await session(t);
  await visit(page, '/bim/projectcost');
  await page.getByRole('columnheader', { name: '预算(元)' }).waitFor();
  await page.getByRole('row').filter({ hasText: '主材及辅材' }).first().getByRole('link', { name: '详情' }).click();
  await page.waitForURL((u) => u.pathname.startsWith('/bim/projectcost/detail/'));
  await page.getByRole('img', { name: '成本预算与实际对比图' }).waitFor();
  const cmp = page.getByRole('table', { name: '成本对比' });
  await cmp.getByRole('cell', { name: '材料费' }).waitFor();
  await cmp.getByRole('cell', { name: '仓库领料 + 手工登记' }).waitFor();
  check(/\d+\.\d{2}%/.test(await page.locator('.facts').innerText()), 'the gross margin is shown with two decimals');
  await shot(page, 'project-cost');

  await visit(page, '/replay/index');
  await page.getByRole('columnheader', { name: '复盘主题' }).waitFor();
  await page.locator('tbody tr').first().getByRole('link', { name: '详情' }).click();
  await page.waitForURL((u) => u.pathname.startsWith('/replay/detail/FP'));
  const items = page.getByRole('table', { name: '问题与改进' });
  await items.locator('tbody tr').first().waitFor();
  const form = page.getByRole('form', { name: '添加问题' });
  await form.getByLabel('发生了什么').fill('吊顶龙骨间距超规范,返工两天');
  await form.getByLabel('原因').fill('班组未按图施工');
  await form.getByLabel('改进措施').fill('隐蔽工程验收前拍照留档');
  await form.getByRole('button', { name: '添加' }).click();
  await toast(page, '已添加').waitFor();
  const row = items.getByRole('row').filter({ hasText: '吊顶龙骨间距超规范' });
  await row.getByRole('cell', { name: '待改进' }).waitFor();
  await row.getByRole('button', { name: '关闭' }).click();
  await row.getByRole('cell', { name: '已关闭' }).waitFor();
  await shot(page, 'replay-detail');
});

test('desk: 系统消息 lists the tenant\'s newest notices, a new one first, and opens 通知公告', async (t) => {
  const { page } = await session(t);
  await visit(page, '/wel/index');
  const card = page.locator('#desk-msg').locator('..');
  await card.getByRole('link', { name: '仓库月末盘点安排' }).waitFor(); // the demo's newest notice
  check((await card.locator('.tag.sample').count()) === 0, 'the messages are the tenant\'s own, not the sample');
  check(!(await card.innerText()).includes('系统将于周六'), 'no sample message beside the notices');
  const now = await page.evaluate(() => { const d = new Date(Date.now() + 8 * 3600_000); return d.toISOString().slice(0, 19).replace('T', ' '); });
  await bladeCall(t, 'POST', '/api/blade-desk/notice/submit', { title: '元旦放假安排', category: 1, releaseTime: now, content: '<p>1月1日放假一天。</p>' });
  await visit(page, '/wel/index');
  await card.getByRole('link', { name: '元旦放假安排' }).waitFor();
  check((await card.getByRole('link').first().innerText()) === '元旦放假安排', 'the newest notice comes first');
  await shot(page, 'desk-messages');
  // The notice clicked opens itself (not only the list it is in): read as text (its HTML is not shown as tags)
  // with its date and time.
  await card.getByRole('link', { name: '元旦放假安排' }).click();
  await waitPath(page, '/desk/notice');
  const view = dialogNamed(page, /查看/);
  await view.getByLabel('通知标题').waitFor();
  await page.waitForFunction(() => document.querySelector('[role=dialog] input')?.value === '元旦放假安排', null, { timeout: 10_000 });
  check((await view.getByLabel('通知内容').innerText()) === '1月1日放假一天。', `通知内容 reads ${await view.getByLabel('通知内容').innerText()}`);
  check((await view.getByLabel('通知日期').inputValue()) === now, `通知日期 shows ${await view.getByLabel('通知日期').inputValue()}`);
  await shot(page, 'notice-view');
  await view.getByRole('button', { name: '关闭' }).first().click();
  // Closed, the list stays at its own address (a reload does not open the notice again).
  await page.waitForURL((u) => u.pathname === '/desk/notice' && !u.searchParams.has('open'), { timeout: 10_000 });
  check(await dialogNamed(page, /查看/).count() === 0, 'the view closed');
  const row = page.getByRole('row').filter({ hasText: '元旦放假安排' });
  await row.waitFor();
  // Edited, the date keeps its time (a date box showed it empty).
  await row.getByRole('button', { name: '编辑' }).click();
  const edit = dialogNamed(page, /编辑/);
  check((await edit.getByLabel('通知日期').inputValue()).startsWith(now.replace(' ', 'T').slice(0, 16)), `the edit box holds ${await edit.getByLabel('通知日期').inputValue()}`);
});

test('work orders: raised from the top bar, replied to, resolved; urgent ones on the desk', async (t) => {
  const { page } = await session(t);
  await visit(page, '/wel/index');
  await page.locator('#desk-urgent').locator('..').getByText(/^工单 · /).first().waitFor(); // the demo's urgent orders of the admin
  await page.getByRole('banner').getByRole('link', { name: '新建工单' }).click();
  await waitPath(page, '/worklist/addworklist');
  await tagbar(page).getByRole('link', { name: '新建工单', exact: true }).waitFor(); // the tag says what the page says
  const form = page.getByRole('form', { name: '工单' });
  await form.getByRole('button', { name: '提交工单' }).click();
  await form.getByText('请填写标题').waitFor();
  await form.getByLabel('标题 *').fill('悦府样板间 主卧墙面开裂');
  await form.getByLabel('分类 *').selectOption({ index: 1 });
  await form.getByLabel('优先级').selectOption('3');
  await form.getByLabel('内容 *').fill('主卧东墙石膏线下方出现 40cm 裂缝,需查看基层。');
  await form.getByRole('button', { name: '提交工单' }).click();
  await toast(page, '工单已提交').waitFor();
  await page.waitForURL((u) => u.pathname.startsWith('/worklist/view/GD'));
  await page.getByRole('heading', { name: /主卧墙面开裂/ }).getByText('待处理').waitFor();
  await page.locator('#wo-reply').fill('明早安排油漆工上门切缝处理。');
  // Two files attached, one taken off again before sending; the thread names the one sent and links to it.
  const attach = page.getByLabel('添加附件');
  await attach.setInputFiles([
    { name: '裂缝照片.pdf', mimeType: 'application/pdf', buffer: Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n', 'latin1') },
    { name: '草稿.txt', mimeType: 'text/plain', buffer: Buffer.from('不要发送\n') },
  ]);
  const pending = page.locator('form').getByRole('list', { name: '附件' });
  await pending.getByRole('link', { name: /草稿\.txt/ }).waitFor();
  await pending.getByRole('button', { name: '移除 草稿.txt' }).click();
  await page.getByRole('button', { name: '回复', exact: true }).click();
  await toast(page, '已回复').waitFor();
  const thread = page.getByRole('list', { name: '回复' });
  await thread.getByText('明早安排油漆工上门切缝处理。').waitFor();
  const sent = thread.getByRole('link', { name: /裂缝照片\.pdf/ });
  await sent.waitFor();
  if ((await thread.getByText('草稿.txt').count()) !== 0) throw new Fail('a removed attachment was sent');
  const href = await sent.getAttribute('href');
  // The link opens for the signed-in browser (its session cookie goes with it), and for nobody else.
  const file = await page.evaluate(async (u) => { const r = await fetch(u); return { status: r.status, type: r.headers.get('content-type') ?? '' }; }, href);
  if (file.status !== 200 || !file.type.includes('pdf')) throw new Fail(`attachment ${href}: ${file.status}`);
  const stranger = await fetch(`http://127.0.0.1:${server.port}${href}`);
  if (stranger.status !== 401) throw new Fail(`attachment ${href} without a session: ${stranger.status}`);
  await page.getByRole('button', { name: '标记解决' }).click();
  await toast(page, '已标记解决').waitFor();
  await page.getByRole('heading', { name: /主卧墙面开裂/ }).getByText('已解决').waitFor();
  await shot(page, 'work-order');
  await visit(page, '/worklist/order');
  await page.getByRole('row').filter({ hasText: '主卧墙面开裂' }).getByRole('cell', { name: '已解决' }).waitFor();
});

test('an employee raises a work order for someone who can handle it, and resolves the one given to him', async (t) => {
  // 孙丽 gives 吴军 (员工: no worklist_order_edit) an order, as the top bar's form would.
  const pm = { user: await token('157270', 'sunli') };
  const wj = await token('157270', 'wujun');
  const cats = await bladeCall(pm, 'GET', '/api/blade-system/lookup?resource=worklist_category&size=10');
  const given = await bladeCall(pm, 'POST', '/api/blade-biz/worklist/order/submit', { title: '样板间踢脚线收口', categoryId: cats.records[0].id, priority: 3, content: '主卧踢脚线收口不齐,请拍照确认。', assigneeId: wj.user_id });
  const { page } = await session(t, { user: 'wujun' });
  await visit(page, '/wel/index');
  await page.getByRole('banner').getByRole('link', { name: '新建工单' }).click();
  await waitPath(page, '/worklist/addworklist');
  const form = page.getByRole('form', { name: '工单' });
  // The categories are his to choose (he does not manage them), and the 处理人 among those who can open work orders.
  await form.getByLabel('分类 *').locator('option', { hasText: '售后维修' }).waitFor({ state: 'attached' });
  await form.getByLabel('标题 *').fill('资料室复印机卡纸');
  await form.getByLabel('分类 *').selectOption({ label: '售后维修' });
  await form.getByLabel('内容 *').fill('二楼资料室复印机卡纸,请安排维修。');
  await form.getByLabel('处理人').fill('刘强');
  await form.getByText('无匹配记录').waitFor();
  await form.getByLabel('处理人').fill('孙');
  await form.getByRole('option', { name: /孙丽/ }).click();
  await form.getByRole('button', { name: '提交工单' }).click();
  await toast(page, '工单已提交').waitFor();
  await page.waitForURL((u) => u.pathname.startsWith('/worklist/view/GD'));
  // The order given to him: he takes it in hand and resolves it.
  await visit(page, `/worklist/view/${given.orderNo}`);
  await page.getByRole('button', { name: '开始处理' }).click();
  await toast(page, '已开始处理').waitFor();
  await page.getByRole('button', { name: '标记解决' }).click();
  await toast(page, '已标记解决').waitFor();
  await page.getByRole('heading', { name: /踢脚线收口/ }).getByText('已解决').waitFor();
  check(await page.getByRole('button', { name: '确认关闭' }).count() === 0, 'closing is for whoever raised it');
  await shot(page, 'role-employee-work-order');
  // A page he may not open says so (it stayed on 加载中… for a 仓管员).
  t.allow.push(/status of 403 \(Forbidden\) http:\/\/[^ ]+\/worklist\/order\/list$/);
  const { page: keeper } = await session(t, { user: 'liuqiang' });
  await visit(keeper, `/worklist/view/${given.orderNo}`);
  await keeper.getByRole('alert').getByText(/打不开/).waitFor();
});

test('documents keep their files: uploaded in the form, named, opened from 查看 (a typed 文件链接 before)', async (t) => {
  const { page } = await session(t, { user: 'wangfang' });
  await visit(page, '/doc/index');
  // The demo's documents have their files.
  const first = page.getByRole('row').nth(1);
  await first.getByRole('button', { name: '查看' }).click();
  let dlg = page.getByRole('dialog', { name: /查看/ });
  await dlg.getByRole('link', { name: /\.pdf$/ }).waitFor();
  await page.keyboard.press('Escape');
  await page.getByRole('button', { name: '新增', exact: true }).click();
  dlg = page.getByRole('dialog', { name: /新增/ });
  await dlg.getByLabel('文档名称').fill('主卧吊顶节点图');
  await dlg.getByLabel('所属项目').fill('华润');
  await dlg.getByRole('listbox').getByRole('option').first().click();
  await dlg.getByLabel('文档类别').selectOption({ index: 1 });
  await dlg.getByLabel('上传文件').setInputFiles({ name: '吊顶节点图.pdf', mimeType: 'application/pdf', buffer: Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n', 'latin1') });
  await dlg.getByRole('link', { name: /吊顶节点图\.pdf/ }).waitFor();
  await shot(page, 'doc-file-upload');
  await dlg.getByRole('button', { name: '保存' }).click();
  await toast(page, '新增成功').waitFor();
  await page.getByRole('row').filter({ hasText: '主卧吊顶节点图' }).getByRole('button', { name: '查看' }).click();
  const link = page.getByRole('dialog', { name: /查看/ }).getByRole('link', { name: /吊顶节点图\.pdf/ });
  await link.waitFor();
  const href = await link.getAttribute('href');
  const file = await page.evaluate(async (u) => (await fetch(u)).status, href);
  check(file === 200, `the document's file opens: ${file}`);
});

/** A Blade call from Node with the test's token (data set-up; the UI steps go through the page). */
async function bladeCall(t, method, path, body) {
  const r = await fetch(`http://127.0.0.1:${server.port}${path}`, {
    method, headers: { 'Blade-Auth': `bearer ${t.user.access_token}`, 'Content-Type': 'application/json', 'Tenant-Id': t.user.tenant_id },
    body: body ? JSON.stringify(body) : undefined,
  });
  const b = await r.json();
  if (b.code !== 200) throw new Fail(`${path}: ${JSON.stringify(b)}`);
  return b.data;
}

test('warehouse: an inbound order received, reviewed and put away; an outbound order released, picked and shipped', async (t) => {
  const { page } = await session(t);
  const W = '/api/blade-api/wms';
  const stores = await bladeCall(t, 'GET', `${W}/store/list?storeCode_equal=WH01`);
  const store = stores.records[0];
  const goods = (await bladeCall(t, 'GET', `${W}/goods/list?goodsName=LED筒灯&size=2`)).records;
  const rk = await bladeCall(t, 'POST', `${W}/order/rk/submit`, { storeId: store.id, orderType: 1 });
  await bladeCall(t, 'POST', `${W}/mxrk/submit`, { orderId: rk.id, goodsId: goods[0].id, expectedQty: '24', batch: 'B2611T' });
  await bladeCall(t, 'POST', `${W}/mxrk/submit`, { orderId: rk.id, goodsId: goods[1].id, expectedQty: '12' });

  // Goods below their safety stock are marked in the goods list.
  await visit(page, '/wms/goods');
  await page.getByRole('table').waitFor();
  await shot(page, 'wms-goods');

  await visit(page, `/wms/order/rk/detail/${rk.orderNo}`);
  const lines = page.getByRole('table', { name: '入库明细' });
  await lines.waitFor();
  await page.getByText('新建', { exact: true }).first().waitFor();
  // Receive both lines (the box holds what is still expected).
  for (let i = 2; i > 0; i--) {
    await api(page, '/received/save', () => lines.getByRole('button', { name: '收货', exact: true }).first().click());
    await page.waitForFunction((n) => [...document.querySelectorAll('table[aria-label="入库明细"] button')].filter((b) => b.textContent === '收货').length === n - 1, i);
  }
  await page.locator('.tag', { hasText: '收货中' }).waitFor();
  // Review: one line with 2 failed, the other all passed.
  await lines.getByLabel('不合格数量').first().fill('2');
  await lines.getByLabel('复核合格数量').first().fill('22');
  await api(page, '/review/save', () => lines.getByRole('button', { name: '复核合格' }).first().click());
  await toast(page, '复核已记录').waitFor();
  await page.waitForFunction(() => [...document.querySelectorAll('table[aria-label="入库明细"] button')].filter((b) => b.textContent === '复核合格').length === 1);
  await api(page, '/review/save', () => lines.getByRole('button', { name: '复核合格' }).first().click());
  await page.locator('.tag', { hasText: '复核中' }).waitFor();
  await page.getByRole('button', { name: '完成复核' }).click();
  await api(page, '/review/finish', () => dialogNamed(page, /提示/).getByRole('button', { name: '确定' }).click());
  await page.locator('.tag', { hasText: '待上架' }).waitFor();
  // Put away into the suggested bins.
  const bin = lines.getByLabel('储位').first();
  await page.waitForFunction(() => [...document.querySelectorAll('input[aria-label="储位"]')].every((i) => i.value !== ''));
  check((await bin.inputValue()) !== '', 'a bin is suggested');
  await shot(page, 'wms-putaway');
  await api(page, '/up/save', () => lines.getByRole('button', { name: '上架', exact: true }).first().click());
  await toast(page, '上架成功').waitFor();
  await page.waitForFunction(() => [...document.querySelectorAll('table[aria-label="入库明细"] button')].filter((b) => b.textContent === '上架').length === 1);
  await api(page, '/up/save', () => lines.getByRole('button', { name: '上架', exact: true }).first().click());
  await page.locator('.tag', { hasText: '已完成' }).waitFor();
  check((await lines.innerText()).includes('22'), 'the put-away quantity shows');
  await shot(page, 'wms-inbound-done');
  // 收货 rows of orders past receiving cannot be ticked for 删除 (ui.removeWhen), nor taken by 全选.
  await visit(page, '/wms/received');
  await page.getByRole('table').locator('tbody tr').first().waitFor();
  const ticks = await page.evaluate(() => [...document.querySelectorAll('table tbody tr')].map((tr) => ({
    off: tr.querySelector('input[type=checkbox]')?.disabled, del: [...tr.querySelectorAll('button')].some((b) => b.textContent === '删除') })));
  check(ticks.length > 0 && ticks.every((r) => r.off === !r.del), 'a row can be ticked exactly when it can be removed: ' + JSON.stringify(ticks));
  check(ticks.some((r) => r.off), 'rows of finished orders cannot be ticked');
  if (ticks.some((r) => !r.off)) {
    await page.getByLabel('全选').check();
    check(await page.locator('tbody input[type=checkbox]:checked').count() === ticks.filter((r) => !r.off).length, '全选 takes the removable rows only');
  }

  // Outbound: release reserves, the pick list shows the bins, pick each, ship.
  const ck = await bladeCall(t, 'POST', `${W}/order/ck/submit`, { storeId: store.id, orderType: 1, consignee: '李工' });
  await bladeCall(t, 'POST', `${W}/mxck/submit`, { orderId: ck.id, goodsId: goods[0].id, qty: '10' });
  await visit(page, `/wms/order/ck/detail/${ck.orderNo}`);
  await page.getByRole('table', { name: '出库明细' }).waitFor();
  await api(page, '/order/ck/release', () => page.getByRole('button', { name: '释放(预留库存)' }).click());
  const picks = page.getByRole('table', { name: '拣货单' });
  await picks.getByRole('button', { name: '拣货' }).first().waitFor();
  await shot(page, 'wms-pick-list');
  for (let n = await picks.getByRole('button', { name: '拣货', exact: true }).count(); n > 0; n--) {
    await api(page, '/down/save', () => picks.getByRole('button', { name: '拣货', exact: true }).first().click());
    await page.waitForFunction((k) => [...document.querySelectorAll('button')].filter((b) => b.textContent === '拣货').length === k - 1, n);
  }
  await page.locator('.tag', { hasText: '已拣货' }).waitFor();
  await page.getByRole('button', { name: '确认发货' }).click();
  await api(page, '/order/ck/ship', () => dialogNamed(page, /提示/).getByRole('button', { name: '确定' }).click());
  await page.locator('.tag', { hasText: '已发货' }).waitFor();
  const shipped = page.locator('.facts > div', { has: page.locator('dt', { hasText: '实发数量' }) }).locator('dd');
  check(/^10 \S+$/.test(await shipped.innerText()), `the order says what left, in its unit: ${await shipped.innerText()}`);

  // Store access: a user's stores are picked by name (chips), not typed as ids.
  await visit(page, '/wms/userconfig');
  await page.getByRole('button', { name: '新增', exact: true }).click();
  const cfg = page.getByRole('dialog', { name: /新增/ });
  await cfg.waitFor();
  await cfg.getByLabel('可操作仓库').click();
  await cfg.getByRole('option', { name: '南京建材总仓' }).click();
  await cfg.getByLabel('可操作仓库').click();
  await cfg.getByRole('option', { name: '南京河西中转仓' }).click();
  await cfg.locator('.refs-picker .tag', { hasText: '南京河西中转仓' }).waitFor();
  check(await cfg.locator('.refs-picker .tag').count() === 2, 'two stores chosen');
  await shot(page, 'wms-userconfig');
  await cfg.getByRole('button', { name: '取消' }).click();

  // The stock card shows every move with the balance after it.
  await visit(page, `/wms/stock/card/${goods[0].id}`);
  const moves = page.getByRole('table', { name: '库存流水' });
  await moves.getByText(ck.orderNo).first().waitFor();
  // Its tab says which goods it is once a second card is open (it said 库存卡片 · 1 and · 2).
  await visit(page, `/wms/stock/card/${goods[1].id}`);
  await page.locator('.tags .tag', { hasText: `库存卡片 · ${goods[0].goodsCode}` }).waitFor();
  await page.locator('.tags .tag', { hasText: `库存卡片 · ${goods[1].goodsCode}` }).waitFor();
  await shot(page, 'wms-stock-card');
});

test('warehouse master data: export, the import template, an exported file imported over its records, a refused file; empty stock rows hidden; a count from the stock list', async (t) => {
  const { page } = await session(t);
  t.allow.push(/status of 400.*goods\/import/); // the refused file below
  await visit(page, '/wms/goods?goodsName=LED筒灯');
  await page.getByRole('table').waitFor();
  // Export the filter: the file the clerk gets.
  const [exp] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: '导出', exact: true }).click()]);
  const exported = await exp.path();
  check(exp.suggestedFilename() === '商品管理.xlsx', `export name ${exp.suggestedFilename()}`);
  await page.getByRole('button', { name: '导入', exact: true }).click();
  const dlg = dialogNamed(page, /导入商品管理/);
  const [tpl] = await Promise.all([page.waitForEvent('download'), dlg.getByRole('button', { name: '点击下载' }).click()]);
  check(/导入模板\.xlsx$/.test(tpl.suggestedFilename()), `template name ${tpl.suggestedFilename()}`);
  // A file that is not a workbook is refused in the dialog, nothing imported.
  await dlg.locator('input[type=file]').setInputFiles({ name: 'goods.xlsx', mimeType: 'application/octet-stream', buffer: Buffer.from('not a workbook') });
  await api(page, '/goods/import', () => dlg.getByRole('button', { name: '导入', exact: true }).click());
  await dlg.getByRole('alert').getByText(/不是可读取的 Excel/).waitFor();
  // The exported file, imported over its records: every row updated.
  await dlg.locator('input[type=file]').setInputFiles(exported);
  await dlg.getByLabel('数据覆盖').check();
  await api(page, '/goods/import', () => dlg.getByRole('button', { name: '导入', exact: true }).click());
  await toast(page, /^导入完成:新增 0 条,更新 [1-9]\d* 条,跳过 0 条$/).waitFor();
  await dlg.waitFor({ state: 'detached' });

  // Stock: empty rows are left out until asked for; a count shows what is counted.
  await visit(page, '/wms/stockdata');
  const table = page.getByRole('table');
  await table.waitFor();
  check(!(await page.getByRole('button', { name: '新增', exact: true }).isVisible()), 'stock is never added by hand');
  const total = async () => Number(((await page.getByText(/^共 \d+ 条$/).innerText()).match(/\d+/) || ['0'])[0]);
  const withStock = await total();
  await page.getByLabel('显示零库存').check();
  await page.waitForFunction(() => location.search.includes('zero=1'));
  await page.waitForFunction((n) => /共 (\d+) 条/.test(document.body.innerText) && Number(document.body.innerText.match(/共 (\d+) 条/)[1]) > n, withStock);
  await page.getByLabel('显示零库存').uncheck();
  await page.waitForFunction((n) => Number((document.body.innerText.match(/共 (\d+) 条/) || [0, -1])[1]) === n, withStock);
  await table.getByRole('button', { name: '盘点' }).first().click();
  const count = dialogNamed(page, /盘点 · 库存数据/);
  await count.getByText('在库数量').waitFor();
  await shot(page, 'wms-count');
  await count.getByRole('button', { name: '取消' }).click();
});

/** A local date `yyyy-mm-dd`, `days` after `d`. */
const dayAfter = (d, days) => { const x = new Date(d); x.setDate(x.getDate() + days); return `${x.getFullYear()}-${String(x.getMonth() + 1).padStart(2, '0')}-${String(x.getDate()).padStart(2, '0')}`; };

/** A `weekday` (0 Sunday … 6 Saturday) five weeks ahead or more (the demo's leaves lie within three weeks of today,
 * and one person's leaves may not overlap) from which a leave of `span` days, `from` to `to` o'clock, counts
 * `days` working days (no holiday in it: the server counts), on whatever day the tests run. */
async function leaveDay(t, weekday, span, from, to, days) {
  const d = new Date();
  d.setDate(d.getDate() + 35);
  while (d.getDay() !== weekday) d.setDate(d.getDate() + 1);
  for (;;) {
    const [a, z] = [dayAfter(d, 0), dayAfter(d, span)];
    const r = await bladeCall(t, 'GET', `/api/blade-desk/process/leave/days?startTime=${a}%20${from}:00:00&endTime=${z}%20${to}:00:00`);
    if (Number(r.days) === days) return d;
    d.setDate(d.getDate() + 7);
  }
}

test('approvals: a model designed and deployed; a leave applied for, decided by the leader, claimed and approved by an administrator; its history and diagram', async (t) => {
  // The platform administrator designs a process: a step is added after the start, given a role, checked.
  const { page: p0 } = await session(t, { host: TENANTS[0].host });
  await visit(p0, '/flow/model');
  await p0.getByRole('table', { name: '流程模型' }).getByText('leave', { exact: true }).waitFor();
  await p0.getByRole('button', { name: '新建' }).click();
  const dlg = dialogNamed(p0, /新建模型/);
  await dlg.getByLabel('模型标识').fill('purchase');
  await dlg.getByLabel('模型名称').fill('采购申请');
  await dlg.locator('[data-node="approve"]').click();
  await dlg.getByLabel('办理人类型').selectOption('role');
  await dlg.getByRole('status').getByText(/处问题/).waitFor();
  check(await dlg.locator('.flow-node.bad').count() > 0, 'the step without a role is drawn red');
  await dlg.getByLabel('角色', { exact: true }).selectOption('administrator');
  await dlg.getByRole('status').getByText('检查通过,可以部署').waitFor();
  await dlg.getByRole('button', { name: '其后插入审批步骤' }).click();
  await dlg.locator('[data-node="task1"]').waitFor();
  await dlg.locator('.flow-canvas').scrollIntoViewIfNeeded();
  await shot(p0, 'flow-designer');
  await dlg.getByRole('button', { name: '保存' }).click();
  await toast(p0, '已保存').waitFor();
  const row = p0.getByRole('row').filter({ hasText: '采购申请' });
  await row.getByRole('button', { name: '部署' }).click();
  const dep = dialogNamed(p0, /部署模型/);
  await dep.getByLabel('租户').fill(EDU.id);
  await dep.getByRole('button', { name: '部署' }).click();
  await toast(p0, '已部署 v1').waitFor();

  // 杨敏 (设计部) applies for five days: her leader 王芳, then an administrator.
  const { page } = await session(t, { user: 'yangmin' });
  const monday = await leaveDay(t, 1, 5, 9, 9, 5);
  await visit(page, '/work/start');
  // By its name: its key (leave) is shown only to whoever manages processes.
  const leave = page.getByRole('row').filter({ has: page.getByRole('cell', { name: '请假流程', exact: true }) }).filter({ hasNotText: '采购申请' });
  check(await page.getByRole('columnheader', { name: '流程标识' }).count() === 0, 'an employee is not shown process keys');
  await leave.getByRole('button', { name: '发起' }).click();
  await page.waitForURL(/\/work\/process\/leave\/form\//);
  await page.getByLabel('请假类型').selectOption({ label: '事假' });
  // Monday 09:00 to Saturday 09:00: five working days (the weekend is not counted).
  await page.getByLabel('开始时间').fill(`${dayAfter(monday, 0)}T09:00`);
  await page.getByLabel('结束时间').fill(`${dayAfter(monday, 5)}T09:00`);
  await page.getByLabel('请假理由').fill('回老家参加婚礼');
  await page.getByText('共 5 个工作日(周末、节假日不计),超过3天需管理员审批').waitFor();
  // The approver list offers people who can approve, with their departments; never herself.
  await page.getByLabel('审批人员', { exact: true }).locator('option').nth(1).waitFor({ state: 'attached' });
  const approvers = await page.getByLabel('审批人员', { exact: true }).locator('option').allInnerTexts();
  check(approvers.some((o) => o === '王芳(设计部)') && !approvers.some((o) => o.startsWith('杨敏')) && !approvers.some((o) => o.startsWith('马志强')), `approvers: ${approvers.join(' ')}`);
  await shot(page, 'flow-leave-form');
  await page.getByRole('button', { name: '提交' }).click();
  // Back on 请假流程: her application, waiting at her leader's step.
  await waitPath(page, '/work/process/leave');
  const mine = page.getByRole('table', { name: '我的请假' }).getByRole('row').filter({ hasText: '回老家参加婚礼' });
  await mine.filter({ hasText: '部门领导审批' }).filter({ hasText: '审批中' }).waitFor();
  check((await mine.innerText()).includes('5'), 'the row gives the days');
  await page.getByRole('button', { name: '发起请假' }).waitFor();
  await shot(page, 'flow-leave-list');

  // 王芳 decides in her to-do list.
  const { page: lp } = await session(t, { user: 'wangfang' });
  await visit(lp, '/work/todo');
  const task = lp.getByRole('row').filter({ hasText: 'yangmin' }).or(lp.getByRole('row').filter({ hasText: '杨敏' })).first();
  await task.getByRole('button', { name: '处理' }).click();
  await lp.waitForURL(/\/work\/process\/leave\/handle\//);
  await lp.getByText('回老家参加婚礼').waitFor();
  // A rejection must say why; an approval may go without words.
  await lp.getByRole('button', { name: '驳回' }).click();
  await toast(lp, '请填写驳回原因').waitFor();
  await lp.getByLabel('批复意见').fill('同意,安排好交接');
  await shot(lp, 'flow-handle');
  const handled = pathOf(lp);
  await lp.getByRole('button', { name: '同意' }).click();
  await waitPath(lp, '/work/todo');
  // Decided, the task leaves her bell; opened again (an old tab, a message), it offers no second decision.
  const bell = await bladeCall({ user: await token('157270', 'wangfang') }, 'GET', '/api/blade-desk/message/unread-count');
  check(!bell.latest.some((m) => m.link === handled), `the decided task is still to do in her bell: ${JSON.stringify(bell.latest)}`);
  await visit(lp, handled);
  await lp.getByRole('status').filter({ hasText: '该任务已办理、已转办或已撤回' }).waitFor();
  check(await lp.getByRole('button', { name: '同意' }).count() === 0 && await lp.getByRole('button', { name: '驳回' }).count() === 0, 'no decision offered on a decided task');
  await shot(lp, 'flow-handle-decided');

  // The tenant administrator claims it and approves.
  const { page: ap } = await session(t);
  await visit(ap, '/work/claim');
  const c = ap.getByRole('row').filter({ hasText: '管理员审批' }).filter({ hasText: '杨敏' }).first();
  await c.getByRole('button', { name: '签收' }).click();
  await toast(ap, '已签收,请在待办事务中办理').waitFor();
  await visit(ap, '/work/todo');
  await ap.getByRole('row').filter({ hasText: '杨敏' }).filter({ hasText: '管理员审批' }).first().getByRole('button', { name: '处理' }).click();
  await ap.getByRole('button', { name: '同意' }).click();
  await waitPath(ap, '/work/todo');

  // 杨敏 sees it passed on 请假流程, then reads the history and the diagram of the path taken.
  await visit(page, '/work/process/leave');
  await page.getByRole('table', { name: '我的请假' }).getByRole('row').filter({ hasText: '回老家参加婚礼' }).filter({ hasText: '已通过' }).waitFor();
  await visit(page, '/work/send');
  const done = page.getByRole('row').filter({ hasText: '已通过' }).first();
  await done.getByRole('button', { name: '详情' }).click();
  await page.waitForURL(/\/work\/process\/leave\/detail\//);
  const hist = page.getByRole('list', { name: '流程历史' });
  await hist.getByText('同意,安排好交接').waitFor();
  check((await hist.innerText()).includes('管理员审批'), 'the history lists the administrator step');
  check(await page.locator('.flow-node.taken').count() >= 4, 'the diagram marks the path taken');
  await shot(page, 'flow-history');

  // The administrator follows the running processes and hands a waiting task to someone else.
  await visit(ap, '/flow/follow');
  const running = ap.getByRole('table', { name: '流程跟踪' }).getByRole('row').filter({ hasText: '黄勇' }).first();
  await running.getByRole('button', { name: '转办' }).click();
  const rd = dialogNamed(ap, /转办任务/);
  await rd.getByLabel('转办给').selectOption({ label: '李娜(财务部)' });
  await rd.getByLabel('原因').fill('张伟出差');
  await rd.getByRole('button', { name: '转办' }).click();
  await toast(ap, '已转办').waitFor();
  const { page: ln } = await session(t, { user: 'lina' });
  await visit(ln, '/work/todo');
  await ln.getByRole('row').filter({ hasText: '黄勇' }).first().waitFor();
});

test('construction approvals: a measure model submitted by the project manager, decided by an administrator; the measure takes the result', async (t) => {
  // The demo has one measure model waiting for an administrator; 张伟 submits another.
  const { page: pm } = await session(t, { user: 'zhangwei' });
  await visit(pm, '/approval/index');
  await pm.getByRole('button', { name: '发起审批' }).click();
  const dlg = dialogNamed(pm, /发起审批/);
  await dlg.getByLabel('审批对象').locator('option').nth(1).waitFor({ state: 'attached' });
  const options = await dlg.getByLabel('审批对象').locator('option').allInnerTexts();
  const draft = options.findIndex((o) => o.includes('草稿'));
  check(draft > 0, 'a draft measure is offered: ' + options.join(' | '));
  await dlg.getByLabel('审批对象').selectOption({ index: draft });
  await dlg.getByLabel('说明').fill('复测后提交');
  await dlg.getByRole('button', { name: '提交' }).click();
  await toast(pm, '已提交审批').waitFor();

  const { page } = await session(t);
  await visit(page, '/approval/index');
  const rows = page.getByRole('table', { name: '审批任务' }).getByRole('row').filter({ hasText: '量房模型' });
  await rows.first().waitFor();
  check(await rows.count() >= 2, 'both measure models wait for the administrators');
  await shot(page, 'approval-tasks');
  await rows.first().getByRole('button', { name: '审批' }).click();
  await page.waitForURL(/\/approval\/detail\?taskId=/);
  await page.getByRole('table', { name: '房间尺寸' }).getByRole('row').nth(1).waitFor();
  await page.getByLabel('审批意见').fill('尺寸齐全,同意');
  await shot(page, 'approval-detail');
  await page.getByRole('button', { name: '通过', exact: true }).click();
  await toast(page, '已通过').waitFor();
  await waitPath(page, '/approval/index');
  await page.getByRole('tab', { name: '已通过' }).click();
  await page.getByRole('table', { name: '审批任务' }).getByRole('row').filter({ hasText: '量房模型' }).first().waitFor();
  await visit(page, '/approval/record');
  await page.getByRole('table', { name: '审批记录' }).getByText('审批通过').first().waitFor();
  await shot(page, 'approval-record');
});

test('catalogue: a product added in a category, found by the picker search', async (t) => {
  const { page } = await session(t);
  // Categories as a tree: 瓷砖 opens to 地砖; a sub-category added under it; 瓷砖 (with products and children) refused.
  t.allow.push(/status of 400/);
  await visit(page, '/productCategory/index');
  const tree = page.getByRole('tree', { name: '产品分类' });
  const tiles = tree.getByRole('treeitem', { name: '瓷砖' });
  await tiles.getByRole('button', { name: '展开' }).first().click();
  const floor = tree.getByRole('treeitem', { name: '地砖' });
  await floor.waitFor();
  await floor.getByRole('button', { name: '新增子分类' }).first().click();
  const cdlg = dialogNamed(page, /新增分类/);
  await cdlg.getByLabel('分类名称 *').fill('大板地砖');
  await cdlg.getByRole('button', { name: '保存' }).click();
  await toast(page, '已保存').waitFor();
  await tree.getByRole('treeitem', { name: '大板地砖' }).waitFor(); // its parent opens to show it
  await tiles.getByRole('button', { name: '删除' }).first().click();
  await page.getByRole('alertdialog').getByRole('button', { name: '确定' }).click();
  await page.locator('.toast').filter({ hasText: /不能删除|子分类|产品/ }).first().waitFor();
  await shot(page, 'product-categories');
  await visit(page, '/product/index');
  await page.getByRole('columnheader', { name: '产品名称' }).waitFor();
  await page.getByRole('button', { name: '新增', exact: true }).click();
  const dlg = page.getByRole('dialog', { name: /新增/ });
  await dlg.getByLabel('产品名称').fill('岩板餐桌台面');
  await dlg.getByLabel('产品类型').selectOption({ label: '主材' });
  await dlg.getByLabel('产品分类').click();
  await dlg.getByLabel('产品分类').fill('地砖');
  await dlg.getByRole('option', { name: '地砖', exact: true }).click();
  await dlg.getByLabel('单位').fill('块');
  await dlg.getByLabel('单价(元)').fill('1280');
  await dlg.getByRole('button', { name: '保存' }).click();
  await toast(page, '新增成功').waitFor();
  const row = page.getByRole('row').filter({ hasText: '岩板餐桌台面' });
  await row.waitFor();
  check((await row.innerText()).includes('1,280.00'), 'the price shows in yuan with cents, in thousands');
  await shot(page, 'product-list');
});


// ---------------------------------------------------------------- the shipped roles' own day (issue 55)

test('项目经理 张伟: a project with its company, region and manager picked under his own grants; the bell and 站内消息', async (t) => {
  const { page } = await session(t, { user: 'zhangwei' });
  await visit(page, '/project/index');
  await page.getByRole('button', { name: '新增', exact: true }).click();
  const dlg = page.getByRole('dialog', { name: /新增/ });
  // He manages what he adds (his data scope is the projects he manages): the form names him at first.
  check(await dlg.getByLabel('项目经理').inputValue() === '张伟', 'a new project names its maker as its manager: ' + await dlg.getByLabel('项目经理').inputValue());
  await dlg.getByLabel('项目名称').fill('鼓楼医院门诊楼翻新');
  await dlg.getByLabel('所属公司').click();
  await dlg.getByLabel('所属公司').fill('南京');
  await dlg.getByRole('option', { name: '南京分公司' }).waitFor();
  // By keyboard: Escape closes the list and keeps the dialog and what was typed; ↓ reopens and walks it; Enter picks.
  await page.keyboard.press('Escape');
  await dlg.getByRole('listbox').waitFor({ state: 'detached' });
  check(await dlg.getByLabel('项目名称').inputValue() === '鼓楼医院门诊楼翻新', 'Escape in a picker keeps the dialog and its fields');
  await page.keyboard.press('ArrowDown');
  await dlg.getByRole('option', { name: '南京分公司' }).waitFor();
  const at = (await dlg.getByRole('option').allInnerTexts()).findIndex((x) => x.startsWith('南京分公司'));
  for (let i = 0; i <= at; i++) await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  await dlg.getByRole('listbox').waitFor({ state: 'detached' });
  check(await dlg.getByLabel('所属公司').inputValue() === '南京分公司', 'Enter picks the option walked to: ' + await dlg.getByLabel('所属公司').inputValue());
  check(await dlg.isVisible(), 'Enter in a picker does not send the form');
  // 所在地区 is picked, by pinyin here, never typed as a number.
  await dlg.getByLabel('所在地区').fill('gulou');
  await dlg.getByRole('option', { name: /江苏省 \/ 南京市 \/ 鼓楼区/ }).click();
  await dlg.getByLabel('区/县').locator('option[value="320106"]').waitFor({ state: 'attached' });
  await page.waitForFunction(() => document.querySelector('select[aria-label="区/县"]')?.value === '320106');
  await dlg.getByLabel('项目经理').click();
  await dlg.getByLabel('项目经理').fill('zw');
  await dlg.getByRole('option', { name: /张伟/ }).first().click();
  await dlg.getByLabel('业务单元').selectOption('TOB');
  await dlg.getByLabel('开始时间').fill('2026-12-01');
  await shot(page, 'role-pm-project-add');
  await dlg.getByRole('button', { name: '保存' }).click();
  await toast(page, '新增成功').waitFor();
  await page.getByRole('row').filter({ hasText: '鼓楼医院门诊楼翻新' }).getByRole('link', { name: '详情' }).click();
  await page.waitForURL((u) => u.pathname.startsWith('/project/detail/XM'));
  await page.getByText('江苏省 / 南京市 / 鼓楼区').waitFor();
  await shot(page, 'role-pm-project-detail');

  // An existing project: 合同总额 by the one definition, drafts named beside it.
  await visit(page, '/project/index');
  const figures = await bladeCall(t, 'POST', '/api/blade-scm/project/list', { page: 1, size: 50 });
  const withDraft = [];
  for (const p of figures.records) {
    const f = await bladeCall(t, 'GET', `/api/blade-scm/project/figures?projectId=${p.id}`);
    if (f.drafts > 0) withDraft.push([p, f]);
  }
  check(withDraft.length > 0, 'the demo has a project with a draft contract');
  const [dp, df] = withDraft[0];
  await visit(page, `/project/detail/${dp.projectCode}`);
  await page.getByText(`另有草稿 ${df.drafts} 份`).waitFor();
  await shot(page, 'role-pm-project-figures');

  // The bell: unread messages (the demo's notices and tasks), the list page, mark all read.
  const bell = page.getByRole('button', { name: /^站内消息/ });
  check(/条未读/.test(await bell.getAttribute('aria-label')), 'the bell counts unread messages');
  await bell.click();
  const panel = page.getByRole('dialog', { name: '未读消息' });
  await panel.waitFor();
  await shot(page, 'role-pm-bell');
  // A message opens from anywhere on it: its text as well as its title.
  const before = page.url();
  const item = panel.locator('.bell-item').filter({ has: page.locator('.bell-content') }).first();
  await item.locator('.bell-content').click();
  await page.waitForFunction((u) => location.href !== u, before);
  await bell.click();
  await panel.waitFor();
  await panel.getByRole('button', { name: '查看全部消息' }).click();
  await waitPath(page, '/desk/message');
  const list = page.locator('.message-list');
  await list.getByText(/通知公告:/).first().waitFor();
  await shot(page, 'role-pm-messages');
  await page.getByRole('button', { name: '全部已读' }).click();
  await page.waitForFunction(() => !document.querySelector('.message-list li.unread'));
  await page.waitForFunction(() => !document.querySelector('.bell-badge'));
});

test('项目经理 张伟: raises a 领料单 for his project, adds its line and releases it to the depot', async (t) => {
  const { page } = await session(t, { user: 'zhangwei' });
  const W = '/api/blade-api/wms';
  await visit(page, '/wms/order/ck');
  await page.getByRole('button', { name: '新增', exact: true }).click();
  const dlg = page.getByRole('dialog', { name: /新增/ });
  await dlg.getByLabel('仓库').click();
  await dlg.getByLabel('仓库').fill('总仓');
  await dlg.getByRole('option', { name: /总仓/ }).first().click();
  await dlg.getByLabel('出库类型').selectOption({ label: '项目领料' });
  await dlg.getByLabel('领料项目').click();
  await dlg.getByLabel('领料项目').fill('翡翠');
  await dlg.getByRole('option', { name: /翡翠公园/ }).first().click();
  await dlg.getByLabel('收货人').fill('张伟');
  await dlg.getByLabel('备注').fill('12#楼公区补料');
  await dlg.getByRole('button', { name: '保存' }).click();
  await toast(page, '新增成功').waitFor();
  const mine = await bladeCall({ user: await token('157270', 'zhangwei') }, 'GET', `${W}/order/ck/list?orderStatus_equal=0&size=10`);
  const order = mine.records.find((r) => r.remark === '12#楼公区补料');
  check(!!order, 'his new requisition is in his list: ' + JSON.stringify(mine.records.map((r) => r.remark)));
  await visit(page, `/wms/order/ck/detail/${order.orderNo}`);
  const stock = (await bladeCall({ user: await token('157270', 'zhangwei') }, 'GET', `${W}/stockdata/list?storeId=${order.storeId}&size=200`)).records
    .find((r) => r.spaceId && r.spaceId !== '0' && Number(r.available) >= 2);
  const goods = await bladeCall({ user: await token('157270', 'zhangwei') }, 'GET', `${W}/goods/detail?id=${stock.goodsId}`);
  const add = page.getByRole('form', { name: '新增明细' });
  await add.getByLabel('商品条码/编码/名称').fill(goods.goodsCode);
  await add.getByLabel('数量').fill('2');
  await add.getByRole('button', { name: '添加明细' }).click();
  await toast(page, '新增成功').waitFor();
  await page.getByRole('table', { name: '出库明细' }).getByText(goods.goodsName).first().waitFor();
  await shot(page, 'role-pm-requisition');
  await api(page, '/order/ck/release', () => page.getByRole('button', { name: '释放(预留库存)' }).click());
  await page.locator('.tag', { hasText: '已释放' }).waitFor();
  check(await page.getByRole('button', { name: '拣货', exact: true }).count() === 0, 'picking is the keeper\'s, not offered to him');
});

test('项目经理 张伟: 补卡 offers the chosen construct\'s crew, not every worker', async (t) => {
  const { page } = await session(t, { user: 'zhangwei' });
  const S = '/api/blade-scm';
  const ks = (await bladeCall(t, 'POST', `${S}/construct/list`, { modelStatus: 3, size: 50 })).records;
  let k = null; let crew = [];
  for (const c of ks) {
    crew = (await bladeCall(t, 'POST', `${S}/construct/worker/list`, { constructId: c.id, size: 100 })).records;
    if (crew.length > 0) { k = c; break; }
  }
  check(k, 'one of his constructs under way has a crew');
  const all = await bladeCall(t, 'GET', '/api/blade-system/lookup?resource=worker&size=50');
  check(all.total > crew.length, `the company has more workers (${all.total}) than this crew (${crew.length})`);
  await page.goto('/attendDay/index');
  await hydrated(page);
  await page.getByRole('button', { name: '补卡', exact: true }).click();
  const dlg = dialogNamed(page, '补卡');
  await dlg.waitFor();
  const kbox = dlg.locator('#tool-constructId');
  await kbox.click();
  await kbox.fill(k.constructCode);
  await page.getByRole('option', { name: new RegExp(k.constructName) }).first().click();
  const wbox = dlg.locator('#tool-workerId');
  await wbox.click();
  await page.waitForFunction((n) => document.querySelectorAll('#tool-workerId-options [role=option]').length === n, crew.length);
  const offered = (await page.locator('#tool-workerId-options [role=option]').allInnerTexts()).map((x) => x.trim()).sort();
  const names = crew.map((w) => w.workerName).sort();
  check(offered.every((o, i) => o.startsWith(names[i])), `the picker offers the crew: ${offered} / ${names}`);
  await shot(page, 'role-pm-makeup-crew');
});

test('仓管员 刘强: a line added by a name several goods share is chosen, not guessed; a line of a new order removed', async (t) => {
  const { page } = await session(t, { user: 'liuqiang' });
  const W = '/api/blade-api/wms';
  let frag = null; let many = [];
  for (const f of ['螺丝', '瓷砖', '乳胶漆', 'PPR', '管', '板', '漆']) {
    many = (await bladeCall(t, 'GET', `${W}/goods/list?goodsName=${encodeURIComponent(f)}&size=20`)).records;
    if (many.length > 1) { frag = f; break; }
  }
  check(frag, 'the demo has goods sharing a name');
  const store = (await bladeCall(t, 'GET', `${W}/store/list?storeCode_equal=WH01`)).records[0];
  const rk = await bladeCall(t, 'POST', `${W}/order/rk/submit`, { storeId: store.id, orderType: 1 });
  await visit(page, `/wms/order/rk/detail/${rk.orderNo}`);
  const add = page.getByRole('form', { name: '新增明细' });
  await add.getByLabel('商品条码/编码/名称').fill(frag);
  await add.getByLabel('数量', { exact: true }).fill('12');
  await add.getByRole('button', { name: '添加明细' }).click();
  const choose = page.getByRole('group', { name: '选择商品' });
  await choose.getByText(`「${frag}」对应 ${many.length} 个商品`).waitFor();
  check((await bladeCall(t, 'GET', `${W}/mxrk/list?orderId=${rk.id}`)).records.length === 0, 'nothing added before the choice');
  await shot(page, 'role-keeper-line-choose');
  const pick = many[many.length - 1];
  await choose.getByRole('button', { name: new RegExp(pick.goodsCode) }).click();
  await toast(page, '新增成功').waitFor();
  const lines = page.getByRole('table', { name: '入库明细' });
  const row = lines.getByRole('row').filter({ hasText: pick.goodsName });
  await row.waitFor();
  const saved = (await bladeCall(t, 'GET', `${W}/mxrk/list?orderId=${rk.id}`)).records;
  check(saved.length === 1 && String(saved[0].goodsId) === String(pick.id), `the chosen goods was added: ${JSON.stringify(saved)}`);
  await row.getByRole('button', { name: '删除' }).click();
  await dialogNamed(page, /提示/).getByRole('button', { name: '确定' }).click();
  await toast(page, '已删除').waitFor();
  await lines.getByText('暂无明细').waitFor();
  check((await bladeCall(t, 'GET', `${W}/mxrk/list?orderId=${rk.id}`)).records.length === 0, 'the line is gone');
});

test('仓管员 刘强: 库存盘点 — a count sheet of a store zone, differences posted together with their reason', async (t) => {
  const { page } = await session(t, { user: 'liuqiang' });
  await visit(page, '/wms/stockdata');
  await page.getByRole('button', { name: '库存盘点' }).click();
  await waitPath(page, '/wms/stock/count');
  await page.getByLabel('仓库').selectOption({ label: '南京建材总仓' });
  const sheet = page.getByRole('table', { name: '盘点明细' });
  await sheet.locator('tbody tr').first().waitFor();
  await page.getByLabel('库区').locator('option').nth(1).waitFor({ state: 'attached' });
  await page.getByLabel('库区').selectOption({ index: 1 });
  // The zone's rows, once they replaced the whole store's (every bin named by the zone).
  const zone = (await page.getByLabel('库区').locator('option').nth(1).innerText()).trim();
  await page.waitForFunction((z) => {
    const names = [...document.querySelectorAll('table[aria-label="盘点明细"] tbody tr')].map((tr) => tr.querySelector('td')?.textContent ?? '');
    return names.length > 1 && names.every((n) => n.startsWith(z));
  }, zone);
  const rows = sheet.locator('tbody tr');
  // Two rows holding stock (a bin emptied by earlier picks reads 0): the first counted 1 short, the second as the
  // books say.
  const books = (await sheet.locator('tbody tr td:nth-child(4)').allInnerTexts()).map((x) => x.trim());
  const held = books.map((b, i) => [Number(b), i]).filter(([b]) => b >= 1).map(([, i]) => i);
  check(held.length >= 2, 'the zone has rows with stock: ' + JSON.stringify(books));
  const [i0, i1] = held;
  const less = String(Number(books[i0]) - 1);
  await rows.nth(i0).locator('input').fill(less);
  await rows.nth(i1).locator('input').fill(books[i1]);
  await page.waitForFunction((i) => document.querySelectorAll('table[aria-label="盘点明细"] tbody tr')[i]?.querySelectorAll('td')[6]?.textContent?.trim() === '-1', i0);
  await page.getByRole('button', { name: '提交盘点' }).click();
  await toast(page, '盘点有差异,请填写差异原因').waitFor();
  await page.getByLabel('差异原因').fill('月末盘点:破损1件');
  await shot(page, 'wms-count-sheet');
  await api(page, '/stockdata/count', () => page.getByRole('button', { name: '提交盘点' }).click());
  await toast(page, /盘点完成 PD\d+:2 行,差异 1 行/).waitFor();
  await page.waitForFunction(([i, q]) => document.querySelectorAll('table[aria-label="盘点明细"] tbody tr')[i]?.querySelectorAll('td')[3]?.textContent?.trim() === q, [i0, less]);
});

test('仓管员 刘强: a planned 移库 is carried out from its row (asked first), with no batch named; done, it offers no 编辑', async (t) => {
  const { page } = await session(t, { user: 'liuqiang' });
  const W = '/api/blade-api/wms';
  // A bin holding one goods in two batches or more, and another bin of the same store.
  const rows = (await bladeCall(t, 'GET', `${W}/stockdata/list?size=500`)).records.filter((r) => String(r.location || '').startsWith('bin:') && Number(r.available) >= 2);
  const src = rows[0];
  check(src, 'the demo has stock in bins');
  const bins = (await bladeCall(t, 'GET', `${W}/storagespace/list?storeId_equal=${src.storeId}&size=50`)).records;
  const to = bins.find((b) => String(b.id) !== String(src.spaceId) && Number(b.spaceState) !== 2);
  // Planning one, 源储位 offers the bins that hold the chosen goods (not every bin of the company).
  await page.goto('/wms/transfer');
  await hydrated(page);
  const holding = [...new Set((await bladeCall(t, 'GET', `${W}/stockdata/list?goodsId_equal=${src.goodsId}&qty_gt=0&size=200`)).records.filter((r) => String(r.spaceId || '0') !== '0').map((r) => r.spaceName))].sort();
  await page.getByRole('button', { name: '新增', exact: true }).click();
  const form = dialogNamed(page, /新增/);
  await form.waitFor();
  await form.locator('#f-goodsId').click();
  // By its code: several goods may share a name (an earlier test adds such).
  const goods = await bladeCall(t, 'GET', `${W}/goods/detail?id=${src.goodsId}`);
  await form.locator('#f-goodsId').fill(goods.goodsCode);
  await page.locator('#f-goodsId-options [role=option]', { hasText: goods.goodsCode }).first().click();
  await form.locator('#f-fromSpaceId').click();
  await page.waitForFunction((n) => document.querySelectorAll('#f-fromSpaceId-options [role=option]').length === n, holding.length);
  const offered = (await page.locator('#f-fromSpaceId-options [role=option]').allInnerTexts()).map((x) => x.trim());
  check(holding.every((b) => offered.some((o) => o.startsWith(b))), `源储位 offers the bins holding the goods: ${offered} / ${holding}`);
  await shot(page, 'role-keeper-transfer-source-bins');
  await page.keyboard.press('Escape');
  await form.getByRole('button', { name: '取消' }).click();
  const tr = await bladeCall(t, 'POST', `${W}/transfer/submit`, { goodsId: src.goodsId, fromSpaceId: src.spaceId, toSpaceId: to.id, qty: '1' });
  await page.reload();
  await hydrated(page);
  const row = page.getByRole('row').filter({ hasText: tr.transferNo });
  await row.waitFor();
  check(await row.getByRole('button', { name: '编辑' }).count() === 1, 'a planned transfer can be edited');
  await row.getByRole('button', { name: '执行移库' }).click();
  await dialogNamed(page, /提示/).getByText(/不能撤销/).waitFor();
  await dialogNamed(page, /提示/).getByRole('button', { name: '确定' }).click();
  await toast(page, '已移库').waitFor();
  await row.getByText('已完成').waitFor();
  check(await row.getByRole('button', { name: '编辑' }).count() === 0 && await row.getByRole('button', { name: '执行移库' }).count() === 0, 'a done transfer offers neither 编辑 nor 执行移库');
  const done = (await bladeCall(t, 'GET', `${W}/transfer/detail?id=${tr.id}`));
  check(Number(done.transferStatus) === 1 && (!src.batch || !!done.batch), `done, naming the batch it moved: ${JSON.stringify(done)}`);
  await shot(page, 'role-keeper-transfer-done');
});

test('仓管员 刘强: his desk shows only what he may see; an inbound order received short and closed with its reason', async (t) => {
  const { page } = await session(t, { user: 'liuqiang' });
  await visit(page, '/wel/index');
  await page.getByRole('heading', { name: '待审批' }).waitFor();
  const text = await page.locator('.desk').innerText();
  check(!text.includes('示例数据') && !text.includes('江西'), 'no invented figures on his desk');
  check(await page.locator('.desk-map').count() === 0, 'no project map: he may read no projects');
  // 仓库作业: the open orders of the stores he works in, first on his desk, as many as the lists say, each
  // opening its order.
  const W = '/api/blade-api/wms';
  const work = page.getByRole('region', { name: '仓库作业' });
  await work.getByRole('link', { name: /^入库单 RK/ }).first().waitFor();
  for (const [k, name] of [['rk', '待处理入库单'], ['ck', '待处理出库单']]) {
    const all = await bladeCall(t, 'GET', `${W}/order/${k}/list?orderStatus_lt=4&size=100`);
    check(all.records.length > 0, `the demo has open ${k} orders`);
    const shown = await work.locator('.desk-counts div', { hasText: name }).locator('dd').innerText();
    check(shown === String(all.total), `${name} shows ${shown}, the list has ${all.total}`);
    check(await work.getByRole('link', { name: new RegExp(`^${k === 'rk' ? '入库单' : '出库单'} `) }).count() === Math.min(5, all.total), `his desk lists his first open ${k} orders`);
  }
  const deskBox = await work.boundingBox();
  const appsBox = await page.getByRole('region', { name: '应用中心' }).boundingBox();
  check(deskBox.y < appsBox.y, 'his store work comes before the application tiles');
  await shot(page, 'role-keeper-desk');
  const first = work.getByRole('link', { name: /^出库单 CK/ }).first();
  const firstNo = (await first.innerText()).split(' ')[1];
  await first.click();
  await waitPath(page, `/wms/order/ck/detail/${firstNo}`);
  await page.getByRole('table', { name: '出库明细' }).waitFor();
  const store = (await bladeCall(t, 'GET', `${W}/store/list?storeCode_equal=WH01`)).records[0];
  const goods = (await bladeCall(t, 'GET', `${W}/goods/list?goodsName=乳胶漆&size=1`)).records[0];
  const rk = await bladeCall(t, 'POST', `${W}/order/rk/submit`, { storeId: store.id, orderType: 1 });
  // He writes the order's lines himself (mxrk shares the order's codes).
  await bladeCall(t, 'POST', `${W}/mxrk/submit`, { orderId: rk.id, goodsId: goods.id, expectedQty: '159' });
  // The order shows with its lines: no 暂无明细 between 加载中… and the rows.
  await page.addInitScript(() => {
    new MutationObserver(() => { if (document.body?.textContent?.includes('暂无明细')) window.__sawNoLines = true; })
      .observe(document, { subtree: true, childList: true, characterData: true });
  });
  await visit(page, `/wms/order/rk/detail/${rk.orderNo}`);
  const lines = page.getByRole('table', { name: '入库明细' });
  const line = lines.getByRole('row').filter({ hasText: goods.goodsName });
  await line.waitFor();
  check(!(await page.evaluate(() => window.__sawNoLines)), 'no 暂无明细 flashed before the order\'s line');
  // A slip of the keyboard is said beside the box and cannot be sent.
  await line.getByLabel('收货数量').fill('15o');
  await line.getByText('请输入收货数量，最多4位小数').waitFor();
  check(await line.getByRole('button', { name: '收货', exact: true }).isDisabled(), 'a quantity with a letter cannot be received');
  await shot(page, 'role-keeper-bad-qty');
  await line.getByLabel('收货数量').fill('0');
  await line.getByText('数量必须大于0').waitFor();
  // The supplier delivered 150 of 159.
  await line.getByLabel('收货数量').fill('150');
  check(await line.getByRole('alert').count() === 0, 'a right quantity leaves no message');
  await line.getByRole('button', { name: '收货', exact: true }).click();
  await toast(page, '收货成功').waitFor();
  await page.getByRole('button', { name: '短收完成' }).click();
  const ask = page.getByRole('dialog');
  // The cursor is in the reason box: he types at once.
  await ask.getByLabel('短收原因').waitFor();
  await page.waitForFunction(() => document.activeElement?.id === 'ask-reason');
  await page.keyboard.type('供应商缺货,余下9桶不再补发');
  check(await ask.getByLabel('短收原因').inputValue() === '供应商缺货,余下9桶不再补发', 'the reason typed went into its box');
  await shot(page, 'role-keeper-short');
  await ask.getByRole('button', { name: '确定' }).click();
  await toast(page, '已短收完成').waitFor();
  // The short quantity says why, where he looks (not only in a tooltip).
  await line.getByRole('cell', { name: '9(供应商缺货,余下9桶不再补发)', exact: true }).waitFor();
  check(await page.getByRole('button', { name: '短收完成' }).count() === 0, 'nothing left to close short');
  check(await line.getByRole('button', { name: '收货', exact: true }).count() === 0, 'the 9 are no longer awaited');
  // The review's two boxes say which is which beside them, not only in a placeholder that goes once typed in.
  check(await line.getByText('不合格', { exact: true }).isVisible() && await line.getByText('合格', { exact: true }).isVisible(), 'the review boxes are captioned 不合格 and 合格');
  await shot(page, 'role-keeper-short-done');
});

test('员工 吴军: a leave with its type, counted in working days, seen in 请假流程', async (t) => {
  const { page } = await session(t, { user: 'wujun' });
  // Thursday 13:00 to Monday 12:00: 2 working days.
  const thursday = await leaveDay(t, 4, 4, 13, 12, 2);
  const [thu, fri, mon] = [0, 1, 4].map((n) => dayAfter(thursday, n));
  await visit(page, '/work/process/leave');
  await page.getByRole('button', { name: '发起请假' }).click();
  await page.waitForURL(/\/work\/process\/leave\/form\//);
  await page.getByLabel('请假类型').selectOption({ label: '年假' });
  // Thursday afternoon to Monday noon: 0.5 + 1 + 0.5 working days.
  await page.getByLabel('开始时间').fill(`${thu}T13:00`);
  await page.getByLabel('结束时间').fill(`${mon}T12:00`);
  await page.getByLabel('请假理由').fill('回老家探亲');
  await page.getByText('共 2 个工作日(周末、节假日不计)').waitFor();
  await shot(page, 'role-employee-leave-form');
  await page.getByRole('button', { name: '提交' }).click();
  await waitPath(page, '/work/process/leave');
  const row = page.getByRole('table', { name: '我的请假' }).getByRole('row').filter({ hasText: '回老家探亲' });
  await row.filter({ hasText: '年假' }).filter({ hasText: '审批中' }).waitFor();
  await shot(page, 'role-employee-leave-list');

  // His leader gives it back: the dates clash with the site's schedule.
  const mine = (await bladeCall(t, 'GET', '/api/blade-desk/process/leave/list?current=1&size=50')).records.find((r) => r.reason === '回老家探亲');
  check(mine?.taskUserName === '张伟', `his leave waits for ${mine?.taskUserName}`);
  const leader = { user: await token('157270', 'zhangwei') };
  const task = (await bladeCall(leader, 'GET', '/api/blade-flow/work/todo-list?current=1&size=100')).records.find((r) => r.processInstanceId === mine.processInstanceId);
  await bladeCall(leader, 'POST', '/api/blade-flow/work/complete-task', { taskId: task.taskId, processInstanceId: mine.processInstanceId, pass: false, comment: '项目节点冲突,请改为周四周五' });
  // He changes it and sends it again from his to-do list: a form of his leave, not an approver's 同意/驳回.
  await visit(page, '/work/todo');
  await page.getByRole('row').filter({ hasText: '调整申请' }).first().getByRole('button', { name: '处理' }).click();
  const form = page.getByRole('form', { name: '调整申请' });
  await form.getByText('张伟 驳回:项目节点冲突,请改为周四周五').waitFor();
  await page.locator('.tags .tag.active', { hasText: '调整申请' }).waitFor(); // its tab too (it said 审批处理)
  check(await form.getByLabel('请假理由').inputValue() === '回老家探亲' && await form.getByLabel('开始时间').inputValue() === `${thu}T13:00`, 'the form holds his leave as it was');
  check(await page.getByRole('button', { name: '同意' }).count() === 0, 'no approver\'s buttons on his own step');
  await form.getByLabel('结束时间').fill(`${fri}T18:00`);
  await form.getByText('共 1.5 个工作日(周末、节假日不计)').waitFor();
  await form.getByLabel('调整说明').fill('改为周四下午到周五');
  await shot(page, 'role-employee-leave-adjust');
  await form.getByRole('button', { name: '重新提交' }).click();
  await toast(page, '已重新提交').waitFor();
  await waitPath(page, '/work/process/leave');
  await row.filter({ hasText: '审批中' }).filter({ hasText: '部门领导审批' }).filter({ hasText: '1.5' }).waitFor();

  // A leave nobody has decided yet is taken back from 请假流程 itself (asked first); its approver no longer has it.
  await bladeCall(t, 'POST', '/api/blade-desk/process/leave/start-process', { leaveType: '1', startTime: `${mon} 09:00:00`, endTime: `${mon} 18:00:00`, reason: '家中有事' });
  await visit(page, '/work/process/leave');
  const other = page.getByRole('table', { name: '我的请假' }).getByRole('row').filter({ hasText: '家中有事' });
  await other.getByRole('button', { name: '撤回' }).click();
  const ask = page.getByRole('dialog', { name: '提示' });
  await ask.getByText(`撤回 ${mon} 09:00:00 起 1 天的请假申请`).waitFor();
  await shot(page, 'role-employee-leave-withdraw');
  await ask.getByRole('button', { name: '确定' }).click();
  await toast(page, '已撤回').waitFor();
  await other.filter({ hasText: '已撤回' }).waitFor();
  check(await other.getByRole('button', { name: '撤回' }).count() === 0, 'nothing left to withdraw');
  const gone = (await bladeCall(t, 'GET', '/api/blade-desk/process/leave/list?current=1&size=50')).records.find((r) => r.reason === '家中有事');
  const todo = (await bladeCall(leader, 'GET', '/api/blade-flow/work/todo-list?current=1&size=100')).records;
  check(!todo.some((r) => r.processInstanceId === gone.processInstanceId), 'the leader\'s to-do no longer lists it');
  // One his leader has already decided once offers no 撤回 (the server would refuse it: 已有人审批).
  await row.filter({ hasText: '审批中' }).waitFor();
  check(await row.getByRole('button', { name: '撤回' }).count() === 0, 'no 撤回 once a step was decided');
});

test('会计 李娜: her desk has the company figures; a receipt typed as people write money posted on a ledger; receivables and a project\'s cost', async (t) => {
  const { page } = await session(t, { user: 'lina' });
  await visit(page, '/wel/index');
  await page.locator('.view').first().waitFor();
  check(!(await page.locator('body').innerText()).includes('示例数据'), 'the desk shows no sample figures');
  // 经营概况 is on her own desk (not only on the 控制台), with the ledgers' figures.
  const biz = page.locator('.desk-business');
  await biz.getByRole('heading', { name: '经营概况' }).waitFor();
  const info = await bladeCall(t, 'GET', '/api/blade-biz/statistic/companyinfo');
  const shownReceived = (await biz.locator('div', { hasText: '已收款' }).locator('dd').innerText()).replace(/[^\d.-]/g, '');
  check(Math.round(Number(shownReceived) * 100) === Math.round(Number(info.received) * 100), `已收款 ${shownReceived} against ${info.received}`);
  await shot(page, 'role-accountant-desk');
  await visit(page, '/finance/contractLedger/index');
  await page.getByRole('columnheader', { name: '未收余额(元)' }).waitFor();
  // The 合同 box offers the chosen 项目's contracts only; choosing another project empties it.
  {
    const bar = page.locator('.crud-search');
    const all = (await bladeCall(t, 'GET', '/api/blade-system/lookup?resource=contract&size=50')).records;
    const ledgers = (await bladeCall(t, 'GET', '/api/blade-scm/contractledger/list?current=1&size=200')).records;
    const counts = {};
    for (const l of ledgers) counts[l.projectId] = (counts[l.projectId] ?? 0) + 1;
    const l = ledgers.filter((x) => x.projectId && x.projectName).sort((a, b) => counts[b.projectId] - counts[a.projectId])[0];
    const mine = (await bladeCall(t, 'GET', `/api/blade-system/lookup?resource=contract&size=50&projectId_equal=${l.projectId}`)).records;
    check(mine.length > 0 && mine.length < all.length, `the project has ${mine.length} of ${all.length} contracts`);
    const project = bar.getByRole('combobox', { name: '所属项目' });
    await project.click();
    await project.fill(l.projectName);
    await page.locator('.ref-options').getByRole('option').filter({ hasText: l.projectName }).first().click();
    const contract = bar.getByRole('combobox', { name: '合同' });
    await contract.click();
    await page.locator('.ref-options').getByRole('option').first().waitFor();
    await page.waitForFunction((n) => document.querySelectorAll('.ref-options [role=option]').length === n, mine.length);
    const shown = await page.locator('.ref-options').getByRole('option').allInnerTexts();
    check(shown.every((o) => mine.some((c) => o.startsWith(c.title))), `offered: ${shown.join(' | ')}; the project's: ${mine.map((c) => c.title).join(' | ')}`);
    await shot(page, 'ledger-contract-within-project');
    await page.locator('.ref-options').getByRole('option').first().click();
    check((await contract.inputValue()) !== '', 'a contract chosen');
    const other = ledgers.find((x) => x.projectId && x.projectName && x.projectId !== l.projectId && x.projectName !== l.projectName);
    await project.click();
    await project.fill(other.projectName);
    await page.locator('.ref-options').getByRole('option').filter({ hasText: other.projectName }).first().click();
    check((await contract.inputValue()) === '', 'another project clears the contract chosen');
    await bar.getByRole('button', { name: '清空' }).click();
  }
  await page.locator('.crud .table tbody tr').first().getByRole('link', { name: '详情' }).click();
  await page.waitForURL((u) => u.pathname === '/finance/contractLedger/detail');
  const owed = page.locator('.facts div', { hasText: '未收余额' }).locator('dd');
  await owed.waitFor();
  const cents = async () => Math.round(Number((await owed.innerText()).replace(/[^\d.-]/g, '')) * 100);
  const before = await cents();
  await page.getByRole('button', { name: '登记收款', exact: true }).click();
  const dlg = dialogNamed(page, /登记收款/);
  await dlg.getByLabel('金额(元)').fill('¥1,280.50');
  await dlg.getByRole('button', { name: '记账' }).click();
  await toast(page, '已记账').waitFor();
  for (let i = 0; i < 40 && await cents() === before; i++) await sleep(100);
  check(before - await cents() === 128050, `未收余额 went from ${before} to ${await cents()} fen for a receipt of ¥1,280.50`);
  await page.getByRole('table', { name: '台账分录' }).getByRole('cell', { name: '¥1,280.50', exact: true }).first().waitFor();
  await shot(page, 'role-finance-ledger');
  await visit(page, '/finance/receivables');
  await page.getByRole('table', { name: '应收款' }).locator('tbody tr').first().waitFor();
  // A receipt from a receivables row names the contract and its stage and suggests what is still owed.
  const owedRow = page.getByRole('table', { name: '应收款' }).locator('tbody tr').filter({ has: page.getByRole('button', { name: '登记收款' }) }).first();
  const [rowCode, rowOwed] = [await owedRow.locator('td').nth(0).innerText(), await owedRow.locator('td').nth(6).innerText()];
  await owedRow.getByRole('button', { name: '登记收款' }).click();
  const receipt = dialogNamed(page, /登记收款/);
  const about = await receipt.getByLabel('收款对象').innerText();
  check(about.includes(rowCode) && about.includes(`未收 ${rowOwed}`), `the receipt dialog says ${about}; the row ${rowCode} owes ${rowOwed}`);
  check(Number(await receipt.getByLabel('金额(元)').inputValue()) === Number(rowOwed.replace(/[^\d.-]/g, '')), 'the amount suggested is what is owed');
  await shot(page, 'role-finance-receipt');
  await receipt.getByRole('button', { name: '取消' }).click();
  // A receipt on a later stage of a contract that owes an earlier one settles the stage chosen (it went to the
  // earlier stage).
  const table = page.getByRole('table', { name: '应收款' });
  await table.locator('tbody tr').first().waitFor(); // the page is hidden from the accessibility tree while the dialog closes
  const cells = await table.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.innerText)));
  const owing = cells.map((c, i) => ({ i, code: c[0], node: c[2], open: c[8]?.includes('登记收款') })).filter((r) => r.open);
  const later = owing.find((r) => owing.some((e) => e.code === r.code && e.i < r.i));
  check(!!later, 'a contract owing two stages on the first page');
  const earlier = owing.find((e) => e.code === later.code && e.i < later.i);
  const earlierBefore = cells[earlier.i][5];
  await table.locator('tbody tr').nth(later.i).getByRole('button', { name: '登记收款' }).click();
  await dialogNamed(page, /登记收款/).getByText(`先冲抵「${later.node}」`).waitFor();
  await dialogNamed(page, /登记收款/).getByRole('button', { name: '记账' }).click();
  await page.getByText('已登记收款').first().waitFor();
  // Settled, it leaves 已逾期 (the list the page opens on); the earlier stage stays as it was.
  await table.locator('tbody tr').filter({ hasText: later.code }).filter({ hasText: later.node }).waitFor({ state: 'detached' });
  check((await table.locator('tbody tr').filter({ hasText: later.code }).filter({ hasText: earlier.node }).locator('td').nth(5).innerText()) === earlierBefore, `the earlier stage ${earlier.node} keeps ${earlierBefore}`);
  await visit(page, '/project/index');
  await page.locator('.crud .table tbody tr').first().getByRole('link', { name: '详情' }).first().click();
  await page.waitForURL((u) => u.pathname.startsWith('/project/detail/'));
  await page.getByText('合同总额').first().waitFor();
  await shot(page, 'role-finance-project');
});

test('print layouts: 入库单, 上架单, 拣货单 (bin walking order), 送货单 on 241 mm paper and a contract summary, each printed to PDF', async (t) => {
  const { page } = await session(t, { user: 'liuqiang' });
  const W = '/api/blade-api/wms';
  const rk = (await bladeCall(t, 'GET', `${W}/order/rk/list?orderStatus_equal=4&size=1`)).records[0];
  const ckShipped = (await bladeCall(t, 'GET', `${W}/order/ck/list?orderStatus_equal=4&size=1`)).records[0];
  const ckOpen = (await bladeCall(t, 'GET', `${W}/order/ck/list?orderStatus_equal=1&size=1`)).records[0]
    ?? (await bladeCall(t, 'GET', `${W}/order/ck/list?orderStatus_equal=2&size=1`)).records[0];
  check(rk && ckShipped && ckOpen, 'the demo has a finished inbound order, a shipped and an open outbound order');
  const { readFileSync, statSync } = await import('node:fs');
  const printed = async (path, name, pdf) => {
    await visit(page, path);
    await page.locator('.print-lines tbody tr').first().waitFor();
    await page.locator('.print-qr').waitFor();
    await shot(page, name);
    const file = join(ARTIFACTS, name + '.pdf');
    await page.emulateMedia({ media: 'print' });
    await page.pdf({ path: file, ...pdf, printBackground: true, preferCSSPageSize: true });
    await page.emulateMedia({ media: 'screen' });
    check(readFileSync(file).subarray(0, 5).toString() === '%PDF-' && statSync(file).size > 8000, `${name}.pdf is a PDF`);
    return page.locator('.print-page').innerText();
  };
  // From the document's own page, the way a clerk gets there.
  await visit(page, `/wms/order/rk/detail/${rk.orderNo}`);
  await page.getByRole('link', { name: '打印入库单' }).click();
  await page.waitForURL(`**/print/rk/${rk.orderNo}`);
  let text = await printed(`/print/rk/${rk.orderNo}`, 'print-rk', { format: 'A4' });
  check(text.includes('入库单') && text.includes(rk.orderNo) && text.includes('收货人') && text.includes('送货人'), 'the receipt has its number and signature lines');
  text = await printed(`/print/up/${rk.orderNo}`, 'print-up', { format: 'A4' });
  check(text.includes('上架单') && text.includes('已上架'), 'the put-away list lists the bins put away');
  text = await printed(`/print/pick/${ckOpen.orderNo}`, 'print-pick', { format: 'A4' });
  const bins = await page.locator('.print-lines tbody tr td:nth-child(2)').allInnerTexts();
  const sorted = [...bins].sort((a, b) => a.localeCompare(b, 'zh-CN', { numeric: true }));
  check(JSON.stringify(bins) === JSON.stringify(sorted), `pick list in bin walking order: ${bins.join(' ')}`);
  // The delivery note defaults to the 241 mm continuous paper.
  text = await printed(`/print/ck/${ckShipped.orderNo}`, 'print-delivery', { width: '241mm', height: '140mm' });
  check(text.includes('送货单') && text.includes('发货人') && text.includes('收货人'), 'the delivery note has its signature lines');
  check(await page.getByLabel('纸张').inputValue() === 'cont', '241 mm paper chosen for 送货单');
  // Each line that left names the batches its picks took (a line asks for goods, not a batch).
  const shippedRows = (await page.locator('.print-lines tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.innerText.trim()))))
    .filter((r) => /^\d+$/.test(r[0]) && Number(r[6]) > 0);
  check(shippedRows.length > 0 && shippedRows.every((r) => /\S/.test(r[3])), `the delivery note names each shipped line's batch: ${JSON.stringify(shippedRows.map((r) => r[3]))}`);
  const admin = await session(t);
  const contract = (await bladeCall(t, 'POST', '/api/blade-scm/contract/list', { contractStatus: 2, size: 1 })).records[0];
  await visit(admin.page, `/print/contract/${contract.contractCode}`);
  await admin.page.locator('.print-lines tbody tr').first().waitFor();
  await shot(admin.page, 'print-contract');
  await admin.page.pdf({ path: join(ARTIFACTS, 'print-contract.pdf'), format: 'A4', printBackground: true });
  check((await admin.page.locator('.print-page').innerText()).includes('合同总额'), 'the contract summary gives its total');
});

async function main() {
  const bin = process.argv[2];
  if (!bin) { console.error('usage: node tests/browser/run.mjs <path-to-zhizhuang-binary>'); process.exit(2); }
  mkdirSync(ARTIFACTS, { recursive: true });
  for (const f of readdirSync(ARTIFACTS)) if (f.startsWith('FAILED-')) rmSync(join(ARTIFACTS, f)); // from an earlier run
  const started = Date.now();
  server = await startServer(resolve(bin));
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--lang=zh-CN'] });
  let passed = 0;
  const failed = [];
  try {
    // ZZ_ONLY=<text> runs only the tests whose name contains it.
    for (const { name, fn } of tests.filter((x) => !process.env.ZZ_ONLY || x.name.includes(process.env.ZZ_ONLY))) {
      const t = { problems: [], allow: [], contexts: [], user: null };
      const t0 = Date.now();
      let err = null;
      try {
        await fn(t);
        await sleep(50); // let late console messages arrive
      } catch (e) {
        err = e;
      }
      for (const c of t.contexts) {
        if (err) {
          const page = c.pages().at(-1);
          if (page) await page.screenshot({ path: join(ARTIFACTS, 'FAILED-' + name.replace(/[^\w]+/g, '-').slice(0, 60) + '.png') }).catch(() => {});
        }
        await c.close().catch(() => {});
      }
      const ms = Date.now() - t0;
      if (!err && t.problems.length === 0) {
        passed++;
        console.log(`  ok   ${name} (${ms} ms)`);
      } else {
        const why = [err ? (err instanceof Fail ? err.message : String(err.stack || err).split('\n').slice(0, 6).join('\n      ')) : null, ...t.problems].filter(Boolean);
        failed.push(name);
        console.log(`  FAIL ${name} (${ms} ms)\n      ${why.join('\n      ')}`);
      }
    }
  } finally {
    await browser.close().catch(() => {});
    await server.stop();
  }
  if (failed.length && process.env.ZZ_SHOW_SERVER_LOG) console.log(server.log.join(''));
  console.log(`  (${((Date.now() - started) / 1000).toFixed(1)} s; screenshots in ${ARTIFACTS})`);
  console.log(`browser: ${passed} passed, ${failed.length} failed`);
  process.exit(failed.length ? 1 : 0);
}

main().catch(async (e) => {
  console.error(e);
  try { await browser?.close(); } catch { /* ignore */ }
  try { await server?.stop(); } catch { /* ignore */ }
  console.log(`browser: 0 passed, ${tests.length} failed`);
  process.exit(1);
});
