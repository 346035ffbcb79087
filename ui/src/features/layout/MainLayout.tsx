// Main layout (SPEC §2): header, sidebar, tag bar, main view. Client-only duties run in
// effects: the lock part of the guard, token refresh timers, theme, screen size.
import * as DM from '@radix-ui/react-dropdown-menu';
import { useEffect, useMemo, useState, type CSSProperties, type ReactNode } from 'react';
import { useTranslation } from '../../i18n/react';
import { useApp, splitUrl } from '../../app';
import type { MenuNode } from '../../types';
import { filterByRole, menuTarget, rootMenus } from '../../lib/menu';
import { store } from '../../lib/storage';
import { screenSize } from '../../lib/screen';
import { logout, startRefreshTimers } from '../../lib/auth';
import { configure } from '../../lib/api';
import { Sidebar } from './Sidebar';
import { TagBar } from './TagBar';
import { MenuSearch } from './MenuSearch';
import { LockDialog } from './LockDialog';
import { ThemeDialog, applyTheme, initialTheme, themeCookie, DEFAULT_COLOR } from './ThemeDialog';
import { LangSwitch } from './LangSwitch';
import { ErrorLog } from './ErrorLog';
import { MessageBell } from '../desk/Messages';
import { useAsk, useOpenedOnce } from '../../components/ui/dialog';
import { Dropdown } from '../../components/ui/menu';
import { IconFeedback, IconFullscreen, IconLock, IconMenu, IconPlus, IconSearch, IconStar, IconTheme } from '../../components/ui/icons';

const EDU_TENANT = '157270';

export function MainLayout({ title, children }: { title: string; children: ReactNode }) {
  const { t } = useTranslation();
  const { props, navigate } = useApp();
  const [asking, ask] = useAsk();
  const prefix = props.site.storagePrefix;
  const path = splitUrl(props.url)[0];
  const menus = useMemo(() => filterByRole(rootMenus(props.menus), props.user?.roleName), [props.menus, props.user?.roleName]);
  const [collapsed, setCollapsed] = useState(false);
  const [search, setSearch] = useState(false);
  const [lock, setLock] = useState(false);
  const [themeOpen, setThemeOpen] = useState(false);
  // Rendered with the theme the server read from the cookie, so nothing flashes on load.
  const [theme, setTheme] = useState(() => initialTheme(props.theme));
  const edu = props.tenant.id === EDU_TENANT;
  // SPEC §2 shows the search for tenant 157270; a tenant setting (parameter zz.search.box) shows it elsewhere.
  const searchBox = edu || props.site.searchBox === true;
  // Closed dialogs are not rendered (nor their contents built) until first opened: see useOpenedOnce.
  const searchSeen = useOpenedOnce(search);
  const lockSeen = useOpenedOnce(lock);
  const themeSeen = useOpenedOnce(themeOpen);

  useEffect(() => {
    const s = store(prefix);
    if (s.get('isLock')) { window.location.replace('/lock'); return; }
    // Pages rendered in the browser alone (no server render) apply this part of the guard here.
    if (props.user?.mustChangePassword) { window.location.replace('/password'); return; }
    configure({ tenantId: props.tenant.id, onUnauthorized: () => void logout(prefix) });
    // The cookie wins; browsers that only have the stored theme (older sessions) get the cookie now.
    const saved = props.theme ? initialTheme(props.theme) : { name: (s.get<string>('themeName') as string) || 'default', color: (s.get<string>('colorName') as string) || DEFAULT_COLOR };
    setTheme(saved);
    applyTheme(saved.name, saved.color);
    if (!props.theme && (saved.name !== 'default' || saved.color !== DEFAULT_COLOR)) document.cookie = themeCookie(saved.name, saved.color);
    if (screenSize(window.innerWidth) === 0) setCollapsed(true);
    return startRefreshTimers(prefix);
  }, [prefix, props.tenant.id]);

  const go = (m: MenuNode) => {
    // An external system nobody has set up yet (外部系统 without an address) says so instead of going nowhere.
    if (!m.path) {
      window.alert(t('common.notConfiguredHint', { key: `site.app.${(m.code ?? '').replace(/^external_/, '')}` }));
      return;
    }
    const target = menuTarget(m);
    if (target.newWindow) window.open(target.href, '_blank', 'noopener');
    else navigate(target.href);
    if (screenSize(window.innerWidth) <= 1) setCollapsed(true);
  };
  const changeTheme = (name: string, color: string) => {
    setTheme({ name, color });
    applyTheme(name, color);
    store(prefix).set('themeName', name);
    store(prefix).set('colorName', color);
    document.cookie = themeCookie(name, color);
  };
  const fullscreen = () => {
    if (document.fullscreenElement) void document.exitFullscreen();
    else void document.documentElement.requestFullscreen?.();
  };

  return (
    <div className={'layout theme-' + theme.name + (collapsed ? ' is-collapsed' : '')} style={{ '--primary': theme.color } as CSSProperties}>
      {asking}
      <header className="top">
        <div className="logo"><span className="logo-long">{props.site.title}</span><span className="logo-short" aria-hidden="true">{props.site.title.slice(0, 1)}</span></div>
        <button type="button" className="icon-btn" aria-label={t('top.collapse')} aria-pressed={collapsed} onClick={() => setCollapsed(!collapsed)}><IconMenu /></button>
        <div className="top-spacer" />
        {searchBox && <button type="button" className="icon-btn" aria-label={t('top.search')} title={t('top.search')} onClick={() => setSearch(true)}><IconSearch /></button>}
        {edu && <span className="hide-phone"><ErrorLog prefix={prefix} /></span>}
        {edu && <button type="button" className="icon-btn hide-phone" aria-label={t('top.lock')} title={t('top.lock')} onClick={() => setLock(true)}><IconLock /></button>}
        {edu && <LangSwitch />}
        <button type="button" className="icon-btn hide-phone" aria-label={t('top.theme')} title={t('top.theme')} onClick={() => setThemeOpen(true)}><IconTheme /></button>
        <button type="button" className="icon-btn hide-phone" aria-label={t('top.fullscreen')} title={t('top.fullscreen')} onClick={fullscreen}><IconFullscreen /></button>
        {props.site.feedbackUrl
          ? <a className="icon-btn hide-phone" href={props.site.feedbackUrl} target="_blank" rel="noopener noreferrer" aria-label={t('top.feedback')} title={t('top.feedback')}><IconFeedback /></a>
          : <button type="button" className="icon-btn unset hide-phone" aria-disabled="true" aria-label={`${t('top.feedback')}（${t('common.notConfigured')}）`} title={t('common.notConfiguredHint', { key: 'site.feedback' })} onClick={() => window.alert(t('common.notConfiguredHint', { key: 'site.feedback' }))}><IconFeedback /></button>}
        {props.site.appraiseUrl
          ? <a className="icon-btn hide-phone" href={props.site.appraiseUrl} target="_blank" rel="noopener noreferrer" aria-label={t('top.appraise')} title={t('top.appraise')}><IconStar /></a>
          : <button type="button" className="icon-btn unset hide-phone" aria-disabled="true" aria-label={`${t('top.appraise')}（${t('common.notConfigured')}）`} title={t('common.notConfiguredHint', { key: 'site.appraise' })} onClick={() => window.alert(t('common.notConfiguredHint', { key: 'site.appraise' }))}><IconStar /></button>}
        <MessageBell />
        <a className="icon-btn" href="/worklist/addworklist" aria-label={t('top.addWork')} title={t('top.addWork')} onClick={(e) => { e.preventDefault(); navigate('/worklist/addworklist'); }}><IconPlus /></a>
        <Dropdown className="user-btn" align="end" trigger={<>
          <img src={props.user?.avatar || '/img/avatar.png'} alt="" width={28} height={28} />
          <span>{props.user?.realName ?? ''}</span>
        </>}>
          <DM.Item className="menu-item" onSelect={() => navigate('/wel/dashboard')}>{t('top.dashboard')}</DM.Item>
          <DM.Item className="menu-item" onSelect={() => navigate('/info/index')}>{t('top.userInfo')}</DM.Item>
          <DM.Separator className="menu-sep" />
          {/* Asked in the app's own dialog (the browser's confirm() blocks the page and reads 「此网页显示」). Opened
              after the menu has closed, so the menu's focus return does not close it again. */}
          <DM.Item className="menu-item" onSelect={() => { setTimeout(() => void ask({ text: t('top.logoutConfirm') }).then((v) => { if (v !== null) void logout(prefix); }), 0); }}>{t('top.logout')}</DM.Item>
        </Dropdown>
      </header>
      <Sidebar menus={menus} current={path} collapsed={collapsed} go={go} label={t('menu.nav')} />
      {/* On a phone the open menu is a drawer over the page: a tap beside it closes it. */}
      <div className="drawer-backdrop" aria-hidden="true" onClick={() => setCollapsed(true)} />
      <div className="main">
        <TagBar title={title} onSearch={() => setSearch(true)} />
        <main className="view">{children}</main>
      </div>
      {searchSeen && <MenuSearch open={search} onOpenChange={setSearch} menus={menus} go={go} navigate={navigate} />}
      {lockSeen && <LockDialog open={lock} onOpenChange={setLock} prefix={prefix} />}
      {themeSeen && <ThemeDialog open={themeOpen} onOpenChange={setThemeOpen} theme={theme.name} color={theme.color} onChange={changeTheme} />}
    </div>
  );
}
