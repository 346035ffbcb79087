import { expect, test } from 'bun:test';
import { bytes, duration } from './StatusPage';

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
