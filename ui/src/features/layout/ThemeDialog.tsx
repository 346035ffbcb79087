// Theme dialog (SPEC §2): 11 themes and a primary colour (default #409EFF), persisted locally.
import { useTranslation } from '../../i18n/react';
import { Dialog } from '../../components/ui/dialog';

export const THEMES = ['default', 'white', 'dark', 'star', 'bule', 'iview', 'vip', 'cool', 'd2', 'hey', 'lte'] as const;
export const DEFAULT_COLOR = '#409EFF';

/** The cookie the server reads to render the theme on the first paint: `zz-theme=<name>|<#rrggbb>`, URL-encoded. */
export function themeCookie(theme: string, color: string): string {
  return `zz-theme=${encodeURIComponent(theme + '|' + color)}; path=/; max-age=31536000; SameSite=Lax`;
}

/** The theme to render with: the server's (from the cookie), else the default. */
export function initialTheme(t: { name: string; color: string | null } | null | undefined): { name: string; color: string } {
  if (!t || !(THEMES as readonly string[]).includes(t.name)) return { name: 'default', color: DEFAULT_COLOR };
  return { name: t.name, color: t.color && /^#[0-9a-fA-F]{6}$/.test(t.color) ? t.color : DEFAULT_COLOR };
}

export function applyTheme(theme: string, color: string) {
  const b = document.body;
  b.className = b.className.split(' ').filter((c) => !c.startsWith('theme-')).concat('theme-' + theme).join(' ').trim();
  document.documentElement.style.setProperty('--primary', color);
}

export function ThemeDialog(p: { open: boolean; onOpenChange: (o: boolean) => void; theme: string; color: string; onChange: (theme: string, color: string) => void }) {
  const { t } = useTranslation();
  return (
    <Dialog open={p.open} onOpenChange={p.onOpenChange} title={t('theme.title')} width={560}>
      <div className="theme-grid" role="radiogroup" aria-label={t('theme.title')}>
        {THEMES.map((th) => (
          <button key={th} type="button" role="radio" aria-checked={p.theme === th} className={'theme-swatch theme-' + th} onClick={() => p.onChange(th, p.color)}>{t('theme.' + th)}</button>
        ))}
      </div>
      <label className="theme-color">{t('theme.color')} <input type="color" value={p.color} onChange={(e) => p.onChange(p.theme, e.target.value)} /></label>
    </Dialog>
  );
}
