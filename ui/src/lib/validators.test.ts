import { expect, test } from 'bun:test';
import zh from '../i18n/zh.json';
import en from '../i18n/en.json';
import { digits, fieldError, lockPassword, noSpace, phone, plainMoney, registerErrors, required } from './validators';

const z = (k: string | null) => (k ? (zh as Record<string, string>)[k] : null);

test('generic rules, exact SPEC §5 wording', () => {
  expect(z(required(''))).toBe('请输入内容');
  expect(z(required('  '))).toBe('请输入内容');
  expect(required('x')).toBeNull();
  expect(z(noSpace('a b'))).toBe('输入内容不能有空格');
  expect(noSpace('ab')).toBeNull();
  expect(z(digits('12a'))).toBe('输入内容需为纯数字');
  expect(digits('123')).toBeNull();
  expect(z(lockPassword(''))).toBe('锁屏密码不能为空');
});

test('phone messages', () => {
  expect(z(phone(''))).toBe('手机号码不能为空');
  expect(z(phone('1380013800'))).toBe('手机号码长度不为11位');
  expect(z(phone('23800138000'))).toBe('手机号码格式不正确');
  expect(z(phone('1380013800a'))).toBe('手机号码格式不正确');
  expect(phone('13800138000')).toBeNull();
});

test('registration rules', () => {
  const empty = { tenantId: '', name: '', account: '', password: '', password2: '' };
  const e = registerErrors(empty, false);
  expect(z(e.tenantId!)).toBe('请先输入租户编号');
  expect(z(e.account!)).toBe('请先输入账号名称');
  expect(z(e.password!)).toBe('请先输入密码');
  expect(z(e.password2!)).toBe('请先输入密码');
  expect(registerErrors(empty, true).tenantId).toBeUndefined();
  const mism = registerErrors({ ...empty, tenantId: '1', account: 'a', password: 'x', password2: 'y' }, false);
  expect(z(mism.password2!)).toBe('两次密码输入不一致');
  expect(registerErrors({ ...empty, account: 'a', password: 'x', password2: 'x' }, true)).toEqual({});
});

test('schema field rules', () => {
  const f = { kind: 'text', required: true, maxLen: 5 };
  expect(fieldError(f, '')!.key).toBe('valid.enter');
  expect(fieldError(f, 'abcdef')).toEqual({ key: 'valid.maxLen', values: { n: 5 } });
  expect(fieldError({ kind: 'int', required: false }, '1.5')!.key).toBe('valid.digits');
  expect(fieldError({ kind: 'int', required: false, min: 0 }, '-1')!.key).toBe('valid.min');
  expect(fieldError({ kind: 'text', required: true, pattern: 'phone' }, '')!.key).toBe('valid.phoneEmpty');
  expect(fieldError({ kind: 'text', required: false, pattern: 'nospace' }, 'a b')!.key).toBe('valid.noSpace');
  expect(fieldError({ kind: 'text', required: false }, '')).toBeNull();
});

test('every zh key has an en translation', () => {
  expect(Object.keys(en).sort()).toEqual(Object.keys(zh).sort());
});

test('money as people type it: ¥ and thousands separators accepted, wrong grouping refused', () => {
  expect(plainMoney('1,280,000.50')).toBe('1280000.50');
  expect(plainMoney('¥1,280,000.50')).toBe('1280000.50');
  expect(plainMoney('￥ 3，500 元')).toBe('3500');
  expect(plainMoney('１２８０．５')).toBe('1280.5');
  expect(plainMoney('-1,000')).toBe('-1000');
  const f = { kind: 'money', required: true };
  expect(fieldError(f, '¥1,280,000.50')).toBeNull();
  expect(fieldError(f, '1,28')?.key).toBe('valid.money');
  expect(fieldError(f, '12,3456')?.key).toBe('valid.money');
  expect(fieldError(f, '1.234')?.key).toBe('valid.money');
});
