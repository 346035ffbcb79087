// Theme dialog (SPEC §2): 11 themes and a primary colour (default #409EFF), persisted locally.
import { useTranslation } from 'react-i18next';
import { Dialog } from '../../components/ui/dialog';

export const THEMES = ['default', 'white', 'dark', 'star', 'bule', 'iview', 'vip', 'cool', 'd2', 'hey', 'lte'] as const;
export const DEFAULT_COLOR = '#409EFF';

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
