import { expect, test } from 'bun:test';
import { guard, isSocialBrowser } from './guard';

const base = { path: '/wel/index', query: new URLSearchParams(), hasToken: true, locked: false, isPublic: false };

test('signed in: locked goes to /lock, /login goes on', () => {
  expect(guard(base)).toBeNull();
  expect(guard({ ...base, locked: true })).toEqual({ redirect: '/lock' });
  expect(guard({ ...base, locked: true, path: '/lock', isPublic: true })).toBeNull();
  expect(guard({ ...base, path: '/login', isPublic: true })).toEqual({ redirect: '/wel/index' });
  expect(guard({ ...base, path: '/login', isPublic: true, query: new URLSearchParams('redirect=/system/param') })).toEqual({ redirect: '/system/param' });
  expect(guard({ ...base, path: '/login', isPublic: true, query: new URLSearchParams('redirect=//evil.com') })).toEqual({ redirect: '/wel/index' });
  // Tabs, newlines and backslashes browsers would read as `//`: refused (the probe's `%2F%09%2Fevil.example`).
  for (const q of ['redirect=%2F%09%2Fevil.example', 'redirect=%2F%0A%2Fevil.example', 'redirect=%2F%5Cevil.example', 'redirect=/%5C/evil.example', 'redirect=https://evil.example']) {
    expect(guard({ ...base, path: '/login', isPublic: true, query: new URLSearchParams(q) })).toEqual({ redirect: '/wel/index' });
  }
  expect(guard({ ...base, path: '/login', isPublic: true, query: new URLSearchParams('redirect=%2Fsystem%2Fparam%3Fa%3D1%23x') })).toEqual({ redirect: '/system/param?a=1#x' });
});

test('signed in with a password someone else set: only /password, until it is changed', () => {
  for (const path of ['/wel/index', '/system/param', '/login', '/info/index']) {
    expect(guard({ ...base, path, mustChange: true })).toEqual({ redirect: '/password' });
  }
  expect(guard({ ...base, path: '/password', mustChange: true })).toBeNull();
  // Changed (or never asked): /password has nothing to do and goes on to the desk.
  expect(guard({ ...base, path: '/password' })).toEqual({ redirect: '/wel/index' });
  // Signed out, /password asks for a sign-in first.
  expect(guard({ ...base, hasToken: false, path: '/password' })).toEqual({ redirect: '/login?redirect=%2Fpassword' });
});

test('signed out: public routes pass, others go to /login with the way back', () => {
  expect(guard({ ...base, hasToken: false, path: '/login', isPublic: true })).toBeNull();
  expect(guard({ ...base, hasToken: false, path: '/404', isPublic: true })).toBeNull();
  expect(guard({ ...base, hasToken: false, path: '/system/param', query: new URLSearchParams('a=1') })).toEqual({ redirect: '/login?redirect=%2Fsystem%2Fparam%3Fa%3D1' });
});

test('social-messaging browser without code goes to its authorisation page', () => {
  const ua = 'Mozilla/5.0 MicroMessenger/8.0';
  expect(isSocialBrowser(ua)).toBe(true);
  expect(guard({ ...base, userAgent: ua, socialAuthUrl: 'https://auth.example/x' })).toEqual({ redirect: 'https://auth.example/x', external: true });
  expect(guard({ ...base, userAgent: ua, socialAuthUrl: 'https://auth.example/x', query: new URLSearchParams('code=abc') })).toBeNull();
  expect(guard({ ...base, userAgent: ua, socialAuthUrl: null })).toBeNull();
});
