import { expect, test } from 'bun:test';
import { errorMessage, qs } from './api';
import zh from '../i18n/zh.json';

const z = zh as Record<string, string>;

test('error catalogue of SPEC §8', () => {
  expect(z[errorMessage(400, { error_description: '10001' })]).toBe('账号名和密码错误');
  expect(z[errorMessage(500, { msg: 'x' })]).toBe('服务异常，请与管理员联系');
  expect(z[errorMessage(400, {})]).toBe('服务异常，请与管理员联系');
  expect(errorMessage(400, { error_description: '验证码不正确' })).toBe('验证码不正确');
  expect(errorMessage(403, { msg: '无权限' })).toBe('无权限');
  expect(z[errorMessage(404, {})]).toBe('未知错误');
});

test('query strings skip empty values', () => {
  expect(qs({ current: 1, size: 10, paramName: '', x: undefined })).toBe('?current=1&size=10');
});
