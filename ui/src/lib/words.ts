// Words and amounts as every screen shows them: the language switch's choice (`useL`: a Chinese and an English
// text, status tables by code) and money from the wire's exact yuan text (`yuan`).
import { useApp } from '../app';

/** ¥1,280,000.10 from the wire's exact "1280000.10". */
export function yuan(v: unknown): string {
  return amount(v, '¥');
}

/** 1,280,000.10 from the wire's exact "1280000.10" (a column whose title says 元); other text as it is. */
export function amount(v: unknown, sign = ''): string {
  const s = String(v ?? '');
  const m = /^(-?)(\d+)(?:\.(\d{1,2}))?$/.exec(s);
  if (!m) return s;
  return `${m[1]}${sign}${m[2].replace(/\B(?=(\d{3})+(?!\d))/g, ',')}.${(m[3] ?? '').padEnd(2, '0')}`;
}

export function useL() {
  const { props } = useApp();
  const en = props.locale === 'en';
  return { en, L: (zh: string, e: string) => (en ? e : zh), st: (m: Record<string, [string, string]>, k: unknown) => (m[String(k)] ?? [String(k ?? ''), String(k ?? '')])[en ? 1 : 0] };
}

