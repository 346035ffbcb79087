// Sidebar menu from the menu routes, filtered by role (SPEC §2, §6).
// The tree is plain host elements built by one function (no component per group), so the
// server writes it through Host; which groups are open is one piece of state here.
import { useEffect, useState, type ReactNode } from 'react';
import type { MenuNode } from '../../types';
import { menuTarget } from '../../lib/menu';
import { Host } from '../../components/ui/host';

/** Ids of the groups on the way to the menu at `path` (null when no menu has that path). */
function groupsTo(menus: MenuNode[], path: string): string[] | null {
  for (const m of menus) {
    if (m.path === path) return m.children?.length ? [m.id] : [];
    const inner = m.children?.length ? groupsTo(m.children, path) : null;
    if (inner) return [m.id, ...inner];
  }
  return null;
}

/** The groups at the same level as `id` (its siblings), with everything under them. */
function siblingsOf(menus: MenuNode[], id: string): string[] | null {
  if (menus.some((m) => m.id === id)) {
    const under = (ms: MenuNode[]): string[] => ms.flatMap((m) => (m.children?.length ? [m.id, ...under(m.children)] : []));
    return menus.filter((m) => m.id !== id && m.children?.length).flatMap((m) => [m.id, ...under(m.children ?? [])]);
  }
  for (const m of menus) {
    const inner = m.children?.length ? siblingsOf(m.children, id) : null;
    if (inner) return inner;
  }
  return null;
}

/**
 * An accordion: opening a group closes the other open groups of its level (so the sidebar never grows to
 * thousands of pixels); clicking an open group closes it.
 */
export function toggleGroup(menus: MenuNode[], open: ReadonlySet<string>, id: string): Set<string> {
  const next = new Set(open);
  if (next.delete(id)) return next;
  for (const s of siblingsOf(menus, id) ?? []) next.delete(s);
  next.add(id);
  return next;
}

/** Going to a page opens the groups on its way and closes the others. */
export function groupsFor(menus: MenuNode[], path: string, open: ReadonlySet<string>): ReadonlySet<string> {
  const way = groupsTo(menus, path);
  if (!way) return open;
  return way.reduce<ReadonlySet<string>>((s, id) => (s.has(id) ? s : toggleGroup(menus, s, id)), open);
}

export function Sidebar({ menus, current, collapsed, go, label }: { menus: MenuNode[]; current: string; collapsed: boolean; go: (m: MenuNode) => void; label: string }) {
  const [open, setOpen] = useState<ReadonlySet<string>>(() => new Set(groupsTo(menus, current) ?? []));
  // Going to a page (from a tag, the menu search or a link) opens the groups that hold it.
  useEffect(() => {
    setOpen((s) => groupsFor(menus, current, s));
  }, [current, menus]);
  const toggle = (id: string) => setOpen((s) => toggleGroup(menus, s, id));

  const list = (items: MenuNode[], depth: number): ReactNode => (
    <ul className={'menu-list depth-' + depth}>
      {items.map((m) => {
        const icon = <span className="menu-icon" aria-hidden="true">{(m.name || '?').slice(0, 1)}</span>;
        if (m.children?.length) {
          const on = open.has(m.id);
          return (
            <li key={m.id} className={'menu-group' + (on ? ' open' : '')}>
              <button type="button" aria-expanded={on} onClick={() => toggle(m.id)}>
                {icon}<span className="menu-name">{m.name}</span><span className="caret" aria-hidden="true" />
              </button>
              {on && list(m.children, depth + 1)}
            </li>
          );
        }
        return (
          <li key={m.id}>
            <a href={menuTarget(m).href} className={m.path === current ? 'active' : ''} aria-current={m.path === current ? 'page' : undefined}
              onClick={(e) => { e.preventDefault(); go(m); }}>
              {icon}<span className="menu-name">{m.name}</span>
            </a>
          </li>
        );
      })}
    </ul>
  );

  return (
    <aside className={'sidebar' + (collapsed ? ' collapsed' : '')}>
      <Host tag="nav" aria-label={label}>{list(menus, 0)}</Host>
    </aside>
  );
}
