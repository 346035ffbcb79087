// Menu tree helpers (SPEC §2, §6).
import type { MenuNode } from '../types';

/** If a node named 智装家 or 智装新家 exists at the top, its children are the menu. */
export function rootMenus(menus: MenuNode[]): MenuNode[] {
  const root = menus.find((m) => m.name === '智装家' || m.name === '智装新家');
  return root?.children ?? menus;
}

/** Keeps nodes without a role limit or whose roles include one of the user's roles. */
export function filterByRole(menus: MenuNode[], roleName: string | undefined): MenuNode[] {
  const mine = (roleName ?? '').split(',').filter(Boolean);
  return menus
    .filter((m) => !m.roles || m.roles.length === 0 || m.roles.some((r) => mine.includes(r)))
    .map((m) => (m.children ? { ...m, children: filterByRole(m.children, roleName) } : m));
}

export function leaves(menus: MenuNode[]): MenuNode[] {
  const out: MenuNode[] = [];
  const walk = (ms: MenuNode[]) => ms.forEach((m) => (m.children && m.children.length ? walk(m.children) : out.push(m)));
  walk(menus);
  return out;
}

/** Leaf menus whose name starts with the query, case-insensitively. */
export function searchMenus(menus: MenuNode[], q: string): MenuNode[] {
  const needle = q.trim().toLowerCase();
  if (!needle) return [];
  // Or by the start of its pinyin initials or spelling (`kq`, `kaoqin` for 考勤管理; `py` from the server).
  const latin = /^[a-z0-9]+$/.test(needle);
  return leaves(menus).filter((m) => m.name.toLowerCase().startsWith(needle) || (latin && !!m.py && m.py.split(' ').some((p) => p.startsWith(needle))));
}

export const isExternal = (path: string) => /^https?:\/\//i.test(path) || path.includes('html');

/** Where choosing a menu goes: external links go to the frame page. */
export function menuTarget(m: MenuNode): { href: string; newWindow: boolean } {
  if (m.isOpen === 2 && isExternal(m.path)) return { href: m.path, newWindow: true };
  if (isExternal(m.path)) {
    return { href: `/myiframe/urlPath?name=${encodeURIComponent(m.name)}&src=${encodeURIComponent(m.path)}`, newWindow: false };
  }
  return { href: m.path, newWindow: false };
}

export function findByPath(menus: MenuNode[], path: string): MenuNode | undefined {
  return leaves(menus).find((m) => m.path === path);
}
