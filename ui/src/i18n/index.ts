// The screens' strings: one instance per locale, created synchronously so SSR renders in one pass.
//
// Why not i18next: the app asks a dictionary for a key, with {{name}} values put in, falling back to Chinese —
// nothing of plurals, namespaces, nesting or loading. i18next did that at 52 KB of the 132 KB (brotli) every first
// page carried (issue 57 item 4, target ≤ 120 KB); this does it in a few hundred bytes, with the same results for
// what the app uses (src/i18n/i18n.test.ts checks them).
import zh from './zh.json';
import en from './en.json';

export type Locale = 'zh' | 'en';
type Dict = Record<string, string>;
const DICTS: Record<Locale, Dict> = { zh: zh as Dict, en: en as Dict };
const VAR = /\{\{\s*([\w.]+)\s*\}\}/g;

export type TFunction = (key: string | string[], opts?: Record<string, unknown> | string) => string;

export class I18n {
  readonly language: Locale;
  /** The languages a key is looked up in, in order (the locale, then Chinese). */
  readonly languages: Locale[];
  private plain = new Map<string, string>();
  constructor(locale: Locale) {
    this.language = locale;
    this.languages = locale === 'zh' ? ['zh'] : [locale, 'zh'];
  }
  /** The template of `key`: the locale's, else Chinese; undefined when neither has it. */
  resource(key: string): string | undefined {
    for (const l of this.languages) {
      const v = DICTS[l][key];
      if (typeof v === 'string') return v;
    }
    return undefined;
  }
  exists(key: string): boolean {
    return this.resource(key) !== undefined;
  }
  /** The text of `key` (the first of a list that exists) with `{{name}}` values put in; the key itself when missing.
   *  A string as second argument is the default text. */
  t: TFunction = (key, opts) => {
    const keys = Array.isArray(key) ? key : [key];
    if (opts === undefined && keys.length === 1) {
      const hit = this.plain.get(keys[0]);
      if (hit !== undefined) return hit;
    }
    let tpl: string | undefined;
    for (const k of keys) if ((tpl = this.resource(k)) !== undefined) break;
    const vars = typeof opts === 'object' && opts !== null ? opts : undefined;
    if (tpl === undefined) tpl = typeof opts === 'string' ? opts : typeof vars?.defaultValue === 'string' ? vars.defaultValue : keys[keys.length - 1];
    const out = vars ? tpl.replace(VAR, (_, name: string) => {
      let v: unknown = vars;
      for (const part of name.split('.')) v = v == null ? undefined : (v as Record<string, unknown>)[part];
      return v == null ? '' : String(v);
    }) : tpl;
    if (opts === undefined && keys.length === 1) this.plain.set(keys[0], out);
    return out;
  };
}

const cache: Partial<Record<Locale, I18n>> = {};

export function i18nFor(locale: Locale): I18n {
  return (cache[locale] ??= new I18n(locale));
}
