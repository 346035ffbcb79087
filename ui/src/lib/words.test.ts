import { describe, expect, test } from 'bun:test';
import { amount, yuan } from './words';
import { display } from '../features/crud/ListPage';
import type { Field } from '../types';

describe('amounts as screens show them', () => {
  test('the wire\'s exact yuan text in thousands, with its cents', () => {
    expect(amount('1280000.1')).toBe('1,280,000.10');
    expect(amount('498648.17')).toBe('498,648.17');
    expect(amount('999')).toBe('999.00');
    expect(amount('-1234.5')).toBe('-1,234.50');
    expect(amount('0')).toBe('0.00');
    expect(yuan('29640')).toBe('¥29,640.00');
    expect(yuan('-1234.5')).toBe('-¥1,234.50');
  });
  test('what is not an amount stays as it is', () => {
    expect(amount('')).toBe('');
    expect(amount(null)).toBe('');
    expect(amount('12.345')).toBe('12.345');
    expect(amount('abc')).toBe('abc');
  });
  test('a list cell of a money field is in thousands; other numbers are not', () => {
    const money = { name: 'contractAmount', kind: 'money', label: '合同金额(元)', labelEn: 'Amount' } as Field;
    const qty = { name: 'stockQty', kind: 'qty', label: '库存数量', labelEn: 'Stock' } as Field;
    expect(display(money, '568000.5', {})).toBe('568,000.50');
    expect(display(qty, '12000', {})).toBe('12000');
  });
});
