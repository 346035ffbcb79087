// Token cookies (SPEC §9): expire at now + expires_in; path=/ and SameSite=Lax so the server
// can read them to render signed-in pages.
export const ACCESS = 'saber-access-token';
export const REFRESH = 'saber-refresh-token';

export function tokenCookie(name: string, value: string, expiresInSec: number, now: number, secure = false): string {
  const exp = new Date(now + expiresInSec * 1000).toUTCString();
  return `${name}=${encodeURIComponent(value)}; expires=${exp}; path=/; SameSite=Lax${secure ? '; Secure' : ''}`;
}
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
export function setTokens(access: string, refresh: string, expiresIn: number) {
  const now = Date.now();
  const secure = location.protocol === 'https:';
  document.cookie = tokenCookie(ACCESS, access, expiresIn, now, secure);
  // The refresh token outlives the access token; keep it for a week of refreshes.
  document.cookie = tokenCookie(REFRESH, refresh, Math.max(expiresIn * 2, 7 * 86400), now, secure);
}
export function clearTokens() {
  document.cookie = clearCookie(ACCESS);
  document.cookie = clearCookie(REFRESH);
}
export const getToken = () => (typeof document === 'undefined' ? null : readCookie(document.cookie, ACCESS));
