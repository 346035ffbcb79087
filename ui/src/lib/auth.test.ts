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
