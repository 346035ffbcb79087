// The project map's radios (business units, periods) and its top-5 pick: pure functions of their inputs, so
// server and client compute the same tree.

export const BUS = ['all', 'TOB', 'BBC', 'TOC', 'SC'] as const;
export type Bu = (typeof BUS)[number];
export const PERIODS = ['year', 'quarter', 'month'] as const;
export type Period = (typeof PERIODS)[number];

/** The top-5 scatter: SPEC §9 says it "uses the 6 largest values"; read literally, the six
 * largest are taken (ties broken by province code) and the first five of them are drawn. */
export function top5Of6<T extends { code: string; value: number }>(rows: T[]): T[] {
  const six = [...rows].sort((a, b) => b.value - a.value || a.code.localeCompare(b.code)).slice(0, 6);
  return six.slice(0, 5);
}
