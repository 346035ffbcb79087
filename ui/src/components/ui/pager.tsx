// The pager of every list screen: total, page size (10/30/50/100/200), previous, five page numbers, next.
import { useTranslation } from '../../i18n/react';

/** Page sizes the list screens offer (SPEC §9); the default is the first. */
export const PAGE_SIZES = [10, 30, 50, 100, 200];
export function Pager({ total, current, pages, size, go }: { total: number; current: number; pages: number; size: number; go: (o: { current?: number; size?: number }) => void }) {
  const { t } = useTranslation();
  const last = Math.max(1, pages);
  const from = Math.max(1, Math.min(current - 2, last - 4));
  const nums = Array.from({ length: Math.min(5, last) }, (_, i) => from + i);
  return (
    <nav className="pager" aria-label="pagination">
      <span>{t('common.total', { total })}</span>
      <select aria-label={t('common.perPage', { n: size })} value={size} onChange={(e) => go({ size: Number(e.target.value), current: 1 })}>
        {(PAGE_SIZES.includes(size) ? PAGE_SIZES : [size, ...PAGE_SIZES]).map((n) => <option key={n} value={n}>{t('common.perPage', { n })}</option>)}
      </select>
      <button type="button" className="btn" disabled={current <= 1} onClick={() => go({ current: current - 1 })}>{t('common.prev')}</button>
      {nums.map((n) => <button key={n} type="button" className={'btn' + (n === current ? ' btn-primary' : '')} aria-current={n === current ? 'page' : undefined} onClick={() => go({ current: n })}>{n}</button>)}
      <button type="button" className="btn" disabled={current >= last} onClick={() => go({ current: current + 1 })}>{t('common.next')}</button>
    </nav>
  );
}
