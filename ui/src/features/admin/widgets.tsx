// Building blocks of the administration screens: the add/edit/view dialog driven by FormField
// specs (rules and messages of SPEC §5), the tree select, the checkable grant tree, and the
// dictionary loader. Everything here renders the same on the server and on first client render:
// data is either seeded from the server's props or arrives after hydration.
import { useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { useTranslation } from '../../i18n/react';
import { useProps } from '../../app';
import type { Page } from '../../types';
import { Dialog, FormRow } from '../../components/ui/dialog';
import { get } from '../../lib/api';
import { checkState, formErrors, fieldMessage, index, nodeLabel, nodeValue, shown, toggleCheck, treeOptions, txt, type FormField, type Mode, type Txt } from '../../lib/admin';
import { IconChevronRight } from '../../components/ui/icons';

export const useTxt = () => {
  const { locale } = useProps();
  return (x: Txt | undefined) => txt(x, locale);
};

/** The server's first-screen data (props.page) when it is of `kind`, else undefined (the screen fetches). */
export function usePageSeed<K extends 'dict' | 'user' | 'tree' | 'paged'>(kind: K): Extract<Page, { kind: K; dicts: unknown }> | undefined {
  const { page } = useProps();
  return page.kind === kind ? (page as Extract<Page, { kind: K; dicts: unknown }>) : undefined;
}

/** Runs `fn` after hydration (and after the layout configured the API client), again when `deps` change. */
export function useAfterHydration(fn: () => void, deps: unknown[]) {
  useEffect(() => {
    let live = true;
    void Promise.resolve().then(() => { if (live) fn(); });
    return () => { live = false; };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, deps);
}

export type Options = { value: string; label: string }[];
const asOptions = (xs: any[] | undefined): Options => (xs ?? []).map((x) => ({ value: String(x.dictKey), label: String(x.dictValue) }));

/**
 * Dictionary entries by code (GET dict/dictionary?code=), loaded once per screen; codes the server
 * already sent (`seed`, as props.page.dicts) are not fetched again.
 */
export function useDicts(codes: string[], seed?: Record<string, { dictKey: string; dictValue: string }[]>): Record<string, Options> {
  const [dicts, setDicts] = useState<Record<string, Options>>(() =>
    Object.fromEntries(codes.filter((c) => seed?.[c]).map((c) => [c, asOptions(seed![c])])));
  const key = codes.join(',');
  useAfterHydration(() => {
    for (const code of codes) {
      if (seed?.[code]) continue;
      get<any[]>('/api/blade-system/dict/dictionary', { code })
        .then((xs) => setDicts((d) => ({ ...d, [code]: asOptions(xs) })))
        .catch(() => {});
    }
  }, [key]);
  return dicts;
}

/**
 * A tree endpoint's forest (GET url), loaded after hydration; [] while loading or on failure. With
 * `seed` (the server's answer of the same call) the first load is skipped.
 */
export function useTree(url: string | undefined, reloadKey: unknown = 0, seed?: any[]): any[] {
  const [tree, setTree] = useState<any[]>(() => (Array.isArray(seed) ? seed : []));
  const seeded = useRef(Array.isArray(seed));
  useAfterHydration(() => {
    if (seeded.current) { seeded.current = false; return; }
    if (!url) return;
    get<any[]>(url).then((t) => setTree(Array.isArray(t) ? t : [])).catch(() => setTree([]));
  }, [url, reloadKey]);
  return tree;
}

export function TreeSelect({ id, tree, value, onChange, onBlur, disabled, hint, fallback }: { id: string; tree: any[]; value: string; onChange: (v: string) => void; onBlur?: () => void; disabled?: boolean; hint: string; fallback?: string }) {
  const opts = useMemo(() => treeOptions(tree), [tree]);
  const known = value === '' || value === '0' || opts.some((o) => o.value === value);
  return (
    <select id={id} value={value === '0' ? '' : value} disabled={disabled} onChange={(e) => onChange(e.target.value)} onBlur={onBlur}>
      <option value="">{hint}</option>
      {!known && <option value={value}>{fallback || value}</option>}
      {opts.map((o) => <option key={o.value} value={o.value}>{'\u3000'.repeat(o.depth) + o.label}</option>)}
    </select>
  );
}

/**
 * Add / edit / view dialog. `fields` carry the rules; each message shows on blur and all of
 * them on save. `onSave` gets the form and reports failure by throwing an Error whose message
 * is shown in the dialog.
 */
export function FormDialogX({ title, fields, mode, initial, width = 880, dicts, trees, onClose, onSave, footerExtra }: {
  title: string; fields: FormField[]; mode: Mode; initial: Record<string, any>; width?: number;
  dicts: Record<string, { value: string; label: string }[]>; trees: Record<string, any[]>;
  onClose: () => void; onSave: (form: Record<string, any>) => Promise<void>; footerExtra?: ReactNode;
}) {
  const { t } = useTranslation();
  const { locale } = useProps();
  const T = (x: Txt | undefined) => txt(x, locale);
  const [form, setForm] = useState<Record<string, any>>(initial);
  const [errors, setErrors] = useState<Record<string, string | null>>({});
  const [msg, setMsg] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const ro = mode === 'view';
  useEffect(() => setForm((f) => ({ ...initial, ...Object.fromEntries(Object.entries(f).filter(([k]) => !(k in initial))) })), [initial]);
  const visible = fields.filter((f) => shown(f, mode));

  async function save() {
    const errs = formErrors(fields, form, mode, locale);
    setErrors(errs);
    if (Object.keys(errs).length) return;
    setBusy(true);
    try {
      await onSave(form);
    } catch (e) {
      setMsg(e instanceof Error ? e.message : 'err.unknown');
    } finally {
      setBusy(false);
    }
  }

  return (
    <Dialog open onOpenChange={(o) => { if (!o) onClose(); }} title={title} width={width}
      footer={ro ? <button type="button" className="btn" onClick={onClose}>{t('common.close')}</button>
        : <>{footerExtra}<button type="button" className="btn" onClick={onClose}>{t('common.cancel')}</button><button type="button" className="btn btn-primary" disabled={busy} onClick={save}>{t('common.save')}</button></>}>
      <form className="adm-form" onSubmit={(e) => { e.preventDefault(); if (!ro) void save(); }}>
        {visible.map((f) => {
          const id = 'f-' + f.name;
          const v = form[f.name] ?? '';
          const dis = ro || !!f.disabledOn?.includes(mode);
          const set = (x: unknown) => setForm((cur) => ({ ...cur, [f.name]: x }));
          const blur = () => setErrors((e) => ({ ...e, [f.name]: fieldMessage(f, { ...form }, locale) }));
          const opts = f.options ? f.options.map((o) => ({ value: String(o.value), label: T(o.label) })) : f.dict ? dicts[f.dict] ?? [] : [];
          let ctl: ReactNode;
          switch (f.type) {
            case 'switch': {
              const on = v === 1 || v === '1' || v === true;
              ctl = <button id={id} type="button" role="switch" aria-checked={on} className={'switch' + (on ? ' on' : '')} disabled={dis} onClick={() => set(on ? 0 : 1)} onBlur={blur}><span className="switch-knob" /><span className="switch-text">{on ? t('common.yes') : t('common.no')}</span></button>;
              break;
            }
            case 'textarea':
              ctl = <textarea id={id} rows={3} value={String(v)} readOnly={dis} onChange={(e) => set(e.target.value)} onBlur={blur} />;
              break;
            case 'select':
              ctl = (
                <select id={id} value={String(v)} disabled={dis} onChange={(e) => set(e.target.value)} onBlur={blur}>
                  <option value="">{T(f.hint) || t('common.choose')}</option>
                  {opts.map((o) => <option key={o.value} value={o.value}>{o.label}</option>)}
                </select>
              );
              break;
            case 'radio':
              ctl = (
                <div id={id} role="radiogroup" aria-label={T(f.label)} className="radios" onBlur={blur}>
                  {opts.map((o) => (
                    <label key={o.value}><input type="radio" name={id} value={o.value} checked={String(v) === o.value} disabled={dis} onChange={() => set(o.value)} />{o.label}</label>
                  ))}
                </div>
              );
              break;
            case 'tree':
              ctl = <TreeSelect id={id} tree={trees[f.name] ?? []} value={String(v)} disabled={dis} onChange={set} onBlur={blur} hint={T(f.hint) || t('common.choose')} fallback={form['_' + f.name + 'Label']} />;
              break;
            default:
              ctl = <input id={id} type={f.type === 'password' ? 'password' : f.type === 'date' ? 'date' : 'text'} inputMode={f.type === 'number' ? 'numeric' : undefined} autoComplete={f.type === 'password' ? 'new-password' : 'off'} value={String(v)} readOnly={ro} disabled={!!f.disabledOn?.includes(mode)} onChange={(e) => set(e.target.value)} onBlur={blur} />;
          }
          return (
            <div key={f.name} className={'adm-cell span-' + (f.span ?? 12)}>
              <FormRow label={T(f.label)} htmlFor={id} required={f.required && !ro} error={errors[f.name]}>{ctl}</FormRow>
            </div>
          );
        })}
        {msg && <div className="form-err adm-msg" role="alert">{t(msg)}</div>}
      </form>
    </Dialog>
  );
}

/** A tree with a checkbox per node (checking cascades down; parents show partly checked). */
export function CheckTree({ tree, checked, onChange, label }: { tree: any[]; checked: Set<string>; onChange: (s: Set<string>) => void; label: string }) {
  const ix = useMemo(() => index(tree), [tree]);
  const [open, setOpen] = useState<Set<string>>(() => new Set());
  const node = (n: any): ReactNode => {
    const id = nodeValue(n);
    const kids: any[] = Array.isArray(n.children) ? n.children : [];
    const st = checkState(id, checked, ix);
    const isOpen = open.has(id);
    return (
      <li key={id} role="treeitem" aria-expanded={kids.length ? isOpen : undefined} aria-selected={st === 'on'}>
        <div className="ctree-row">
          {kids.length ? <button type="button" className={'ctree-caret' + (isOpen ? ' open' : '')} aria-label={(isOpen ? '−' : '+') + ' ' + nodeLabel(n)} onClick={() => { const s = new Set(open); isOpen ? s.delete(id) : s.add(id); setOpen(s); }}><IconChevronRight /></button> : <span className="ctree-caret" />}
          <label><TriBox state={st} onChange={(on) => onChange(toggleCheck(checked, id, on, ix))} />{nodeLabel(n)}</label>
        </div>
        {kids.length > 0 && isOpen && <ul role="group">{kids.map(node)}</ul>}
      </li>
    );
  };
  return (
    <div className="ctree-wrap">
      <div className="ctree-tools">
        <button type="button" className="link" onClick={() => setOpen(new Set(ix.kids.keys()))}>+</button>
        <button type="button" className="link" onClick={() => setOpen(new Set())}>−</button>
      </div>
      <ul className="ctree" role="tree" aria-label={label}>{tree.map(node)}</ul>
    </div>
  );
}

function TriBox({ state, onChange }: { state: 'on' | 'off' | 'some'; onChange: (on: boolean) => void }) {
  const ref = useRef<HTMLInputElement>(null);
  useEffect(() => { if (ref.current) ref.current.indeterminate = state === 'some'; }, [state]);
  return <input ref={ref} type="checkbox" checked={state === 'on'} aria-checked={state === 'some' ? 'mixed' : state === 'on'} onChange={(e) => onChange(e.target.checked)} />;
}
