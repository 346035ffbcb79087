import { expect, test } from 'bun:test';
import { createHash } from 'node:crypto';
import { md5 } from './md5';

test('known vectors', () => {
  expect(md5('')).toBe('d41d8cd98f00b204e9800998ecf8427e');
  expect(md5('abc')).toBe('900150983cd24fb0d6963f7d28e17f72');
  expect(md5('The quick brown fox jumps over the lazy dog')).toBe('9e107d9d372bb6826bd81d3542a419d6');
  expect(md5('admin')).toBe('21232f297a57a5a743894a0e4a801fc3');
});

test('utf-8 and block boundaries match node crypto', () => {
  for (const s of ['智装 密码', '😀x', 'a'.repeat(55), 'a'.repeat(56), 'a'.repeat(64), 'b'.repeat(1000)]) {
    expect(md5(s)).toBe(createHash('md5').update(s, 'utf8').digest('hex'));
  }
});
