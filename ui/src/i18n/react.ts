// The React side of ./index.ts: a provider and `useTranslation() -> { t, i18n }` (the shape of react-i18next's,
// which the screens were written against).
import { createContext, createElement, useContext, type ReactNode } from 'react';
import type { I18n } from './index';

export type { TFunction } from './index';

const Ctx = createContext<I18n | null>(null);

export function I18nextProvider({ i18n, children }: { i18n: I18n; children?: ReactNode }) {
  return createElement(Ctx.Provider, { value: i18n }, children);
}

export function useTranslation(_ns?: string | string[]) {
  const i18n = useContext(Ctx)!;
  return { t: i18n.t, i18n, ready: true } as const;
}
