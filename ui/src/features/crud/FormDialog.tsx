// Add / edit / view dialog of the generic list screen; validation on blur (SPEC §5).
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useApp } from '../../app';
import type { Field, ResourceSchema } from '../../types';
import { Dialog, FormRow } from '../../components/ui/dialog';
import { fieldError } from '../../lib/validators';
import { get, post, ApiError } from '../../lib/api';
import { fieldLabel } from './ListPage';

export function FormDialog({ resource: res, mode, row, onClose, onSaved }: { resource: ResourceSchema; mode: 'add' | 'edit' | 'view'; row?: any; onClose: () => void; onSaved: (added: boolean) => void }) {
  const { t } = useTranslation();
  const { props } = useApp();
  const fields = res.fields.filter((f) => f.form);
  const [form, setForm] = useState<Record<string, any>>(() => (row ? { ...row } : {}));
  const [errors, setErrors] = useState<Record<string, string | null>>({});
  const [msg, setMsg] = useState<string | null>(null);
  const ro = mode === 'view';

  useEffect(() => {
    if (row?.id != null) get(res.api + '/detail', { id: row.id }).then((d) => d && setForm(d)).catch(() => {});
  }, [res.api, row?.id]);

  const L = (f: Field) => fieldLabel(f, props.locale);
  const check = (f: Field, v: unknown) => {
    const e = fieldError(f, v);
    return e ? t(e.key, { label: L(f), ...e.values }) : null;
  };
  const blur = (f: Field) => () => setErrors((e) => ({ ...e, [f.name]: check(f, form[f.name]) }));

  async function save() {
    const errs: Record<string, string | null> = {};
    fields.forEach((f) => { errs[f.name] = check(f, form[f.name]); });
    setErrors(errs);
    if (Object.values(errs).some(Boolean)) return;
    const body: Record<string, unknown> = {};
    fields.forEach((f) => { body[f.name] = form[f.name] ?? ''; });
    if (mode === 'edit') body.id = row.id;
    try {
      await post(res.api + '/submit', body);
      onSaved(mode === 'add');
    } catch (e) {
      setMsg(e instanceof ApiError ? e.message : 'err.unknown');
    }
  }

  const title = t(mode === 'add' ? 'crud.addTitle' : mode === 'edit' ? 'crud.editTitle' : 'crud.viewTitle') + ' · ' + fieldLabel(res, props.locale);
  return (
    <Dialog open onOpenChange={(o) => { if (!o) onClose(); }} title={title} width={640}
      footer={ro ? <button className="btn" onClick={onClose}>{t('common.close')}</button> : <><button className="btn" onClick={onClose}>{t('common.cancel')}</button><button className="btn btn-primary" onClick={save}>{t('common.save')}</button></>}>
      <form className="crud-form" onSubmit={(e) => { e.preventDefault(); if (!ro) void save(); }}>
        {fields.map((f) => {
          const id = 'f-' + f.name;
          const v = form[f.name] ?? '';
          const set = (x: unknown) => setForm({ ...form, [f.name]: x });
          let ctl;
          if (f.dict) ctl = (
            <select id={id} value={String(v)} disabled={ro} onChange={(e) => set(e.target.value)} onBlur={blur(f)}>
              <option value="">{t('common.choose')}</option>
              {(res.dicts[f.dict] ?? []).map((d) => <option key={d.dictKey} value={d.dictKey}>{d.dictValue}</option>)}
            </select>
          );
          else if (f.kind === 'flag') ctl = <input id={id} type="checkbox" checked={v === 1 || v === '1' || v === true} disabled={ro} onChange={(e) => set(e.target.checked ? 1 : 0)} />;
          else if (f.kind === 'textarea' || f.kind === 'json') ctl = <textarea id={id} value={typeof v === 'object' ? JSON.stringify(v) : String(v)} readOnly={ro} rows={3} onChange={(e) => set(e.target.value)} onBlur={blur(f)} />;
          else ctl = <input id={id} type={f.kind === 'date' ? 'date' : 'text'} inputMode={f.kind === 'int' || f.kind === 'long' || f.kind === 'decimal' ? 'decimal' : undefined} value={String(v)} readOnly={ro} maxLength={f.maxLen} onChange={(e) => set(e.target.value)} onBlur={blur(f)} />;
          return <FormRow key={f.name} label={L(f)} htmlFor={id} required={f.required && !ro} error={errors[f.name]}>{ctl}</FormRow>;
        })}
        {msg && <div className="form-err" role="alert">{t(msg)}</div>}
      </form>
    </Dialog>
  );
}
