// The header's search (SPEC §2): leaf menus by case-insensitive name prefix, then, as you type (debounced),
// records of every screen the user may open, grouped by resource, from GET /api/blade-search/search. Enter opens
// the first match; a click opens the screen on that record; Esc closes.
import * as D from '@radix-ui/react-dialog';
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { useTranslation } from '../../i18n/react';
import type { MenuNode } from '../../types';
import { menuTarget, searchMenus } from '../../lib/menu';
import { ApiError, get } from '../../lib/api';

export type SearchHit = { resource: string; resourceLabel: string; id: string; title: string; snippet: string; fieldLabel: string; link: string };
type Found = { records: SearchHit[]; total: number };

/** Debounce of the record search while typing. */
const DEBOUNCE_MS = 250;

/** The server's highlighted text (HTML-escaped, matches in `<em>`) as React nodes: no markup is injected. */
export function marked(s: string): ReactNode[] {
  const decode = (t: string) => t.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&amp;/g, '&');
  return s.split(/(<em>.*?<\/em>)/g).filter(Boolean).map((part, i) =>
    part.startsWith('<em>') ? <mark key={i}>{decode(part.slice(4, -5))}</mark> : <span key={i}>{decode(part)}</span>);
}

/** Hits grouped by resource, in the order the groups first appear (best hit first). */
export function groupHits(hits: SearchHit[]): { label: string; hits: SearchHit[] }[] {
  const groups: { label: string; hits: SearchHit[] }[] = [];
  for (const h of hits) {
    const g = groups.find((x) => x.label === h.resourceLabel);
    if (g) g.hits.push(h);
    else groups.push({ label: h.resourceLabel, hits: [h] });
  }
  return groups;
}

export function MenuSearch({ open, onOpenChange, menus, go, navigate }: {
  open: boolean; onOpenChange: (o: boolean) => void; menus: MenuNode[]; go: (m: MenuNode) => void; navigate: (href: string) => void;
}) {
  const { t } = useTranslation();
  const [q, setQ] = useState('');
  const [found, setFound] = useState<{ q: string; data?: Found; error?: string } | null>(null);
  const latest = useRef('');
  const hits = searchMenus(menus, q);
  const needle = q.trim();

  useEffect(() => {
    latest.current = needle;
    if (!needle) { setFound(null); return; }
    const timer = setTimeout(() => {
      get<Found>('/api/blade-search/search', { q: needle, size: 20 })
        .then((data) => { if (latest.current === needle) setFound({ q: needle, data }); })
        .catch((e: unknown) => {
          if (latest.current !== needle) return;
          const building = e instanceof ApiError && e.code === 503;
          setFound({ q: needle, error: building ? t('menu.indexBuilding') : t('menu.searchFailed') });
        });
    }, DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [needle, t]);

  const close = () => { onOpenChange(false); setQ(''); setFound(null); };
  const records = found?.q === needle ? found.data?.records ?? [] : [];
  const openFirst = () => {
    if (hits[0]) { close(); go(hits[0]); return; }
    if (records[0]) { close(); navigate(records[0].link); }
  };
  const pending = needle !== '' && found?.q !== needle;

  return (
    <D.Root open={open} onOpenChange={(o) => { onOpenChange(o); if (!o) { setQ(''); setFound(null); } }}>
      <D.Portal>
        <D.Overlay className="dlg-overlay" />
        <D.Content className="menu-search" aria-describedby={undefined}>
          <D.Title className="sr-only">{t('menu.search')}</D.Title>
          <input type="search" aria-label={t('menu.search')} placeholder={t('menu.searchPlaceholder')} value={q} onChange={(e) => setQ(e.target.value)}
            onKeyDown={(e) => { if (e.key === 'Enter') { e.preventDefault(); openFirst(); } }} autoFocus />
          <ul role="listbox" aria-label={t('menu.search')}>
            {hits.map((m) => (
              <li key={m.id} role="option" aria-selected={false}>
                <a href={menuTarget(m).href} onClick={(e) => { e.preventDefault(); close(); go(m); }}>{m.name}<small>{m.path}</small></a>
              </li>
            ))}
            {needle && hits.length === 0 && <li className="muted">{t('menu.noResult')}</li>}
          </ul>
          {needle && (
            <div className="search-records" aria-live="polite">
              {pending && <p className="muted">{t('menu.searching')}</p>}
              {found?.q === needle && found.error && <p className="muted" role="alert">{found.error}</p>}
              {groupHits(records).map((g) => (
                <section key={g.label} aria-label={g.label}>
                  <h3>{g.label}</h3>
                  <ul role="listbox" aria-label={g.label}>
                    {g.hits.map((h) => (
                      <li key={h.resource + h.id} role="option" aria-selected={false}>
                        <a href={h.link} onClick={(e) => { e.preventDefault(); close(); navigate(h.link); }}>
                          <span className="hit-title">{marked(h.title)}</span>
                          <small>{h.fieldLabel}：{marked(h.snippet)}</small>
                        </a>
                      </li>
                    ))}
                  </ul>
                </section>
              ))}
              {found?.q === needle && found.data && found.data.total > records.length && (
                <p className="muted">{t('menu.searchMore', { n: found.data.total, shown: records.length })}</p>
              )}
            </div>
          )}
        </D.Content>
      </D.Portal>
    </D.Root>
  );
}
