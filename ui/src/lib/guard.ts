// Navigation guard of SPEC §2, shared by the server render and the client router.
export type GuardInput = {
  path: string;
  query: URLSearchParams;
  hasToken: boolean;
  locked: boolean;
  /** Signed in with a password someone else set: nothing but /password until the user has set his own. */
  mustChange?: boolean;
  isPublic: boolean; // the route is marked as not needing authentication
  userAgent?: string;
  socialAuthUrl?: string | null;
};
export type GuardResult = { redirect: string; external?: boolean } | null;

export const isSocialBrowser = (ua = '') => /MicroMessenger|DingTalk|wxwork/i.test(ua);

export function guard(i: GuardInput): GuardResult {
  if (i.socialAuthUrl && isSocialBrowser(i.userAgent) && !i.query.get('code')) {
    return { redirect: i.socialAuthUrl, external: true };
  }
  if (i.hasToken) {
    if (i.locked && i.path !== '/lock') return { redirect: '/lock' };
    if (i.mustChange) return i.path === '/password' ? null : { redirect: '/password' };
    if (i.path === '/login' || i.path === '/password') return { redirect: safeRedirect(i.query.get('redirect')) ?? '/wel/index' };
    return null;
  }
  if (i.isPublic) return null;
  const back = i.path + (i.query.toString() ? '?' + i.query.toString() : '');
  return { redirect: '/login?redirect=' + encodeURIComponent(back) };
}

/** Only same-site absolute paths are honoured as a redirect target: `/` then no second `/`. Control characters
 * (a tab or newline browsers drop, making `/\t/evil` read `//evil`) and backslashes (read as `/`) are refused
 * outright, so what is left cannot name another host. (No `URL` here: the server renders this in QuickJS.) */
export function safeRedirect(r: string | null): string | null {
  if (!r || !r.startsWith('/') || r.startsWith('//') || /[\u0000-\u001f\u007f\\]/.test(r)) return null;
  return r;
}
