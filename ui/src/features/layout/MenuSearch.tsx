// Menu search (SPEC §2): leaf menus by case-insensitive name prefix; Esc closes; choosing navigates.
import * as D from '@radix-ui/react-dialog';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { MenuNode } from '../../types';
import { menuTarget, searchMenus } from '../../lib/menu';

export function MenuSearch({ open, onOpenChange, menus, go }: { open: boolean; onOpenChange: (o: boolean) => void; menus: MenuNode[]; go: (m: MenuNode) => void }) {
  const { t } = useTranslation();
  const [q, setQ] = useState('');
  const hits = searchMenus(menus, q);
  return (
    <D.Root open={open} onOpenChange={(o) => { onOpenChange(o); if (!o) setQ(''); }}>
      <D.Portal>
        <D.Overlay className="dlg-overlay" />
        <D.Content className="menu-search" aria-describedby={undefined}>
          <D.Title className="sr-only">{t('menu.search')}</D.Title>
          <input type="search" aria-label={t('menu.search')} placeholder={t('menu.searchPlaceholder')} value={q} onChange={(e) => setQ(e.target.value)} autoFocus />
          <ul role="listbox" aria-label={t('menu.search')}>
            {hits.map((m) => (
              <li key={m.id} role="option" aria-selected={false}>
                <a href={menuTarget(m).href} onClick={(e) => { e.preventDefault(); onOpenChange(false); setQ(''); go(m); }}>{m.name}<small>{m.path}</small></a>
              </li>
            ))}
            {q && hits.length === 0 && <li className="muted">{t('menu.noResult')}</li>}
          </ul>
        </D.Content>
      </D.Portal>
    </D.Root>
  );
}
