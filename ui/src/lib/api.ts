// Blade API client for the browser (blade-contract.md): envelope {code, success, data, msg},
// Blade-Auth bearer token, Tenant-Id, and the client's Basic credential on every call.
import { getToken } from './cookies';

export const BASIC = 'Basic c2FiZXI6c2FiZXJfc2VjcmV0';
export const TIMEOUT_MS = 50_000;

export class ApiError extends Error {
  constructor(public code: number, message: string) { super(message); }
}

/** What to show a person for a failed call: the server's message, else the error's own. */
export const errText = (e: unknown): string => (e instanceof ApiError ? e.message : String((e as Error)?.message ?? e));

let tenantId = '000000';
let onUnauthorized: () => void = () => {};
export function configure(opts: { tenantId: string; onUnauthorized: () => void }) {
  tenantId = opts.tenantId;
  onUnauthorized = opts.onUnauthorized;
}

/** The message SPEC §8 shows for a failed call (an i18n key or the server's own text). */
export function errorMessage(status: number, body: any): string {
  const desc = body?.error_description;
  if (desc === '10001' || desc === 10001) return 'err.badCredentials';
  if ((status >= 500 && status <= 505) || (status === 400 && !desc && !body?.msg)) return 'err.server';
  return body?.msg || desc || 'err.unknown';
}

export function headers(extra: Record<string, string> = {}): Record<string, string> {
  // Server messages in the language the screens show (the switch's cookie), not the browser's.
  const en = typeof document !== 'undefined' && /(?:^|;\s*)zz-lang=en(?:;|$)/.test(document.cookie);
  const h: Record<string, string> = { Authorization: BASIC, 'Tenant-Id': tenantId, 'Accept-Language': en ? 'en' : 'zh-CN', ...extra };
  const t = getToken();
  if (t) h['Blade-Auth'] = 'bearer ' + t;
  return h;
}

export function qs(params: Record<string, unknown>): string {
  const u = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') u.set(k, String(v));
  const s = u.toString();
  return s ? '?' + s : '';
}

/** Raw call: resolves with the parsed body for any HTTP 200-500 (SPEC §8), rejects otherwise. */
export async function call(method: string, url: string, opts: { body?: unknown; headers?: Record<string, string> } = {}): Promise<{ status: number; body: any }> {
  const ctrl = new AbortController();
  const timer = setTimeout(() => ctrl.abort(), TIMEOUT_MS);
  try {
    const h = headers(opts.headers);
    if (opts.body !== undefined) h['Content-Type'] = 'application/json';
    const res = await fetch(url, { method, headers: h, body: opts.body === undefined ? undefined : JSON.stringify(opts.body), signal: ctrl.signal, credentials: 'same-origin' });
    if (res.status < 200 || res.status > 500) throw new ApiError(res.status, 'err.server');
    const text = await res.text();
    let body: any = null;
    try { body = text ? JSON.parse(text) : null; } catch { body = { msg: text }; }
    return { status: res.status, body };
  } finally {
    clearTimeout(timer);
  }
}

/** Enveloped call: resolves with `data`, rejects with ApiError carrying the §8 message. */
export async function blade<T = any>(method: string, url: string, body?: unknown): Promise<T> {
  const r = await call(method, url, { body });
  const code = r.body?.code ?? r.status;
  if (code === 401 || r.status === 401) {
    onUnauthorized();
    throw new ApiError(401, r.body?.msg || 'err.unauthorized');
  }
  if (r.status !== 200 || code !== 200) throw new ApiError(code, errorMessage(r.status, r.body));
  return r.body.data as T;
}

export const get = <T = any>(url: string, params: Record<string, unknown> = {}) => blade<T>('GET', url + qs(params));
export const post = <T = any>(url: string, body?: unknown, params: Record<string, unknown> = {}) => blade<T>('POST', url + qs(params), body);

/** Uploads one file as multipart `file` (put-file and the like): resolves with `data`, rejects with ApiError. */
export async function upload<T = any>(url: string, file: File): Promise<T> {
  const fd = new FormData();
  fd.append('file', file);
  const res = await fetch(url, { method: 'POST', headers: headers(), body: fd, credentials: 'same-origin' });
  const body: any = await res.json().catch(() => null);
  if (res.status === 401 || body?.code === 401) onUnauthorized();
  if (res.status !== 200 || !body?.success) throw new ApiError(body?.code ?? res.status, errorMessage(res.status, body));
  return body.data as T;
}

/** Fetches a file with the session's headers (tokens never go in URLs) and saves it as `name`; rejects with an
 * ApiError carrying the server's message. */
export async function download(url: string, name: string): Promise<void> {
  const res = await fetch(url, { headers: headers(), credentials: 'same-origin' });
  if (!res.ok) {
    const body = await res.json().catch(() => null);
    if (res.status === 401) onUnauthorized();
    throw new ApiError(body?.code ?? res.status, errorMessage(res.status, body));
  }
  const href = URL.createObjectURL(await res.blob());
  const a = document.createElement('a');
  a.href = href;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(href), 10_000);
}

/** Uploads one file as multipart `file` to an import route; resolves with what it answers. */
export async function importFile<T = any>(url: string, file: File, params: Record<string, unknown> = {}): Promise<T> {
  return upload<T>(url + qs(params), file);
}
