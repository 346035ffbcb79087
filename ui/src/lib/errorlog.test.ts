import { expect, test } from 'bun:test';
import { badgeText } from './errorlog';

test('the error log badge is hidden at 0 and caps at 99', () => {
  expect(badgeText(0)).toBe('');
  expect(badgeText(-1)).toBe('');
  expect(badgeText(1)).toBe('1');
  expect(badgeText(99)).toBe('99');
  expect(badgeText(100)).toBe('99+');
  expect(badgeText(5000)).toBe('99+');
});
