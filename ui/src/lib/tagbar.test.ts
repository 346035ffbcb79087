import { expect, test } from 'bun:test';
import { HOME, close, closeAll, closeOthers, closable, initial, open, search, tagLabels } from './tagbar';

const a = { label: 'A', value: '/a' }, b = { label: 'B', value: '/b' }, c = { label: 'Cc', value: '/c' };

test('opening adds once and activates; desk stays first', () => {
  let s = open(initial(), a);
  s = open(s, b);
  s = open(s, a);
  expect(s.tags.map((t) => t.value)).toEqual(['/wel/index', '/a', '/b']);
  expect(s.active).toBe('/a');
  expect(open({ tags: [b], active: '/b' }, c).tags[0]).toEqual(HOME);
});

test('the desk tag and the last tag cannot be closed', () => {
  const s = initial();
  expect(closable(s, HOME.value)).toBe(false);
  expect(close(s, HOME.value)).toBe(s);
  const t = open(s, a);
  expect(close(t, HOME.value)).toBe(t);
  const only = { tags: [a], active: '/a' };
  expect(close(only, '/a')).toBe(only);
});

test('closing the active tag opens the previous one', () => {
  let s = open(open(open(initial(), a), b), c);
  s = close(s, '/c');
  expect(s.active).toBe('/b');
  s = open(s, a);
  s = close(s, '/a');
  expect(s.active).toBe(HOME.value);
  expect(s.tags.map((t) => t.value)).toEqual(['/wel/index', '/b']);
});

test('closing an inactive tag keeps the active one', () => {
  const s = close(open(open(initial(), a), b), '/a');
  expect(s.active).toBe('/b');
});

test('close others keeps desk and active; close all returns to the desk', () => {
  const s = open(open(open(initial(), a), b), c);
  expect(closeOthers({ ...s, active: '/b' }).tags.map((t) => t.value)).toEqual(['/wel/index', '/b']);
  expect(closeAll(s)).toEqual({ tags: [HOME], active: '/wel/index' });
});

test('search is case-insensitive over label and path', () => {
  const s = open(open(open(initial(), a), b), c);
  expect(search(s, 'cC').map((t) => t.value)).toEqual(['/c']);
  expect(search(s, '/B').map((t) => t.value)).toEqual(['/b']);
  expect(search(s, '  ').length).toBe(4);
});

test('views of one construct share its tag; other constructs get their own', () => {
  const a = { label: 'menu.constructInfo', value: '/construct/info/SG20261123-0001/edit/crew' };
  let s = open(initial(), a);
  s = open(s, { ...a, value: '/construct/info/SG20261123-0001/view/measure' });
  expect(s.tags.map((t) => t.value)).toEqual(['/wel/index', '/construct/info/SG20261123-0001/view/measure']);
  s = open(s, { ...a, value: '/construct/info/SG20261123-0002' });
  expect(s.tags.length).toBe(3);
  expect(s.active).toBe('/construct/info/SG20261123-0002');
});

test('tags of the same title say which record each is of', () => {
  let s = initial();
  s = open(s, { label: 'menu.constructInfo', value: '/construct/info/SG-1/edit/crew' });
  s = open(s, { label: 'menu.constructInfo', value: '/construct/info/SG%202' });
  s = open(s, { label: 'menu.param', value: '/system/param' });
  const shown = tagLabels(s.tags, (t) => (t.label === 'menu.constructInfo' ? '施工单' : t.label));
  expect(shown.get('/construct/info/SG-1/edit/crew')).toBe('施工单 · SG-1');
  expect(shown.get('/construct/info/SG%202')).toBe('施工单 · SG 2');
  expect(shown.get('/system/param')).toBe('menu.param');
  expect(shown.get(HOME.value)).toBe(HOME.label);
  // Pages named by a database id (库存卡片, 项目成本详情) are numbered, not labelled with the id.
  let c = initial();
  c = open(c, { label: 'menu.stockCard', value: '/wms/stock/card/14328282727514147' });
  c = open(c, { label: 'menu.stockCard', value: '/wms/stock/card/14328282727514999' });
  const cards = tagLabels(c.tags, (t) => t.label);
  expect([cards.get('/wms/stock/card/14328282727514147'), cards.get('/wms/stock/card/14328282727514999')]).toEqual(['menu.stockCard · 1', 'menu.stockCard · 2']);
});
