// Where the UI keeps its session (SPEC §9, issue 52 item 10). The server sets the cookies on every token
// answer — `zz-token` (the access token, for server-rendered pages and downloads) and `zz-refresh` (sent only
// to the token endpoint) — HttpOnly and SameSite=Strict, so no script reads them. The script keeps only the
// access token, for the Blade-Auth header, in local storage as Saber does (`saber-token`); it never holds a
// refresh token: a refresh sends none and the server takes its cookie.
export const ACCESS = 'saber-access-token';
export const REFRESH = 'saber-refresh-token';
export const TOKEN_KEY = 'saber-token';

export function clearCookie(name: string): string {
  return `${name}=; expires=Thu, 01 Jan 1970 00:00:00 GMT; path=/; SameSite=Lax`;
}
export function readCookie(cookie: string, name: string): string | null {
  for (const part of cookie.split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return decodeURIComponent(v.join('='));
  }
  return null;
}
const local = (): Storage | null => (typeof localStorage === 'undefined' ? null : localStorage);

/** The access token as the storage module writes an item ({dataType, content, datetime}). */
export function setToken(access: string) {
  local()?.setItem(TOKEN_KEY, JSON.stringify({ dataType: 'string', content: access, datetime: Date.now() }));
  // Cookies a script set before the server set its own (sessions begun before this version) go.
  if (typeof document !== 'undefined' && /(?:^|;\s*)saber-(?:access|refresh)-token=/.test(document.cookie)) {
    document.cookie = clearCookie(ACCESS);
    document.cookie = clearCookie(REFRESH);
  }
}
export function clearTokens() {
  local()?.removeItem(TOKEN_KEY);
  if (typeof document !== 'undefined') {
    document.cookie = clearCookie(ACCESS);
    document.cookie = clearCookie(REFRESH);
  }
}
export function getToken(): string | null {
  const raw = local()?.getItem(TOKEN_KEY);
  if (raw) {
    try {
      const v = JSON.parse(raw)?.content;
      if (typeof v === 'string' && v) return v;
    } catch { /* unreadable: none */ }
  }
  // A session begun before this version still has its script-set cookie.
  return typeof document === 'undefined' ? null : readCookie(document.cookie, ACCESS);
}
