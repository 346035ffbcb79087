import { expect, test } from 'bun:test';
import { bytes, duration, indexRows } from './StatusPage';

test('bytes are shown in binary units', () => {
  expect(bytes(512)).toBe('512 B');
  expect(bytes(1536)).toBe('1.5 KiB');
  expect(bytes(2155876352)).toBe('2.0 GiB');
  expect(bytes(300 * 1024 * 1024)).toBe('300 MiB');
});

test('uptime reads as days, hours and minutes', () => {
  expect(duration(90061, false)).toBe('1天 1小时 1分');
  expect(duration(90061, true)).toBe('1d 1h 1m');
});

test('the search index rows say how far it is behind', () => {
  const zh = (z: string) => z;
  expect(indexRows(null, zh)[0][1]).toContain('未启用');
  const rows = indexRows({ ready: true, seq: 90, storeSeq: 100, docs: 1000, diskBytes: 2048, rebuilds: 1, lastRebuildMs: 900 }, zh);
  expect(rows.map((r) => r[1])).toEqual(['1000 条，2.0 KiB', '10 项变更', '1（上次 900 ms）']);
  expect(indexRows({ ready: false, seq: 0, storeSeq: 5, docs: 0, diskBytes: 0, rebuilds: 0, lastRebuildMs: 0 }, zh)[0][1]).toBe('正在建立…');
});
