// Add / edit / view dialog of the generic list screen; validation on blur (SPEC §5).
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from '../../i18n/react';
import { useApp } from '../../app';
import type { Field, ResourceSchema } from '../../types';
import { Dialog, FormRow } from '../../components/ui/dialog';
import { fieldError, plainMoney } from '../../lib/validators';
import { ApiError } from '../../lib/api';
import { detail, save as saveRecord, lookup, refKey, narrowOf, narrowedBy } from '../../lib/resource';
import { display, fieldLabel } from './ListPage';
import { RegionPicker } from './RegionPicker';
import { RoomsEditor } from './RoomsEditor';
import { FilesField } from './FilesField';

export function FormDialog({ resource: res, mode, row, onClose, onSaved }: { resource: ResourceSchema; mode: 'add' | 'edit' | 'view'; row?: any; onClose: () => void; onSaved: (added: boolean) => void }) {
  const { t } = useTranslation();
  const { props } = useApp();
  const fields = res.fields.filter((f) => f.form);
  // Editing or viewing a record shows the columns the server keeps (on hand, location…) as plain text above the
  // form, so a person sees what they change (a count of a stock row shows the goods, the bin and what is on hand).
  const kept = mode === 'add' ? [] : res.fields.filter((f) => f.readonly && f.list);
  // A new record names its maker where its declaration says so (`ui.addSelf`: a project's 项目经理 is, at first,
  // whoever adds it; a 项目经理 limited to his own projects could not save one naming nobody).
  const [form, setForm] = useState<Record<string, any>>(() => {
    if (row) return { ...row };
    const me = props.user;
    if (mode !== 'add' || !me?.userId) return {};
    return Object.fromEntries(fields.filter((f) => f.ui?.addSelf === true).flatMap((f) => [[f.name, me.userId], [refKey(f.name), me.realName]]));
  });
  const [errors, setErrors] = useState<Record<string, string | null>>({});
  const [msg, setMsg] = useState<string | null>(null);
  const ro = mode === 'view';

  useEffect(() => {
    // The record as stored (a list row may be a summary); a record that cannot be read says why.
    if (row?.id != null) detail(res, String(row.id)).then((d) => d && setForm(d)).catch((e) => setMsg(e instanceof ApiError ? e.message : 'err.unknown'));
  }, [res.api, row?.id]);

  const L = (f: Field) => fieldLabel(f, props.locale);
  const check = (f: Field, v: unknown) => {
    const e = fieldError(f, v);
    return e ? t(e.key, { label: L(f), ...e.values }) : null;
  };
  const blur = (f: Field) => () => {
    // A money typed with ¥ and thousands separators is shown, checked and sent as the plain figure.
    const v = f.kind === 'money' ? plainMoney(form[f.name]) : form[f.name];
    if (v !== form[f.name]) setForm((x) => ({ ...x, [f.name]: v }));
    setErrors((e) => ({ ...e, [f.name]: check(f, v) }));
  };

  async function save() {
    const errs: Record<string, string | null> = {};
    fields.forEach((f) => { errs[f.name] = check(f, form[f.name]); });
    setErrors(errs);
    if (Object.values(errs).some(Boolean)) return;
    const body: Record<string, unknown> = {};
    fields.forEach((f) => { body[f.name] = (f.kind === 'money' ? plainMoney(form[f.name]) : form[f.name]) ?? ''; });
    if (mode === 'edit') body.id = row.id;
    try {
      await saveRecord(res, body);
      onSaved(mode === 'add');
    } catch (e) {
      setMsg(e instanceof ApiError ? e.message : 'err.unknown');
    }
  }

  const edit = res.ui?.editLabel ? (props.locale === 'en' ? res.ui.editLabel[1] : res.ui.editLabel[0]) : t('crud.editTitle');
  const title = (mode === 'add' ? t('crud.addTitle') : mode === 'edit' ? edit : t('crud.viewTitle')) + ' · ' + fieldLabel(res, props.locale);
  const yesNo: [string, string] = [t('common.yes'), t('common.no')];
  return (
    <Dialog open onOpenChange={(o) => { if (!o) onClose(); }} title={title} width={640}
      footer={ro ? <button className="btn" onClick={onClose}>{t('common.close')}</button> : <><button className="btn" onClick={onClose}>{t('common.cancel')}</button><button className="btn btn-primary" onClick={save}>{t('common.save')}</button></>}>
      <form className="crud-form" onSubmit={(e) => { e.preventDefault(); if (!ro) void save(); }}>
        {kept.length > 0 && (
          <dl className="kept">
            {kept.map((f) => [<dt key={'t-' + f.name}>{L(f)}</dt>, <dd key={'d-' + f.name}>{display(f, form[f.name], res.dicts, form, yesNo) || '—'}</dd>])}
          </dl>
        )}
        {fields.map((f) => {
          const id = 'f-' + f.name;
          const v = form[f.name] ?? '';
          const set = (x: unknown) => setForm({ ...form, [f.name]: x });
          let ctl;
          if (f.refers && f.multi) ctl = <RefsPicker id={id} field={f} value={String(v ?? '')} disabled={ro} onChange={(val) => setForm({ ...form, [f.name]: val })} />;
          else if (f.refers) {
            // A choice that narrows others (项目 → 合同) clears theirs when it changes.
            ctl = <RefPicker id={id} field={f} value={String(v)} label={form[refKey(f.name)] ?? ''} disabled={ro} narrow={narrowOf(f, (n) => form[n])}
              onChange={(val, text) => {
                const cleared = String(form[f.name] ?? '') === val ? {} : Object.fromEntries(narrowedBy(fields, f.name).flatMap((n) => [[n, ''], [refKey(n), '']]));
                setForm({ ...form, ...cleared, [f.name]: val, [refKey(f.name)]: text });
              }} />;
          }
          else if (f.ui?.control === 'rooms') ctl = <RoomsEditor id={id} value={v} disabled={ro} onChange={(rooms) => setForm({ ...form, [f.name]: rooms })} />;
          else if (f.ui?.control === 'files') ctl = <FilesField id={id} value={String(v ?? '')} names={typeof f.ui?.names === 'string' ? form[f.ui.names] : undefined} disabled={ro} onChange={(links) => setForm({ ...form, [f.name]: links })} />;
          else if (f.ui?.control === 'region') ctl = <RegionPicker id={id} value={String(v ?? '')} disabled={ro} onChange={(code) => setForm({ ...form, [f.name]: code })} />;
          else if (f.dict) ctl = (
            <select id={id} value={String(v)} disabled={ro} onChange={(e) => set(e.target.value)} onBlur={blur(f)}>
              <option value="">{t('common.choose')}</option>
              {(res.dicts[f.dict] ?? []).map((d) => <option key={d.dictKey} value={d.dictKey}>{d.dictValue}</option>)}
            </select>
          );
          else if (f.kind === 'flag') ctl = <input id={id} type="checkbox" checked={v === 1 || v === '1' || v === true} disabled={ro} onChange={(e) => set(e.target.checked ? 1 : 0)} />;
          else if (ro && f.kind === 'textarea' && isHtml(v)) ctl = <div id={id} className="html-text" role="textbox" aria-readonly="true" aria-multiline="true" aria-label={L(f)}>{htmlText(String(v))}</div>;
          else if (f.kind === 'textarea' || f.kind === 'json') ctl = <textarea id={id} value={typeof v === 'object' ? JSON.stringify(v) : String(v)} readOnly={ro} rows={3} onChange={(e) => set(e.target.value)} onBlur={blur(f)} />;
          else if (f.kind === 'date' && !ro && /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}/.test(String(row?.[f.name] ?? ''))) {
            // A date stored with its time (通知日期 2026-12-04 09:30:00): a date box would show it empty. Chosen by
            // the record as loaded, so the box stays a date-time box while its value is being typed.
            ctl = <input id={id} type="datetime-local" step={1} value={String(v).replace(' ', 'T')} onChange={(e) => set(fromLocal(e.target.value))} onBlur={blur(f)} />;
          }
          else ctl = <input id={id} type={f.kind === 'date' && !ro ? 'date' : 'text'} placeholder={f.autoCode && mode === 'add' ? t('crud.autoCode') : undefined} inputMode={f.kind === 'int' || f.kind === 'long' || f.kind === 'decimal' || f.kind === 'money' || f.kind === 'qty' ? 'decimal' : undefined} value={String(v)} readOnly={ro} maxLength={f.maxLen} onChange={(e) => set(e.target.value)} onBlur={blur(f)} />;
          return <FormRow key={f.name} label={L(f)} htmlFor={id} required={f.required && !ro} error={errors[f.name]}>{ctl}</FormRow>;
        })}
        {msg && <div className="form-err" role="alert">{t(msg)}</div>}
      </form>
    </Dialog>
  );
}

/** Several records of another resource (a comma-separated list of ids): chips to remove, a picker to add. */
export function RefsPicker({ id, field, value, disabled, onChange }: { id: string; field: Field; value: string; disabled?: boolean; onChange: (ids: string) => void }) {
  const ref = field.refers!;
  const ids = value.split(',').map((s) => s.trim()).filter(Boolean);
  const [titles, setTitles] = useState<Record<string, string>>({});
  useEffect(() => {
    if (ids.length === 0) return;
    lookup(ref.resource, { ids: ids.join(','), size: 50 })
      .then((d) => setTitles(Object.fromEntries((d?.records ?? []).map((r) => [r.id, r.title]))))
      .catch(() => setTitles({}));
  }, [ref.resource, value]);
  return (
    <div className="refs-picker">
      {ids.map((x) => (
        <span key={x} className="tag">
          {titles[x] ?? x}
          {!disabled && <button type="button" className="link" aria-label={`× ${titles[x] ?? x}`} onClick={() => onChange(ids.filter((y) => y !== x).join(','))}>×</button>}
        </span>
      ))}
      {!disabled && <RefPicker id={id} field={field} value="" label="" onChange={(val, text) => { setTitles({ ...titles, [val]: text }); if (!ids.includes(val)) onChange([...ids, val].join(',')); }} />}
    </div>
  );
}

/**
 * Picks a record of another resource: type to search its list (by the field it is known by), choose one.
 * The chosen record's title shows; the form keeps its id.
 */
export function RefPicker({ id, field, value, label, disabled, narrow, onChange }: { id: string; field: Field; value: string; label: string; disabled?: boolean; narrow?: Record<string, string>; onChange: (id: string, title: string) => void }) {
  const { t } = useTranslation();
  const ref = field.refers!;
  const [text, setText] = useState('');
  const [open, setOpen] = useState(false);
  const [rows, setRows] = useState<{ id: string; title: string; hint: string }[]>([]);
  // The option the arrow keys are on (-1: none); Enter picks it.
  const [active, setActive] = useState(-1);
  // Leaving the box closes its list a moment later (a click on an option lands first); coming back, or typing,
  // before that moment cancels it (a dialog opened by the choice and confirmed at once gave the focus back and
  // the late close then swallowed what was typed next).
  const closing = useRef<ReturnType<typeof setTimeout> | null>(null);
  const stay = () => { if (closing.current) { clearTimeout(closing.current); closing.current = null; } };
  // A refusal is said as such (the form needs a right the user lacks), never shown as "no match".
  const [refused, setRefused] = useState<string | null>(null);
  useEffect(() => {
    if (!open) return;
    const timer = setTimeout(() => {
      lookup(ref.resource, { keyword: text.trim(), size: 20, staff: ref.staff, holds: ref.holds, narrow })
        .then((d) => {
          const found = (d?.records ?? []).map((r) => ({ id: r.id, title: r.title, hint: r.hint ?? '' }));
          setRefused(null);
          setRows(found);
          setActive((a) => Math.min(a, found.length - 1));
        })
        .catch((e) => { setRows([]); setRefused(e instanceof ApiError ? e.message : String(e)); });
    }, 200);
    return () => clearTimeout(timer);
  }, [open, text, ref.resource, ref.staff, ref.holds, JSON.stringify(narrow ?? {})]);
  // A chosen record whose title the page does not know (a filter from the address, after a reload): its title is
  // asked once, so the box never shows a bare id.
  // Until it comes (and in the server's render) the box is empty with "读取中…"; a record that cannot be read (gone,
  // or out of the user's reach) shows its id, so the chosen filter is still visible and can be cleared.
  const [known, setKnown] = useState<{ id: string; title: string | null } | null>(null);
  useEffect(() => {
    if (!value || label || known?.id === value) return;
    lookup(ref.resource, { ids: value, size: 1 })
      .then((d) => { const r = d?.records?.[0]; setKnown({ id: value, title: r ? r.title : null }); })
      .catch(() => setKnown({ id: value, title: null }));
  }, [value, label, ref.resource]);
  const pending = !!value && !label && known?.id !== value;
  const shown = label || (known?.id === value ? known.title ?? value : '');
  if (disabled) return <input id={id} value={shown} readOnly />;
  const pick = (r: { id: string; title: string }) => { onChange(r.id, r.title); setOpen(false); setActive(-1); };
  // ↓ / ↑ walk the options (opening the list), Enter picks the one walked to, Escape closes the list alone (the
  // dialog around it stays: `Dialog` lets an open combobox have its Escape).
  const onKeyDown = (e: { key: string; preventDefault: () => void }) => {
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      if (!open) { setOpen(true); return; }
      if (rows.length) setActive((a) => (e.key === 'ArrowDown' ? (a + 1) % rows.length : (a <= 0 ? rows.length - 1 : a - 1)));
    } else if (e.key === 'Enter' && open && rows[active]) {
      e.preventDefault();
      pick(rows[active]);
    } else if (e.key === 'Escape' && open) {
      setOpen(false);
      setActive(-1);
    }
  };
  return (
    <div className="ref-picker">
      <input id={id} role="combobox" aria-expanded={open} aria-controls={`${id}-options`} aria-autocomplete="list" aria-activedescendant={open && rows[active] ? `${id}-opt-${active}` : undefined}
        autoComplete="off" placeholder={pending ? t('ref.loading') : (value && shown) || t('ref.search')}
        value={open ? text : shown}
        onFocus={() => { stay(); setOpen(true); setText(''); }} onClick={() => { stay(); setOpen(true); }}
        onBlur={() => { stay(); closing.current = setTimeout(() => { closing.current = null; setOpen(false); }, 150); }}
        onKeyDown={onKeyDown}
        onChange={(e) => { stay(); setText(e.target.value); setOpen(true); setActive(-1); }} />
      {open && (
        <ul className="ref-options" role="listbox" id={`${id}-options`}>
          {refused && <li className="muted" role="alert">{t('ref.refused')}{refused}</li>}
          {!refused && rows.length === 0 && <li className="muted">{t('ref.none')}</li>}
          {rows.map((r, i) => (
            <li key={r.id} id={`${id}-opt-${i}`} role="option" aria-selected={r.id === value} className={i === active ? 'active' : undefined}
              onMouseDown={(e) => { e.preventDefault(); pick(r); }}>
              {r.title}{r.hint && <span className="muted"> {r.hint}</span>}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** Rich text of a client that writes HTML (a notice's 通知内容 from the Saber editor): it starts with a tag. */
export function isHtml(v: unknown): boolean {
  return typeof v === 'string' && /^\s*<(p|div|h[1-6]|ul|ol|li|table|br|span|strong|b|section|blockquote)\b[^>]*>/i.test(v);
}

/** The text of such HTML as it reads: blocks and breaks as lines, tags dropped, the common entities decoded. Never
 * parsed into the page: no markup of a record can run. */
export function htmlText(html: string): string {
  const ent: Record<string, string> = { nbsp: ' ', lt: '<', gt: '>', amp: '&', quot: '"', '#39': "'", apos: "'" };
  return html
    .replace(/<\s*br\s*\/?>/gi, '\n')
    .replace(/<\/\s*(p|div|h[1-6]|li|tr|blockquote|section)\s*>/gi, '\n')
    .replace(/<[^>]*>/g, '')
    .replace(/&(nbsp|lt|gt|amp|quot|#39|apos);/g, (_, k: string) => ent[k])
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** `yyyy-MM-dd HH:mm:ss` from a datetime-local box's `yyyy-MM-ddTHH:mm[:ss]`. */
function fromLocal(v: string): string {
  if (!v) return '';
  const [d, t = ''] = v.split('T');
  return `${d} ${t.length === 5 ? t + ':00' : t}`;
}
