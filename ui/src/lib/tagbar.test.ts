import { expect, test } from 'bun:test';
import { HOME, close, closeAll, closeOthers, closable, initial, open, search, tagLabels, named } from './tagbar';

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

test('a new construct\'s tag becomes the saved construct\'s', () => {
  const a = { label: 'menu.constructInfo', value: '/construct/info?projectId=7' };
  let s = open(open(initial(), { label: 'menu.param', value: '/system/param' }), a);
  s = open(s, { ...a, value: '/construct/info/SG20261206-0001/edit/crew' });
  expect(s.tags.map((t) => t.value)).toEqual(['/wel/index', '/system/param', '/construct/info/SG20261206-0001/edit/crew']);
  // Not when the creating page is not the one going on (another tag was chosen meanwhile).
  s = open(s, a);
  s = open(s, { label: 'menu.param', value: '/system/param' });
  s = open(s, { ...a, value: '/construct/info/SG20261206-0002' });
  expect(s.tags.length).toBe(5);
  let w = open(initial(), { label: 'menu.addWorklist', value: '/worklist/addworklist' });
  w = open(w, { label: 'menu.worklistView', value: '/worklist/view/GD20261206-0001' });
  expect(w.tags.map((t) => t.value)).toEqual(['/wel/index', '/worklist/view/GD20261206-0001']);
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

test('a page names its tag: the name tells same-titled tags apart, a title replaces the route title', () => {
  let s = initial();
  s = open(s, { label: 'menu.stockCard', value: '/wms/stock/card/14328282727514147' });
  s = open(s, { label: 'menu.stockCard', value: '/wms/stock/card/14328282727514999' });
  s = named(s, '/wms/stock/card/14328282727514147', '防水涂料');
  expect(named(s, '/wms/stock/card/14328282727514147', '防水涂料')).toBe(s);
  expect(named(s, '/nowhere', 'x')).toBe(s);
  let shown = tagLabels(s.tags, (t) => (t.label === 'menu.stockCard' ? '库存卡片' : t.label));
  expect(shown.get('/wms/stock/card/14328282727514147')).toBe('库存卡片 · 防水涂料');
  expect(shown.get('/wms/stock/card/14328282727514999')).toBe('库存卡片 · 2');
  // A long name is cut to sixteen characters.
  s = named(s, '/wms/stock/card/14328282727514999', '全屋定制实木复合地板 1220×200×15mm');
  shown = tagLabels(s.tags, (t) => t.label);
  expect(shown.get('/wms/stock/card/14328282727514999')).toBe('menu.stockCard · 全屋定制实木复合地板 1220…');
  // The 0 of a process without a business record is numbered, not shown; a page's title replaces its route's.
  let f = initial();
  f = open(f, { label: 'menu.flowDetail', value: '/work/process/flow/detail/101/0' });
  f = open(f, { label: 'menu.flowDetail', value: '/work/process/flow/detail/102/0' });
  f = open(f, { label: 'menu.flowHandle', value: '/work/process/leave/handle/7/103/55' });
  f = named(f, '/work/process/leave/handle/7/103/55', '吴军 · 事假', '调整申请');
  shown = tagLabels(f.tags, (t) => t.label);
  expect([shown.get('/work/process/flow/detail/101/0'), shown.get('/work/process/flow/detail/102/0')]).toEqual(['menu.flowDetail · 1', 'menu.flowDetail · 2']);
  expect(shown.get('/work/process/leave/handle/7/103/55')).toBe('调整申请');
});
