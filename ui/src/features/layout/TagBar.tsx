// The tab bar of opened pages (SPEC §2); the rules are in lib/tagbar.ts. The server renders
// the desk tab plus the current page; tabs saved in local storage join after hydration.
import * as CM from '@radix-ui/react-context-menu';
import * as DM from '@radix-ui/react-dropdown-menu';
import { ContextMenu, Dropdown } from '../../components/ui/menu';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from '../../i18n/react';
import { useApp, splitUrl } from '../../app';
import { store } from '../../lib/storage';
import * as tb from '../../lib/tagbar';
import { Confirm } from '../../components/ui/dialog';
import { useToast } from '../../components/ui/toast';
import { IconChevronDown, IconClose } from '../../components/ui/icons';
import type { MenuNode } from '../../types';

export function TagBar({ title, onSearch }: { title: string; onSearch: () => void }) {
  const { t, i18n } = useTranslation();
  const { props, navigate } = useApp();
  const toast = useToast();
  const path = splitUrl(props.url)[0];
  const current: tb.Tag = { label: title, value: path };
  const [state, setState] = useState<tb.TagState>(() => tb.open(tb.initial(), current));
  const [confirm, setConfirm] = useState(false);
  const s = store(props.site.storagePrefix);

  useEffect(() => {
    const saved = s.get<tb.TagState>('tagList') as tb.TagState | undefined;
    const next = tb.open(saved?.tags?.length ? saved : tb.initial(), current);
    setState(next);
    s.set('tagList', next);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [path, title]);

  // A page names its tag once it has loaded what it shows (useTagName).
  useEffect(() => {
    const on = (e: Event) => {
      const d = (e as CustomEvent<tb.TagNameDetail>).detail;
      setState((cur) => {
        const next = tb.named(cur, d.path, d.name, d.title);
        if (next !== cur) s.set('tagList', next);
        return next;
      });
    };
    window.addEventListener(tb.TAG_NAME_EVENT, on);
    return () => window.removeEventListener(tb.TAG_NAME_EVENT, on);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  // The active tag is in view: opened past the bar's right edge (the twelfth tag, 个人信息 from the user menu), it
  // was off screen while its page showed.
  useEffect(() => {
    const el = document.querySelector('.tagbar .tag.active');
    if (el && typeof (el as HTMLElement).scrollIntoView === 'function') (el as HTMLElement).scrollIntoView({ block: 'nearest', inline: 'nearest' });
  }, [state.active, state.tags.length]);

  const apply = (next: tb.TagState) => {
    setState(next);
    s.set('tagList', next);
    if (next.active !== path) navigate(next.active);
  };
  // A tag keeps the words it was opened with; a menu's name is taken again from the menus of the current
  // language, so switching to English does not leave the open tags in Chinese.
  const names = useMemo(() => {
    const m = new Map<string, string>();
    const walk = (ms: MenuNode[]) => ms.forEach((x) => { if (x.path) m.set(x.path, x.name); if (x.children) walk(x.children); });
    walk(props.menus ?? []);
    return m;
  }, [props.menus]);
  const titleOf = (tag: tb.Tag) => (i18n.exists(tag.label) ? t(tag.label) : names.get(tag.value) ?? tag.label);
  const shown = tb.tagLabels(state.tags, titleOf);
  const label = (tag: tb.Tag) => shown.get(tag.value) ?? titleOf(tag);

  const actions = (Item: typeof DM.Item | typeof CM.Item) => (
    <>
      <Item className="menu-item" onSelect={onSearch}>{t('tags.search')}</Item>
      <Item className="menu-item" onSelect={() => apply(tb.closeOthers(state))}>{t('tags.closeOthers')}</Item>
      <Item className="menu-item" onSelect={() => apply(tb.closeAll(state))}>{t('tags.closeAll')}</Item>
      <Item className="menu-item" onSelect={() => setConfirm(true)}>{t('tags.clearCache')}</Item>
    </>
  );

  return (
    <div className="tagbar">
      <ContextMenu area={
          <nav className="tags" aria-label={t('tags.menu')}>
            {state.tags.map((tag) => (
              <span key={tag.value} className={'tag' + (tag.value === state.active ? ' active' : '')}>
                <a href={tag.value} onClick={(e) => { e.preventDefault(); apply({ ...state, active: tag.value }); }} aria-current={tag.value === state.active ? 'page' : undefined}>{label(tag)}</a>
                {tb.closable(state, tag.value) && (
                  <button type="button" className="tag-close" aria-label={`${t('tags.close')} ${label(tag)}`} onClick={() => apply(tb.close(state, tag.value))}><IconClose /></button>
                )}
              </span>
            ))}
          </nav>
      }>{actions(CM.Item)}</ContextMenu>
      <Dropdown className="icon-btn tag-more" label={t('tags.menu')} trigger={<IconChevronDown />} align="end">{actions(DM.Item)}</Dropdown>
      <Confirm open={confirm} onOpenChange={setConfirm} text={t('tags.clearCacheConfirm')} onConfirm={() => {
        const keep = s.get('token-meta');
        const token = s.get('token');
        const user = s.get('userInfo');
        s.clear();
        if (keep) s.set('token-meta', keep);
        if (token) s.set('token', token);
        if (user) s.set('userInfo', user);
        toast(t('tags.cleared'));
      }} />
    </div>
  );
}
