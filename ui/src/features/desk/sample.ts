// Fixed sample data of the home widgets (SPEC §1: the dashboard is static placeholder content).
// Pure functions of their inputs, so server and client compute the same tree.
import { PROVINCES } from './geo/paths';

export const BUS = ['all', 'TOB', 'BBC', 'TOC', 'SC'] as const;
export type Bu = (typeof BUS)[number];
export const PERIODS = ['year', 'quarter', 'month'] as const;
export type Period = (typeof PERIODS)[number];

/** Projects per province for a BU and period: a fixed spread, scaled by period. */
export function projectCounts(bu: Bu, period: Period): { code: string; name: string; x: number; y: number; value: number }[] {
  const b = BUS.indexOf(bu);
  const scale = period === 'year' ? 12 : period === 'quarter' ? 3 : 1;
  return PROVINCES.map(([code, name, x, y], i) => {
    const seed = (Number(code.slice(0, 2)) * 37 + i * 13 + b * 29) % 41;
    return { code, name, x, y, value: (seed + (b === 0 ? 8 : 2)) * scale };
  });
}

/** The top-5 scatter: SPEC §9 says it "uses the 6 largest values"; read literally, the six
 * largest are taken (ties broken by province code) and the first five of them are drawn. */
export function top5Of6<T extends { code: string; value: number }>(rows: T[]): T[] {
  const six = [...rows].sort((a, b) => b.value - a.value || a.code.localeCompare(b.code)).slice(0, 6);
  return six.slice(0, 5);
}

export const PROBLEMS = [
  { key: 'desk.problem.material', value: 32, color: '#409EFF' },
  { key: 'desk.problem.schedule', value: 24, color: '#67C23A' },
  { key: 'desk.problem.quality', value: 18, color: '#E6A23C' },
  { key: 'desk.problem.design', value: 14, color: '#F56C6C' },
  { key: 'desk.problem.other', value: 12, color: '#909399' },
] as const;

export const URGENT = ['desk.sample.urgent1', 'desk.sample.urgent2', 'desk.sample.urgent3'] as const;
export const MESSAGES = ['desk.sample.msg1', 'desk.sample.msg2'] as const;
export const APPROVALS = [
  { key: 'desk.approval.todo', n: 12 },
  { key: 'desk.approval.done', n: 86 },
  { key: 'desk.approval.sent', n: 7 },
] as const;
