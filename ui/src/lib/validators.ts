// Form rules of SPEC §5. Each returns null when valid or an i18n key of its message
// (zh.json holds the exact spec wording).
export type Msg = string | null;

export const isBlank = (v: unknown) => v == null || String(v).trim() === '';

export function required(v: unknown, key = 'valid.required'): Msg {
  return isBlank(v) ? key : null;
}
export function noSpace(v: unknown): Msg {
  return v != null && /\s/.test(String(v)) ? 'valid.noSpace' : null;
}
export function digits(v: unknown): Msg {
  return !isBlank(v) && !/^\d+$/.test(String(v)) ? 'valid.digits' : null;
}
export function phone(v: unknown): Msg {
  const s = v == null ? '' : String(v).trim();
  if (s === '') return 'valid.phoneEmpty';
  if (s.length !== 11) return 'valid.phoneLength';
  if (!/^1\d{10}$/.test(s)) return 'valid.phoneFormat';
  return null;
}
export function email(v: unknown): Msg {
  return !isBlank(v) && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(String(v)) ? 'valid.email' : null;
}
export function lockPassword(v: unknown): Msg {
  return isBlank(v) ? 'lock.required' : null;
}

export type RegisterForm = { tenantId: string; name: string; account: string; password: string; password2: string };
/** Registration dialog rules; the tenant id is checked only when the host did not tell it. */
export function registerErrors(f: RegisterForm, tenantKnown: boolean): Partial<Record<keyof RegisterForm, string>> {
  const e: Partial<Record<keyof RegisterForm, string>> = {};
  if (!tenantKnown && isBlank(f.tenantId)) e.tenantId = 'register.tenantRequired';
  if (isBlank(f.account)) e.account = 'register.accountRequired';
  if (isBlank(f.password)) e.password = 'register.passwordRequired';
  if (isBlank(f.password2)) e.password2 = 'register.passwordRequired';
  else if (f.password2 !== f.password) e.password2 = 'register.passwordMismatch';
  return e;
}

/** A money text as people type it ("¥1,280,000.50", "1 280 000", full-width digits) in the plain form the wire
 *  takes ("1280000.50"); anything else is left as it is for the validator to refuse. */
export function plainMoney(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  const s = v.replace(/[０-９．－]/g, (c) => String.fromCharCode(c.charCodeAt(0) - 0xfee0)).replace(/^\s*[¥￥]\s*|\s*元\s*$/g, '').trim();
  // Thousands separators only where they group by three; "1,28" stays wrong.
  if (/^-?\d{1,3}([,， ]\d{3})+(\.\d*)?$/.test(s)) return s.replace(/[,， ]/g, '');
  return s;
}

export type FieldRule = {
  kind: string; required: boolean; maxLen?: number; min?: number; max?: number; pattern?: string;
};
/** A generic-list field's message key and its interpolation values, or null. */
export function fieldError(f: FieldRule, v: unknown): { key: string; values?: Record<string, unknown> } | null {
  if (f.pattern === 'phone' && (f.required || !isBlank(v))) {
    const m = phone(v);
    return m ? { key: m } : null;
  }
  if (isBlank(v)) return f.required ? { key: 'valid.enter' } : null;
  // A structured value (a measure's rooms from its table) is the server's to check.
  if (f.kind === 'json' && typeof v === 'object' && v !== null) return null;
  const s = String(v);
  if (f.maxLen != null && s.length > f.maxLen) return { key: 'valid.maxLen', values: { n: f.maxLen } };
  if (f.kind === 'int' || f.kind === 'long') {
    if (!/^-?\d+$/.test(s)) return { key: 'valid.digits' };
  }
  if (f.kind === 'decimal' && !/^-?\d+(\.\d+)?$/.test(s)) return { key: 'valid.number' };
  if (f.kind === 'qty') {
    if (!/^-?\d+(\.\d{1,4})?$/.test(s.trim())) return { key: 'valid.qty' };
    const n = Number(s);
    if (f.min != null && n < f.min) return { key: 'valid.min', values: { n: f.min } };
    if (f.max != null && n > f.max) return { key: 'valid.max', values: { n: f.max } };
  }
  if (f.kind === 'money') {
    const m = String(plainMoney(s));
    if (!/^-?\d+(\.\d{1,2})?$/.test(m)) return { key: 'valid.money' };
    const fen = Math.round(Number(m) * 100);
    if (f.min != null && fen < f.min) return { key: 'valid.min', values: { n: f.min / 100 } };
    if (f.max != null && fen > f.max) return { key: 'valid.max', values: { n: f.max / 100 } };
  }
  if (f.kind === 'int' || f.kind === 'long' || f.kind === 'decimal') {
    const n = Number(s);
    if (f.min != null && n < f.min) return { key: 'valid.min', values: { n: f.min } };
    if (f.max != null && n > f.max) return { key: 'valid.max', values: { n: f.max } };
  }
  if (f.kind === 'json') { try { JSON.parse(s); } catch { return { key: 'valid.json' }; } }
  const p = f.pattern === 'nospace' || f.pattern === 'code' ? noSpace(v) : f.pattern === 'digits' ? digits(v) : f.pattern === 'email' ? email(v) : null;
  if (p) return { key: p };
  if (f.pattern === 'code' && !/^[A-Za-z0-9_.:-]+$/.test(s)) return { key: 'valid.code' };
  return null;
}
