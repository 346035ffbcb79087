import { periodStart } from './ChinaMap';
import { expect, test } from 'bun:test';
import { top5Of6 } from './map';
import { PROVINCES } from './geo/paths';

test('the map covers all 34 provincial divisions', () => {
  expect(PROVINCES.length).toBe(34);
  expect(new Set(PROVINCES.map((p) => p[0])).size).toBe(34);
});

test('top-5 scatter: five of the six largest values, largest first', () => {
  const rows = [3, 9, 1, 7, 5, 8, 6, 2].map((value, i) => ({ code: String(i), value }));
  expect(top5Of6(rows).map((r) => r.value)).toEqual([9, 8, 7, 6, 5]);
});

test('the map period starts a year, a quarter or a month before the chosen day', () => {
  expect(periodStart('2026-11-23', 'year')).toBe('2025-11-24');
  expect(periodStart('2026-11-23', 'quarter')).toBe('2026-08-24');
  expect(periodStart('2026-03-31', 'month')).toBe('2026-03-01');
});
