import { expect, test } from 'bun:test';
import { createStore, memoryBackend } from './storage';

test('prefixed keys, {dataType, content, type, datetime}, session when typed', () => {
  const local = memoryBackend(), session = memoryBackend();
  const s = createStore('saber', local, session, () => 1234);
  s.set('tagList', [{ a: 1 }]);
  expect(JSON.parse(local.getItem('saber-tagList')!)).toEqual({ dataType: 'object', content: [{ a: 1 }], datetime: 1234 });
  s.set('isLock', true, 'session');
  expect(local.getItem('saber-isLock')).toBeNull();
  expect(JSON.parse(session.getItem('saber-isLock')!)).toEqual({ dataType: 'boolean', content: true, type: 'session', datetime: 1234 });
  expect(s.get('isLock')).toBe(true);
  expect(s.get('tagList')).toEqual([{ a: 1 }]);
  expect(s.get('missing')).toBeUndefined();
  s.remove('isLock');
  expect(s.get('isLock')).toBeUndefined();
});

test('clear only touches this prefix in the chosen store', () => {
  const local = memoryBackend(), session = memoryBackend();
  local.setItem('other-x', '1');
  const s = createStore('saber', local, session);
  s.set('a', 1); s.set('b', 2); s.set('c', 3, 'session');
  s.clear();
  expect(local.length).toBe(1);
  expect(s.get('c')).toBe(3);
  s.clear('session');
  expect(s.get('c')).toBeUndefined();
});
