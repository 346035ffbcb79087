import { afterEach, expect, test } from 'bun:test';
import { checkPassword } from './auth';
import { md5 } from './md5';

const realFetch = globalThis.fetch;
afterEach(() => { globalThis.fetch = realFetch; });

function answer(status: number, body: unknown, seen: { url?: string; init?: RequestInit }) {
  globalThis.fetch = (async (url: string, init: RequestInit) => {
    seen.url = url; seen.init = init;
    return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  }) as any;
}

test('unlock sends only the MD5 of the password, by POST, with the tenant', async () => {
  const seen: { url?: string; init?: RequestInit } = {};
  answer(200, { code: 200, success: true, data: true, msg: '操作成功' }, seen);
  expect(await checkPassword('157270', 'Admin#2026')).toBe(true);
  expect(seen.url).toBe('/api/blade-user/check-password?password=' + md5('Admin#2026'));
  expect(seen.url).not.toContain('Admin');
  expect(seen.init?.method).toBe('POST');
  expect((seen.init?.headers as Record<string, string>)['Tenant-Id']).toBe('157270');
});

test('a refused or failed check keeps the screen locked', async () => {
  const seen = {};
  answer(400, { code: 400, success: false, data: null, msg: '密码错误' }, seen);
  expect(await checkPassword('000000', 'x')).toBe(false);
  answer(200, { code: 200, success: true, data: false, msg: '操作成功' }, seen);
  expect(await checkPassword('000000', 'x')).toBe(false);
  answer(404, { code: 404, success: false, data: null, msg: '接口不存在' }, seen);
  expect(await checkPassword('000000', 'x')).toBe(false);
});

test('every 401 of a page calls sign-out: one refresh, one sign-out reach the server, one trip to /login', async () => {
  const { logout } = await import('./auth');
  const { memoryBackend, store } = await import('./storage');
  const g = globalThis as any;
  const saved = { localStorage: g.localStorage, sessionStorage: g.sessionStorage, document: g.document, window: g.window };
  const went: string[] = [];
  g.localStorage = memoryBackend();
  g.sessionStorage = memoryBackend();
  g.document = { cookie: '' };
  g.window = { location: { assign: (u: string) => went.push(u) } };
  // The page's store (made once per page, by whichever module asks first).
  store('saber').set('token-meta', { expiresIn: 3600, issuedAt: Date.now(), tenantId: '157270' });
  const calls: string[] = [];
  let signedOut = 0;
  globalThis.fetch = (async (url: string) => {
    calls.push(url.split('?')[0]);
    await new Promise((r) => setTimeout(r, 5));
    if (url.startsWith('/api/blade-auth/oauth/token')) return new Response(JSON.stringify({ access_token: 'fresh', expires_in: 3600, tenant_id: '157270', user_id: '1' }), { status: 200 });
    // The first sign-out finds the tab's token run out; the one after the refresh gets through.
    const status = signedOut++ === 0 ? 401 : 200;
    return new Response(JSON.stringify({ code: status, success: status === 200, msg: '' }), { status });
  }) as any;
  try {
    await Promise.all([logout('saber'), logout('saber'), logout('saber')]);
    expect(calls).toEqual(['/api/blade-auth/oauth/logout', '/api/blade-auth/oauth/token', '/api/blade-auth/oauth/logout']);
    expect(went).toEqual(['/login']);
    expect(g.localStorage.getItem('saber-token')).toBeNull();
    expect(store('saber').get('token-meta')).toBeUndefined();
  } finally {
    Object.assign(g, saved);
  }
});
