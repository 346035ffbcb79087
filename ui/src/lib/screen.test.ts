import { expect, test } from 'bun:test';
import { screenSize } from './screen';
import { filterByRole, menuTarget, rootMenus, searchMenus } from './menu';

test('screen classes of SPEC §9', () => {
  expect([1400, 1200, 1199, 992, 991, 768, 767, 320].map(screenSize)).toEqual([3, 3, 2, 2, 1, 1, 0, 0]);
});

const tree: any[] = [{ id: '1', parentId: '0', name: '智装家', path: '/zz', children: [
  { id: '2', parentId: '1', name: '系统管理', path: '/system', children: [
    { id: '3', parentId: '2', name: '参数管理', path: '/system/param', py: 'csgl canshuguanli' },
    { id: '4', parentId: '2', name: 'Param Two', path: '/system/p2', roles: ['admin'] },
    { id: '5', parentId: '2', name: '外链', path: 'https://x.test/a.html' },
  ] },
] }];

test('menu root, role filter, leaf prefix search, external links', () => {
  const root = rootMenus(tree);
  expect(root[0].name).toBe('系统管理');
  expect(searchMenus(root, '参数').map((m) => m.path)).toEqual(['/system/param']);
  expect(searchMenus(root, 'param').map((m) => m.path)).toEqual(['/system/p2']);
  expect(searchMenus(root, '系统')).toEqual([]);
  // By the start of its pinyin initials or spelling, as people type it.
  expect(searchMenus(root, 'cs').map((m) => m.path)).toEqual(['/system/param']);
  expect(searchMenus(root, 'CanShu').map((m) => m.path)).toEqual(['/system/param']);
  expect(searchMenus(root, 'sgl')).toEqual([]);
  expect(filterByRole(root, 'user')[0].children!.map((m) => m.id)).toEqual(['3', '5']);
  expect(filterByRole(root, 'user,admin')[0].children!.length).toBe(3);
  expect(menuTarget(root[0].children![2]).href.startsWith('/myiframe/')).toBe(true);
  expect(menuTarget({ ...root[0].children![2], isOpen: 2 })).toEqual({ href: 'https://x.test/a.html', newWindow: true });
});
