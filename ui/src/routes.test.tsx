import { describe, expect, test } from 'bun:test';
import { matchRoute } from './routes';
import type { Props } from './types';

const props = (over: Partial<Props>): Props => ({
  url: '/', now: 0, locale: 'zh', site: { title: '智装', storagePrefix: 'saber', apps: [], socialAuthUrl: null },
  tenant: { id: '157270', name: '', knownFromHost: true }, user: null, menus: [], permissions: [], page: { kind: 'none' }, ...over,
});

describe('unknown paths (SPEC §2)', () => {
  test('signed out, a path that is no screen is the public 404', () => {
    const m = matchRoute('/no/such/page', props({ knownPath: false }));
    expect(m.route.path).toBe('/404');
    expect(m.route.public).toBe(true);
  });
  test('signed out, a screen that exists for someone asks for sign-in first', () => {
    const m = matchRoute('/system/param', props({ knownPath: true }));
    expect(m.route.public).toBe(false);
  });
  test('signed in, a path outside the menus is the 404', () => {
    const user = { userId: '1', account: 'a', realName: 'a', avatar: '', tenantId: '157270', roleName: 'admin', deptId: '' };
    const m = matchRoute('/no/such/page', props({ user, knownPath: undefined }));
    expect(m.route.path).toBe('/404');
  });
  test('signed in, a screen of the product outside his menus is 403, not 页面不存在', () => {
    const user = { userId: '1', account: 'a', realName: 'a', avatar: '', tenantId: '157270', roleName: 'staff', deptId: '' };
    const m = matchRoute('/system/user', props({ user, knownPath: true }));
    expect(m.route.path).toBe('/403');
    expect(m.route.status).toBe(403);
  });
  test('routes of the table match whatever the props say', () => {
    expect(matchRoute('/login', props({})).route.path).toBe('/login');
    expect(matchRoute('/project/detail/XM1', props({})).params.projectCode).toBe('XM1');
  });
});
