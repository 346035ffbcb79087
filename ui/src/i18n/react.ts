// The slice of react-i18next this app uses (I18nextProvider, useTranslation() -> { t, i18n }),
// aliased over the package by build.mjs. Why: react-i18next's useTranslation clones the i18n
// instance (getOwnPropertyDescriptors) on every call, and i18next's t spreads all options per
// key; on QuickJS that was about half of a 20-row list page's SSR time (issue 3 item 9).
// Here a t per i18n instance memoises plain keys and interpolates {{var}} templates directly;
// anything fancier (count, context, defaultValue, ns, lng, nested objects) goes to i18next
// unchanged, so results are identical to the real library.
import { createContext, createElement, useContext, type ReactNode } from 'react';
import type { i18n as I18n } from 'i18next';

type Opts = Record<string, unknown>;
export type TFunction = (key: string | string[], opts?: Opts | string) => string;

const Ctx = createContext<I18n | null>(null);

export function I18nextProvider({ i18n, children }: { i18n: I18n; defaultNS?: string; children?: ReactNode }) {
  return createElement(Ctx.Provider, { value: i18n }, children);
}

const SLOW = new Set(['count', 'context', 'defaultValue', 'ns', 'lng', 'lngs', 'returnObjects', 'replace', 'interpolation', 'keyPrefix', 'ordinal']);
const VAR = /\{\{\s*([\w.]+)\s*\}\}/g;
const tCache = new WeakMap<I18n, TFunction>();

function fastT(inst: I18n): TFunction {
  const plain = new Map<string, string>();
  const templates = new Map<string, string | null>();
  const slow = (key: string | string[], opts?: Opts | string) => String((inst.t as any)(key, opts));
  const template = (key: string): string | null => {
    let s = templates.get(key);
    if (s === undefined) {
      // Same resolution order as i18next here (keySeparator: false): language, then fallbacks.
      const langs = (inst as any).languages as string[] | undefined;
      s = null;
      for (const l of langs && langs.length ? langs : [inst.language, 'zh']) {
        const v = inst.getResource(l, 'translation', key);
        if (typeof v === 'string') { s = v; break; }
      }
      templates.set(key, s);
    }
    return s;
  };
  return (key, opts) => {
    if (typeof key !== 'string') return slow(key, opts);
    if (opts === undefined) {
      let s = plain.get(key);
      if (s === undefined) { s = slow(key); plain.set(key, s); }
      return s;
    }
    if (typeof opts !== 'object' || opts === null) return slow(key, opts);
    for (const k in opts) if (SLOW.has(k)) return slow(key, opts);
    const tpl = template(key);
    // Nested $t(...) references and missing keys keep i18next's own handling.
    if (tpl === null || tpl.includes('$t(')) return slow(key, opts);
    return tpl.replace(VAR, (_, name: string) => {
      const v = opts[name];
      return v == null ? '' : String(v);
    });
  };
}

export function useTranslation(_ns?: string | string[]) {
  const i18n = useContext(Ctx)!;
  let t = tCache.get(i18n);
  if (!t) { t = fastT(i18n); tCache.set(i18n, t); }
  return { t, i18n, ready: true } as const;
}
