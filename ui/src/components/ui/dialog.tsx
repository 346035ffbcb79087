// Dialog wrappers over Radix: never closed by an outside click (SPEC §2), at least 400×300.
import * as D from '@radix-ui/react-dialog';
import * as A from '@radix-ui/react-alert-dialog';
import { useRef, useState, type ReactNode } from 'react';
import { useTranslation } from '../../i18n/react';

/**
 * True from the first render where `open` is true on. Closed dialogs render nothing, yet Radix's
 * Root/Portal/Presence tree still costs a render (a good part of an SSR page): wrappers skip it
 * until the first open and then stay mounted, so later closes keep Radix's exit handling. The
 * first render (server and hydration) depends on props only, so both sides agree.
 */
export function useOpenedOnce(open: boolean): boolean {
  const [seen, setSeen] = useState(open);
  if (open && !seen) setSeen(true);
  return seen || open;
}

/**
 * A dialog opens with the cursor in its field marked `autoFocus` (a reason to type), else on its first control.
 * Preact writes `autoFocus` as the attribute, which a browser honours only while the page loads; React focused
 * the field itself.
 */
function focusMarked(e: Event) {
  const marked = (e.target as HTMLElement | null)?.querySelector?.<HTMLElement>('[autofocus]');
  if (marked) {
    e.preventDefault();
    marked.focus();
  }
}

/**
 * Focus handling of a dialog opened from code (no Radix trigger): it opens on its marked field (`focusMarked`),
 * and on closing the cursor goes back to what had it before (the button that opened it), not to the page.
 */
function useFocusReturn() {
  const opener = useRef<HTMLElement | null>(null);
  const onOpenAutoFocus = (e: Event) => {
    const was = document.activeElement;
    opener.current = was instanceof HTMLElement && was !== document.body ? was : null;
    focusMarked(e);
  };
  const onCloseAutoFocus = (e: Event) => {
    const el = opener.current;
    opener.current = null;
    if (el && el.isConnected) {
      e.preventDefault();
      el.focus();
    }
  };
  // Escape in an open list of choices (a reference picker's) closes that list, not the dialog and what was typed.
  const onEscapeKeyDown = (e: KeyboardEvent) => {
    const t = e.target as HTMLElement | null;
    if (t?.getAttribute?.('role') === 'combobox' && t.getAttribute('aria-expanded') === 'true') e.preventDefault();
  };
  return { onOpenAutoFocus, onCloseAutoFocus, onEscapeKeyDown };
}

export function Dialog(p: { open: boolean; onOpenChange: (o: boolean) => void; title: string; width?: number; children: ReactNode; footer?: ReactNode }) {
  const { t } = useTranslation();
  const focus = useFocusReturn();
  if (!useOpenedOnce(p.open)) return null;
  return (
    <D.Root open={p.open} onOpenChange={p.onOpenChange}>
      <D.Portal>
        <D.Overlay className="dlg-overlay" />
        <D.Content className="dlg" style={{ width: p.width ?? 560 }} onPointerDownOutside={(e) => e.preventDefault()} onInteractOutside={(e) => e.preventDefault()} aria-describedby={undefined}
          {...focus}>
          <div className="dlg-head">
            <D.Title className="dlg-title">{p.title}</D.Title>
            <D.Close className="icon-btn" aria-label={t('common.close')}>×</D.Close>
          </div>
          <div className="dlg-body">{p.children}</div>
          {p.footer && <div className="dlg-foot">{p.footer}</div>}
        </D.Content>
      </D.Portal>
    </D.Root>
  );
}

export function Confirm(p: { open: boolean; onOpenChange: (o: boolean) => void; text: string; onConfirm: () => void }) {
  const { t } = useTranslation();
  const focus = useFocusReturn();
  if (!useOpenedOnce(p.open)) return null;
  return (
    <A.Root open={p.open} onOpenChange={p.onOpenChange}>
      <A.Portal>
        <A.Overlay className="dlg-overlay" />
        <A.Content className="dlg dlg-confirm" {...focus}>
          <A.Title className="dlg-title">{t('common.confirm')}</A.Title>
          <A.Description className="dlg-body">{p.text}</A.Description>
          <div className="dlg-foot">
            <A.Cancel className="btn">{t('common.cancel')}</A.Cancel>
            <A.Action className="btn btn-primary" onClick={p.onConfirm}>{t('common.ok')}</A.Action>
          </div>
        </A.Content>
      </A.Portal>
    </A.Root>
  );
}

/** A labelled form row with its error message under the control. */
export function FormRow(p: { label: string; htmlFor: string; error?: string | null; required?: boolean; children: ReactNode }) {
  return (
    <div className={'form-row' + (p.error ? ' has-error' : '')}>
      <label htmlFor={p.htmlFor}>{p.required && <span className="req" aria-hidden="true">*</span>}{p.label}</label>
      <div className="form-ctl">
        {p.children}
        {p.error && <div className="form-err" role="alert">{p.error}</div>}
      </div>
    </div>
  );
}

type Ask = { text: string; reason?: string; resolve: (v: string | null) => void };

/**
 * Asks before an irreversible step: a confirmation, and with `reason` a required reason typed in. `ask(...)`
 * resolves with the reason ('' when none is asked) or null when cancelled; `node` renders the dialog.
 */
export function useAsk(): [ReactNode, (q: { text: string; reason?: string }) => Promise<string | null>] {
  const { t } = useTranslation();
  const [q, setQ] = useState<Ask | null>(null);
  const [why, setWhy] = useState('');
  const ask = (x: { text: string; reason?: string }) => new Promise<string | null>((resolve) => { setWhy(''); setQ({ ...x, resolve }); });
  const close = (v: string | null) => { q?.resolve(v); setQ(null); };
  const node = (
    <Dialog open={!!q} onOpenChange={(o) => { if (!o) close(null); }} title={t('common.confirm')} width={440}
      footer={<>
        <button type="button" className="btn" onClick={() => close(null)}>{t('common.cancel')}</button>
        <button type="button" className="btn btn-primary" disabled={!!q?.reason && !why.trim()} onClick={() => close(q?.reason ? why.trim() : '')}>{t('common.ok')}</button>
      </>}>
      <p>{q?.text}</p>
      {q?.reason && <FormRow label={q.reason} htmlFor="ask-reason" required><input id="ask-reason" value={why} autoFocus onChange={(e) => setWhy(e.target.value)} /></FormRow>}
    </Dialog>
  );
  return [node, ask];
}
