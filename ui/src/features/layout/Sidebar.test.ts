import { describe, expect, test } from 'bun:test';
import type { MenuNode } from '../../types';
import { groupsFor, toggleGroup } from './Sidebar';

const m = (id: string, path: string, children: MenuNode[] = []) => ({ id, name: id, path, children }) as unknown as MenuNode;
const menus = [
  m('sys', '/system', [m('user', '/system/user'), m('logs', '/system/logs', [m('api', '/system/logs/api')])]),
  m('scm', '/scm', [m('project', '/scm/project')]),
  m('wms', '/wms', [m('store', '/wms/store')]),
];

describe('the sidebar accordion', () => {
  test('opening a group closes the other groups of its level and what is under them', () => {
    let open = toggleGroup(menus, new Set(), 'sys');
    open = toggleGroup(menus, open, 'logs');
    expect([...open].sort()).toEqual(['logs', 'sys']);
    open = toggleGroup(menus, open, 'scm');
    expect([...open]).toEqual(['scm']);
    open = toggleGroup(menus, open, 'scm');
    expect([...open]).toEqual([]);
  });
  test('going to a page opens its way and closes the rest', () => {
    const open = groupsFor(menus, '/system/logs/api', new Set(['wms']));
    expect([...open].sort()).toEqual(['logs', 'sys']);
    const same = new Set(['scm']);
    expect(groupsFor(menus, '/nowhere', same)).toBe(same);
  });
});
