import { expect, test } from 'bun:test';
import { passwordErrors } from './PasswordPage';

test('the new password is given twice alike and differs from the current one', () => {
  expect(passwordErrors({ oldPassword: '', newPassword: '', newPassword1: '' })).toEqual({ oldPassword: 'valid.required', newPassword: 'valid.required', newPassword1: 'valid.required' });
  expect(passwordErrors({ oldPassword: 'Zz#abc', newPassword: 'Zz#abc', newPassword1: 'Zz#abc' })).toEqual({ newPassword: 'password.same' });
  expect(passwordErrors({ oldPassword: 'Zz#abc', newPassword: 'Mine#2026', newPassword1: 'Mine#2025' })).toEqual({ newPassword1: 'register.passwordMismatch' });
  expect(passwordErrors({ oldPassword: 'Zz#abc', newPassword: 'Mine#2026', newPassword1: 'Mine#2026' })).toEqual({});
  // Short, or of one kind only: refused before it is sent.
  for (const weak of ['1', 'Ab#1', '12345678', 'abcdefgh', '########']) {
    expect(passwordErrors({ oldPassword: 'Zz#abc', newPassword: weak, newPassword1: weak })).toEqual({ newPassword: 'password.rule' });
  }
  expect(passwordErrors({ oldPassword: 'Zz#abc', newPassword: '施工经理2026', newPassword1: '施工经理2026' })).toEqual({});
});
