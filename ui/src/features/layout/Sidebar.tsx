// Sidebar menu from the menu routes, filtered by role (SPEC §2, §6).
import { useState } from 'react';
import type { MenuNode } from '../../types';
import { menuTarget } from '../../lib/menu';
import { IconChevronRight } from '../../components/ui/icons';

export function Sidebar({ menus, current, collapsed, go, label }: { menus: MenuNode[]; current: string; collapsed: boolean; go: (m: MenuNode) => void; label: string }) {
  return (
    <aside className={'sidebar' + (collapsed ? ' collapsed' : '')}>
      <nav aria-label={label}><MenuList items={menus} current={current} go={go} depth={0} /></nav>
    </aside>
  );
}

function contains(m: MenuNode, path: string): boolean {
  return m.path === path || !!m.children?.some((c) => contains(c, path));
}

function MenuList({ items, current, go, depth }: { items: MenuNode[]; current: string; go: (m: MenuNode) => void; depth: number }) {
  return (
    <ul className={'menu-list depth-' + depth}>
      {items.map((m) => (m.children && m.children.length ? <Group key={m.id} m={m} current={current} go={go} depth={depth} /> : (
        <li key={m.id}>
          <a href={menuTarget(m).href} className={m.path === current ? 'active' : ''} aria-current={m.path === current ? 'page' : undefined}
            onClick={(e) => { e.preventDefault(); go(m); }}>
            <span className="menu-icon" aria-hidden="true">{(m.name || '?').slice(0, 1)}</span><span className="menu-name">{m.name}</span>
          </a>
        </li>
      )))}
    </ul>
  );
}

function Group({ m, current, go, depth }: { m: MenuNode; current: string; go: (m: MenuNode) => void; depth: number }) {
  const [open, setOpen] = useState(contains(m, current));
  return (
    <li className={'menu-group' + (open ? ' open' : '')}>
      <button type="button" aria-expanded={open} onClick={() => setOpen(!open)}>
        <span className="menu-icon" aria-hidden="true">{(m.name || '?').slice(0, 1)}</span><span className="menu-name">{m.name}</span><span className="caret" aria-hidden="true"><IconChevronRight /></span>
      </button>
      {open && <MenuList items={m.children!} current={current} go={go} depth={depth + 1} />}
    </li>
  );
}
