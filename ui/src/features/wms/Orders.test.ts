import { expect, test } from 'bun:test';
import { signed } from './Orders';

test('a move on the stock card is signed by what it does to the balance', () => {
  expect(signed({ qty: '243', fromLoc: 'supplier', toLoc: 'recv:1' })).toBe('+243');
  expect(signed({ qty: '243', fromLoc: 'recv:1', toLoc: 'bin:2' })).toBe('243');
  expect(signed({ qty: '46', fromLoc: 'disp:1', toLoc: 'project:9' })).toBe('−46');
  expect(signed({ qty: '6', fromLoc: 'bin:2', toLoc: 'loss' })).toBe('−6');
  expect(signed({ qty: '1.5', fromLoc: 'loss', toLoc: 'bin:2' })).toBe('+1.5');
});
