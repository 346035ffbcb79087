// One i18next instance per locale, created synchronously so SSR renders in one pass.
import i18next, { type i18n } from 'i18next';
import zh from './zh.json';
import en from './en.json';

export type Locale = 'zh' | 'en';
const cache: Partial<Record<Locale, i18n>> = {};

export function i18nFor(locale: Locale): i18n {
  let inst = cache[locale];
  if (!inst) {
    inst = i18next.createInstance();
    inst.init({
      lng: locale,
      fallbackLng: 'zh',
      resources: { zh: { translation: zh }, en: { translation: en } },
      keySeparator: false,
      nsSeparator: false,
      interpolation: { escapeValue: false },
      initAsync: false,
      showSupportNotice: false,
    } as any);
    cache[locale] = inst;
  }
  return inst;
}
