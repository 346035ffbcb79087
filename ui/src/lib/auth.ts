// Session lifecycle (SPEC §4): sign-in, refresh timers, logout.
import { call, errorMessage, qs } from './api';
import { clearTokens, readCookie, REFRESH, setToken } from './cookies';
import { md5 } from './md5';
import { store } from './storage';

export type TokenBody = Record<string, any>;
export type SignIn = { ok: true; body: TokenBody } | { ok: false; message: string } | { ok: 'register'; body: TokenBody };

export async function signIn(prefix: string, f: { tenantId: string; username: string; password: string; key: string; code: string }): Promise<SignIn> {
  const params = { tenantId: f.tenantId, username: f.username, password: md5(f.password), grant_type: 'captcha', scope: 'all', type: 'account' };
  let r;
  try {
    r = await call('POST', '/api/blade-auth/oauth/token' + qs(params), { headers: { 'Tenant-Id': f.tenantId, 'Captcha-Key': f.key, 'Captcha-Code': f.code, 'Dept-Id': '', 'Role-Id': '' } });
  } catch {
    return { ok: false, message: 'err.network' };
  }
  const b = r.body ?? {};
  if (b.error_description || r.status !== 200 || !b.access_token) return { ok: false, message: errorMessage(r.status, b) };
  const uid = String(b.user_id ?? '');
  if (uid === '' || Number(uid) < 0) {
    store(prefix).set('userInfo', b);
    return { ok: 'register', body: b };
  }
  keep(prefix, b);
  return { ok: true, body: b };
}

function keep(prefix: string, b: TokenBody) {
  // The refresh token stays in the server's HttpOnly cookie; the script keeps the access token alone.
  setToken(b.access_token);
  const s = store(prefix);
  s.set('token-meta', { expiresIn: Number(b.expires_in), issuedAt: Date.now(), tenantId: b.tenant_id });
  s.set('userInfo', { user_id: b.user_id, real_name: b.real_name, user_name: b.user_name, avatar: b.avatar, tenant_id: b.tenant_id, role_name: b.role_name, oauth_id: b.oauth_id });
  s.remove('tagList');
  s.remove('isLock');
  s.remove('lockPasswd');
}

// One refresh at a time: the timers, a sign-out and any other caller share the one in flight (two refreshes of one
// cookie would race its rotation).
let refreshing: Promise<boolean> | null = null;
export function refresh(prefix: string): Promise<boolean> {
  if (!refreshing) refreshing = refreshOnce(prefix).finally(() => { refreshing = null; });
  return refreshing;
}

async function refreshOnce(prefix: string): Promise<boolean> {
  const s = store(prefix);
  const meta = s.get<any>('token-meta') as any;
  if (!meta) return false;
  // No refresh token in the query: the server reads its own cookie (or, for a session begun before it set one,
  // the script-set cookie of then).
  const legacy = readCookie(document.cookie, REFRESH);
  const r = await call('POST', '/api/blade-auth/oauth/token' + qs({ tenantId: meta.tenantId, refresh_token: legacy ?? undefined, grant_type: 'refresh_token', scope: 'all' }), { headers: { 'Tenant-Id': meta.tenantId } });
  if (r.status !== 200 || !r.body?.access_token) return false;
  keep(prefix, r.body);
  return true;
}

/** Refresh every expires_in/2 s, plus a 10 s check against the token's age (SPEC §4). */
export function startRefreshTimers(prefix: string): () => void {
  const s = store(prefix);
  const meta = s.get<any>('token-meta') as any;
  if (!meta?.expiresIn) return () => {};
  const half = setInterval(() => void refresh(prefix), (meta.expiresIn / 2) * 1000);
  const check = setInterval(() => {
    const m = s.get<any>('token-meta') as any;
    if (m && (Date.now() - m.issuedAt) / 1000 >= m.expiresIn * 0.9) void refresh(prefix);
  }, 10_000);
  return () => { clearInterval(half); clearInterval(check); };
}

/**
 * Unlocking (SPEC §2, §4): true when the server confirms the signed-in user's password.
 * Only its MD5 travels, as at sign-in; the clear text is never stored.
 */
export async function checkPassword(tenantId: string, password: string): Promise<boolean> {
  const r = await call('POST', '/api/blade-user/check-password' + qs({ password: md5(password) }), { headers: { 'Tenant-Id': tenantId } });
  return r.status === 200 && r.body?.code === 200 && r.body?.success !== false && r.body?.data !== false;
}

/**
 * Clears token, menus, roles, tags, lock and cookies, then goes to /login. Once per page: every request answered 401
 * calls it, and a second sign-out racing the first could refresh the session back to life after the first one's
 * cookies were cleared (then /login, seeing a live cookie, sends the tab back to the desk).
 */
let leaving: Promise<void> | null = null;
export function logout(prefix: string, to = '/login'): Promise<void> {
  if (!leaving) leaving = logoutOnce(prefix, to);
  return leaving;
}

async function logoutOnce(prefix: string, to: string) {
  try {
    // The session's cookies are the server's to clear (HttpOnly). An access token that has run out (a tab asleep)
    // gets one refresh first, so that the sign-out still reaches the server and the refresh cookie goes with it.
    const r = await call('GET', '/api/blade-auth/oauth/logout');
    if (r.status === 401 && (await refresh(prefix))) await call('GET', '/api/blade-auth/oauth/logout');
  } catch { /* signing out anyway */ }
  const s = store(prefix);
  ['token-meta', 'userInfo', 'menu', 'menuAll', 'roles', 'permission', 'tagList', 'tag', 'isLock', 'lockPasswd'].forEach((k) => s.remove(k));
  clearTokens();
  window.location.assign(to);
}
