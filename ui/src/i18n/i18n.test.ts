// The screens' strings (./index.ts): what i18next answered for the app's uses, answered the same.
import { expect, test } from 'bun:test';
import { i18nFor } from './index';
import zh from './zh.json';
import en from './en.json';

const someKey = Object.keys(zh).find((k) => !(zh as Record<string, string>)[k].includes('{{'))!;
const varKey = Object.keys(zh).find((k) => (zh as Record<string, string>)[k].includes('{{'))!;

test('a key in the locale, else in Chinese, else the key itself; exists says which', () => {
  expect(i18nFor('zh').t(someKey)).toBe((zh as any)[someKey]);
  expect(i18nFor('en').t(someKey)).toBe((en as any)[someKey]);
  expect(i18nFor('en').t('no.such.key')).toBe('no.such.key');
  expect(i18nFor('en').exists(someKey)).toBe(true);
  expect(i18nFor('zh').exists('no.such.key')).toBe(false);
  expect(i18nFor('en').language).toBe('en');
  // One instance per locale (a stable t for memoised components).
  expect(i18nFor('zh')).toBe(i18nFor('zh'));
  expect(i18nFor('zh').t).toBe(i18nFor('zh').t);
});

test('{{values}} put in, spaces and nested names allowed, a missing one left empty; defaults', () => {
  const tpl = (zh as any)[varKey] as string;
  const name = /\{\{\s*([\w.]+)\s*\}\}/.exec(tpl)![1];
  expect(i18nFor('zh').t(varKey, { [name]: 42 })).toBe(tpl.replace(/\{\{\s*[\w.]+\s*\}\}/g, (m) => (m.includes(name) ? '42' : '')));
  expect(i18nFor('zh').t('x.y', { defaultValue: '共 {{n}} 条', n: 3 })).toBe('共 3 条');
  expect(i18nFor('zh').t('x.y', '默认')).toBe('默认');
  expect(i18nFor('zh').t('x.y', { defaultValue: '{{ a.b }}/{{c}}', a: { b: 'B' } })).toBe('B/');
  expect(i18nFor('zh').t(['x.y', someKey])).toBe((zh as any)[someKey]);
});
