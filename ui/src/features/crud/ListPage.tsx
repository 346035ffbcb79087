// The generic list screen, driven by the ResourceSchema the server sends (architecture §7).
// Filters and paging live in the URL, so the server renders exactly what the client shows.
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from '../../i18n/react';
import { useApp, splitUrl } from '../../app';
import type { ExactFilter, Field, ResourceSchema, RowAction, ToolForm } from '../../types';
import { qs, download, errText, post } from '../../lib/api';
import { ImportDialog } from './ImportDialog';
import { useRemove } from './useRemove';
import { useToast } from '../../components/ui/toast';
import { FormDialog, RefPicker } from './FormDialog';
import { Pager } from '../../components/ui/pager';
import { Host } from '../../components/ui/host';
import { Dialog, FormRow, useAsk } from '../../components/ui/dialog';
import { narrowOf, narrowedBy, refKey, remove } from '../../lib/resource';
import { amount } from '../../lib/words';

export { PAGE_SIZES } from '../../components/ui/pager';

export function fieldLabel(f: { label: string; labelEn: string }, locale: string) {
  return locale === 'en' ? f.labelEn || f.label : f.label;
}
export function display(f: Field, v: unknown, dicts: ResourceSchema['dicts'], row?: any, yesNo?: [string, string]) {
  if (f.refers && row && row[refKey(f.name)]) return String(row[refKey(f.name)]);
  // A reference of 0 names no record (a top category).
  if (v == null || (f.refers && String(v) === '0')) return '';
  if (f.dict) return dicts[f.dict]?.find((d) => String(d.dictKey) === String(v))?.dictValue ?? String(v);
  if (f.kind === 'flag' && yesNo) return String(v) === '1' ? yesNo[0] : String(v) === '0' ? yesNo[1] : String(v);
  // Money in thousands, as the finance screens show it (the column's title says 元).
  if (f.kind === 'money') return amount(v);
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
}

/** Free text that may run long (remarks, addresses, notes): its column wraps; every other cell stays on one line. */
export const longText = (f: Field) => f.kind === 'textarea' || f.kind === 'json' || (f.kind === 'text' && (f.maxLen ?? 0) > 64 && !/(Code|No|Name)$/.test(f.name));

/**
 * Names and text that may wrap when the table would otherwise be wider than the screen (project names,
 * companies, addresses): at 1366 px a list of ten columns then fits, and no column hides under the pinned 操作.
 * Codes, dates, numbers, phones and dictionary values stay on one line.
 */
export const softText = (f: Field) =>
  !longText(f) && !f.dict && (f.kind === 'text' && !f.pattern && !/(Code|No|no|code)$/.test(f.name) || (!!f.refers && f.kind !== 'int'));

/** The class of a list cell: long text wraps in a bounded column, names may wrap, the rest stays on one line. */
export const cellClass = (f: Field) => (longText(f) ? 'wrap' : softText(f) ? 'soft' : f.kind === 'money' ? 'money' : f.dict ? 'choice' : undefined);

export function ListPage() {
  const { t } = useTranslation();
  const { props, navigate } = useApp();
  const toast = useToast();
  const page = props.page as Extract<typeof props.page, { kind: 'list' }>;
  const { resource: res, data, query, error } = page;
  const path = splitUrl(props.url)[0];
  // A few hundred button codes, looked up three times a row: a set, built once per props.
  const perms = useMemo(() => new Set(props.permissions), [props.permissions]);
  // A dialect resource offers only the actions its declaration routes (a ledger is listed, never edited here).
  const routed: Record<string, string[]> = { add: ['add', 'save'], edit: ['update', 'save'], delete: ['delete', 'remove', 'batchDelete'], view: ['detail'] };
  // A declaration may say its records are never added by hand (stock comes from documents: `ui.noAdd`).
  const removable = (row: any) => !res.ui?.removeWhen || res.ui.removeWhen.in.includes(String(row[res.ui.removeWhen.field] ?? ''));
  const editable = (row: any) => !res.ui?.editWhen || res.ui.editWhen.in.includes(String(row[res.ui.editWhen.field] ?? ''));
  const can = (op: string) => perms.has(`${res.name}_${op}`) && (!res.dialect || (routed[op] ?? [op]).some((r) => res.dialect!.routes[r])) && !(op === 'add' && res.ui?.noAdd) && !(op === 'edit' && res.ui?.noEdit);
  const yesNo: [string, string] = [t('common.yes'), t('common.no')];
  /** The edit action's name when editing means something else (a count of a stock row: 盘点). */
  const editLabel = res.ui?.editLabel ? (props.locale === 'en' ? res.ui.editLabel[1] : res.ui.editLabel[0]) : t('common.edit');
  const [filters, setFilters] = useState<Record<string, string>>(() => ({ ...query }));
  /** Titles of the records picked in reference filters (after a reload: from the rows, which all name it). */
  const [picked, setPicked] = useState<Record<string, string>>({});
  // On a phone the filters start folded (the first screen is the list); the toggle shows only there.
  const [filtersOpen, setFiltersOpen] = useState(false);
  const [selected, setSelected] = useState<string[]>([]);
  const [dialog, setDialog] = useState<{ mode: 'add' | 'edit' | 'view'; row?: any } | null>(null);
  // An address may name one record to show (`?open=<id>`: a notice from the desk or a message): its 查看 opens
  // over the list, and closing it leaves the list's own address.
  const openId = new URLSearchParams(splitUrl(props.url)[1] ?? '').get('open');
  useEffect(() => {
    if (openId && /^\d{1,20}$/.test(openId) && (!res.dialect || res.dialect.routes.detail)) setDialog({ mode: 'view', row: { id: openId } });
  }, [openId, res.api]);
  // A record its messages announce (a notice: 站内消息 link to `?open=<id>`), opened here from the desk or the
  // list, is read: its message leaves the bell (it stayed unread unless opened from the bell).
  const viewed = dialog?.mode === 'view' && res.ui?.announced ? String(dialog.row?.id ?? '') : '';
  useEffect(() => {
    if (!viewed) return;
    post('/api/blade-desk/message/read', { link: `${path}?open=${viewed}` }).then((d: any) => { if (d?.read) window.dispatchEvent(new Event('zz:messages')); }, () => {});
  }, [viewed]);
  const closeDialog = () => {
    setDialog(null);
    if (openId) navigate(path + qs(query as Record<string, unknown>), { replace: true });
  };
  const L = (f: { label: string; labelEn: string }) => fieldLabel(f, props.locale);
  // What the keyword finds through a reference, as its declaration words it (合同台账: 签约方), else the reference.
  const throughLabel = (f: Field) => {
    const k = f.ui?.keywordLabel;
    return Array.isArray(k) ? String(props.locale === 'en' ? k[1] : k[0]) : L(f);
  };
  // The declaration's list columns, less those its screen leaves to 查看 and 导出 (`ui.hide`).
  // And when it was made, where the declaration asks for it (`ui.createdColumn`: [label, English label]; 工单回复's
  // 回复时间), as the records carry it.
  const created = res.ui?.createdColumn as [string, string] | undefined;
  const cols = [
    ...res.fields.filter((f) => f.list && !res.ui?.hide?.includes(f.name)),
    ...(Array.isArray(created) ? [{ name: 'createTime', kind: 'date', label: created[0], labelEn: created[1], required: false, filter: false, sort: false, search: false, list: true, form: false } as Field] : []),
  ];
  const searchFields = res.fields.filter((f) => f.search);
  // Exact-value filters the declaration offers (the logs: 状态码, 请求接口, 操作IP), sent as `<field>_equal`.
  const exact = (res.ui?.filters ?? []).flatMap((h: ExactFilter) => {
    const f = res.fields.find((x) => x.name === h.field);
    return f ? [{ f, key: `${f.name}_equal`, options: h.options }] : [];
  });
  // The range's date: the one the declaration names (项目: 开始时间, `<field>_datege` / `_datele`), else 创建时间
  // (the spec's `createTime_dategt`; to a day's end, `createTime_datele`).
  const range = res.fields.find((f) => f.name === res.ui?.dateRange);
  const [fromKey, toKey] = range ? [`${range.name}_datege`, `${range.name}_datele`] : ['createTime_dategt', 'createTime_datele'];
  const size = data.size || 10;

  const go = (over: Record<string, string | number>) => {
    // Pages of what was searched (the address), not of what is typed in the boxes and not yet searched.
    const q: Record<string, unknown> = { ...(query as Record<string, string>), current: data.current, size, ...over };
    setSelected([]);
    navigate(path + qs(q));
  };
  const reload = () => navigate(props.url, { replace: true });
  const { ask: askDelete, confirm } = useRemove(res.dialect ? (ids) => remove(res, ids, data.records) : res.api, () => { setSelected([]); reload(); });
  /** The record's own page, when the declaration names one (`/project/detail/:projectCode`). */
  // A declaration may mark rows past a date and not yet done (a rectification past its deadline).
  const overdue = res.ui?.overdue as { date: string; field: string; done: unknown[] } | undefined;
  const today = new Date(Date.now() + 8 * 3600_000).toISOString().slice(0, 10);
  const isOverdue = (row: any) => !!overdue && !!row[overdue.date] && String(row[overdue.date]).slice(0, 10) < today && !overdue.done.map(String).includes(String(row[overdue.field]));
  // And rows whose quantity is below its floor (goods under their safety stock).
  const low = res.ui?.low;
  const isLow = (row: any) => !!low && row[low.min] != null && row[low.min] !== '' && Number(row[low.qty] ?? 0) < Number(row[low.min]);
  const detailPath = (row: any) => res.ui?.detail?.replace(/:(\w+)/g, (_, k) => encodeURIComponent(String(row[k] ?? '')));
  /** Excel of the current filter (the file holds what the screen shows, without empty stock rows unless shown). */
  const exportExcel = () => {
    const { current: _c, size: _s, zero, ...filter } = query as Record<string, string>;
    const hz = res.ui?.hideZero;
    if (hz && zero !== '1' && !Object.keys(filter).some((k) => k.startsWith(hz + '_'))) filter[hz + '_gt'] = '0';
    void download(res.api + '/export' + qs(filter), `${L(res)}.xlsx`).catch((e) => toast(t(errText(e)), 'error'));
  };
  const [importing, setImporting] = useState(false);
  // A row's own actions the declaration names (an OSS configuration's 启用 and 测试连接): done, or what went wrong.
  const rowActions = (res.ui?.rowActions ?? []).filter((a) => perms.has(`${res.name}_${a.code}`));
  // A screen where no row can have an action (a read-only log for this user) shows no empty 操作 column.
  const anyAction = !!res.ui?.detail || can('view') || can('edit') || can('delete') || rowActions.length > 0;
  const tools = (res.ui?.tools ?? []).filter((a) => perms.has(`${res.name}_${a.code}`));
  const [tool, setTool] = useState<ToolForm | null>(null);
  const [asking, ask] = useAsk();
  const [running, setRunning] = useState<string | null>(null);
  const actionUrl = (p: string) => (p.startsWith('/') ? p : res.api + '/' + p);
  const runAction = async (a: RowAction, id: string) => {
    let reason = '';
    if (a.reason) {
      const why = await ask({ text: props.locale === 'en' ? a.label[1] : a.label[0], reason: props.locale === 'en' ? a.reason[1] : a.reason[0] });
      if (why === null) return;
      reason = why;
    } else if (a.confirm && (await ask({ text: props.locale === 'en' ? a.confirm[1] : a.confirm[0] })) === null) {
      return;
    }
    setRunning(a.path + id);
    try {
      await post(actionUrl(a.path), undefined, a.reason ? { id, reason } : { id });
      toast(props.locale === 'en' ? a.done[1] : a.done[0]);
      reload();
    } catch (e) {
      toast(t(errText(e)), 'error');
    } finally {
      setRunning(null);
    }
  };
  // Selection serves 删除 alone: rows their order no longer lets go of (ui.removeWhen) cannot be ticked.
  const allIds = data.records.filter(removable).map((r) => String(r.id));
  const allOn = allIds.length > 0 && allIds.every((id) => selected.includes(id));

  return (
    <section className="crud" aria-label={L(res)}>
      {asking}
      {tool && <ToolDialog tool={tool} url={actionUrl(tool.path)} onClose={(done) => { setTool(null); if (done) reload(); }} />}
      {res.ui?.note && <p className="muted crud-note">{props.locale === 'en' ? res.ui.note[1] : res.ui.note[0]}</p>}
      <form className={'crud-search' + (filtersOpen ? ' open' : '')} role="search" aria-label={L(res)} onSubmit={(e) => { e.preventDefault(); setSelected([]); navigate(path + qs({ ...filters, current: 1, size })); }}>
        <button type="button" className="btn search-toggle" aria-expanded={filtersOpen} onClick={() => setFiltersOpen(!filtersOpen)}>{filtersOpen ? t('common.foldFilters') : t('common.moreFilters')}</button>
        {searchFields.length > 0 && (
          <label>
            <span>{t('common.keyword')}</span>
            {/* The box says what it searches (库存数据: 批次号、商品), not a promise of names it does not hold. */}
            <input type="search" name="keyword" placeholder={[...searchFields.map((f) => L(f)), ...res.fields.filter((f) => f.keywordThrough).map((f) => throughLabel(f))].join('、')} value={filters.keyword ?? ''} onChange={(e) => setFilters({ ...filters, keyword: e.target.value })} />
          </label>
        )}
        {searchFields.map((f) => (
          <label key={f.name}>
            <span>{L(f)}</span>
            {f.dict ? (
              <select value={filters[f.name] ?? ''} onChange={(e) => setFilters({ ...filters, [f.name]: e.target.value })}>
                <option value="">{t('common.choose')}</option>
                {(res.dicts[f.dict] ?? []).map((d) => <option key={d.dictKey} value={d.dictKey}>{d.dictValue}</option>)}
              </select>
            ) : (
              <input value={filters[f.name] ?? ''} onChange={(e) => setFilters({ ...filters, [f.name]: e.target.value })} />
            )}
          </label>
        ))}
        {exact.map(({ f, key, options }) => (
          <label key={key}>
            <span>{L(f)}</span>
            {f.refers ? (
              <RefPicker id={`filter-${key}`} field={f} value={filters[key] ?? ''}
                label={filters[key] ? picked[key] ?? data.records.find((r) => String(r[f.name]) === filters[key])?.[refKey(f.name)] ?? '' : ''}
                narrow={narrowOf(f, (n) => filters[`${n}_equal`])}
                onChange={(id, title) => {
                  // A choice that narrows another box (项目 → 合同) clears it when it changes.
                  const cleared = filters[key] === id ? {} : Object.fromEntries(narrowedBy(res.fields, f.name).map((n) => [`${n}_equal`, '']));
                  setFilters({ ...filters, ...cleared, [key]: id });
                  setPicked({ ...picked, [key]: title });
                }} />
            ) : options || f.dict ? (
              <select value={filters[key] ?? ''} onChange={(e) => setFilters({ ...filters, [key]: e.target.value })}>
                <option value="">{t('common.choose')}</option>
                {options
                  ? options.map((o) => (typeof o === 'string' ? <option key={o} value={o}>{o}</option> : <option key={o[0]} value={o[0]}>{props.locale === 'en' ? o[2] : o[1]}</option>))
                  : (res.dicts[f.dict!] ?? []).map((d) => <option key={d.dictKey} value={d.dictKey}>{d.dictValue}</option>)}
              </select>
            ) : (
              <input value={filters[key] ?? ''} placeholder={t('common.exactHint')} onChange={(e) => setFilters({ ...filters, [key]: e.target.value })} />
            )}
          </label>
        ))}
        <label>
          <span>{range ? L(range) : t('common.createTime')}</span>
          <input type="date" aria-label={t('common.from')} value={filters[fromKey] ?? ''} onChange={(e) => setFilters({ ...filters, [fromKey]: e.target.value })} />
          <span className="dash">–</span>
          <input type="date" aria-label={t('common.to')} value={filters[toKey] ?? ''} onChange={(e) => setFilters({ ...filters, [toKey]: e.target.value })} />
        </label>
        {res.ui?.hideZero && (
          <label className="check">
            <input type="checkbox" checked={filters.zero === '1'} onChange={(e) => { const f = { ...filters, zero: e.target.checked ? '1' : '' }; setFilters(f); navigate(path + qs({ ...f, current: 1, size })); }} />
            <span>{t('common.showZero')}</span>
          </label>
        )}
        <button type="submit" className="btn btn-primary">{t('common.search')}</button>
        <button type="button" className="btn" onClick={() => { setFilters({}); setPicked({}); navigate(path + qs({ current: 1, size })); }}>{t('common.reset')}</button>
      </form>
      {error && <p className="crud-error" role="alert">{error}</p>}
      {/* A record opened from the header's search (`?id=`): the list shows it alone, and says so. */}
      {(query as Record<string, string>).id && (
        <p className="crud-filtered" role="status">{t('crud.oneRecord')} <button type="button" className="link" onClick={() => { const { id: _id, ...rest } = query as Record<string, string>; navigate(path + qs({ ...rest, current: 1, size })); }}>{t('crud.showAll')}</button></p>
      )}
      <div className="crud-tools">
        {can('add') && <button type="button" className="btn btn-primary" onClick={() => setDialog({ mode: 'add' })}>{t('common.add')}</button>}
        {can('delete') && <button type="button" className="btn btn-danger" onClick={() => askDelete(selected)}>{t('common.delete')}</button>}
        {res.dialect?.import && can('add') && <button type="button" className="btn" onClick={() => setImporting(true)}>{t('adm.import')}</button>}
        {/* A tool is a form posted from a dialog, or a page of its own (`to`: 库存盘点). */}
        {tools.map((a) => <button key={a.to ?? a.path} type="button" className="btn" onClick={() => (a.to ? navigate(a.to) : setTool(a))}>{props.locale === 'en' ? a.label[1] : a.label[0]}</button>)}
        <button type="button" className="btn" onClick={exportExcel}>{t('common.export')}</button>
        {selected.length > 0 && <span className="muted">{t('common.selected', { n: selected.length })}</span>}
      </div>
      <div className="table-wrap">
        <table className="table">
          <thead>
            <tr>
              <th className="col-check"><input type="checkbox" aria-label={t('common.selectAll')} checked={allOn} onChange={() => setSelected(allOn ? [] : allIds)} /></th>
              <th className="col-index">{t('common.index')}</th>
              {cols.map((f) => <th key={f.name} scope="col" className={f.kind === 'money' ? 'money' : undefined}>{L(f)}</th>)}
              {anyAction && <th className="col-action">{t('common.action')}</th>}
            </tr>
          </thead>
          <Host tag="tbody">
            {data.records.length === 0 && <tr><td colSpan={cols.length + (anyAction ? 3 : 2)} className="empty">{t('common.empty')}</td></tr>}
            {data.records.map((row, i) => {
              const id = String(row.id);
              const on = selected.includes(id);
              return (
                <tr key={id} className={[on ? 'selected' : '', isOverdue(row) ? 'overdue' : '', isLow(row) ? 'low' : ''].join(' ').trim()} title={isOverdue(row) ? t('common.overdue') : isLow(row) ? t('common.lowStock') : undefined}>
                  <td className="col-check"><input type="checkbox" aria-label={t('common.selectRow') + ' ' + (i + 1)} checked={on} disabled={!removable(row)} title={removable(row) ? undefined : t('crud.notRemovable')} onChange={() => setSelected(on ? selected.filter((x) => x !== id) : [...selected, id])} /></td>
                  <td className="col-index">{(data.current - 1) * size + i + 1}</td>
                  {cols.map((f) => <td key={f.name} className={cellClass(f)} data-label={L(f)}>{display(f, row[f.name], res.dicts, row, yesNo)}</td>)}
                  {anyAction && <td className="col-action">
                    {res.ui?.detail && <a className="link" href={detailPath(row)} onClick={(e) => { e.preventDefault(); navigate(detailPath(row)!); }}>{t('common.detail')}</a>}
                    {can('view') && <button type="button" className="link" onClick={() => setDialog({ mode: 'view', row })}>{t('common.view')}</button>}
                    {can('edit') && editable(row) && <button type="button" className="link" onClick={() => setDialog({ mode: 'edit', row })}>{editLabel}</button>}
                    {rowActions.filter((a) => !a.when || a.when.in.includes(String(row[a.when.field] ?? ''))).map((a) => (
                      <button key={a.path} type="button" className="link" disabled={running === a.path + id} onClick={() => void runAction(a, id)}>{props.locale === 'en' ? a.label[1] : a.label[0]}</button>
                    ))}
                    {can('delete') && removable(row) && <button type="button" className="link danger" onClick={() => askDelete([id])}>{t('common.delete')}</button>}
                  </td>}
                </tr>
              );
            })}
          </Host>
        </table>
      </div>
      <Pager total={data.total} current={data.current} pages={data.pages} size={size} go={go} />
      {importing && <ImportDialog title={t('crud.importTitle', { name: L(res) })} url={res.api + '/import'} template={res.api + '/import-template'} templateName={t('crud.templateFile', { name: L(res) })}
        onClose={() => setImporting(false)} onDone={() => { setImporting(false); reload(); }} />}
      {dialog && <FormDialog resource={res} mode={dialog.mode} row={dialog.row} onClose={closeDialog} onSaved={(added) => { toast(t(added ? 'crud.added' : 'crud.updated')); setDialog(null); reload(); }} />}
      {confirm}
    </section>
  );
}


/** A toolbar action's form (考勤's 补卡): its values typed or picked, then `POST url`. */
function ToolDialog({ tool, url, onClose }: { tool: ToolForm; url: string; onClose: (done: boolean) => void }) {
  const { props } = useApp();
  const { t } = useTranslation();
  const toast = useToast();
  const en = props.locale === 'en';
  const [v, setV] = useState<Record<string, string>>({});
  const [titles, setTitles] = useState<Record<string, string>>({});
  const [err, setErr] = useState<string | null>(null);
  const missing = tool.fields.find((f) => f.required !== false && !(v[f.name] ?? '').trim());
  const submit = async () => {
    if (missing) return setErr(`${t('valid.required')}：${en ? missing.label[1] : missing.label[0]}`);
    try {
      await post(url, v);
      toast(en ? tool.done[1] : tool.done[0]);
      onClose(true);
    } catch (e) {
      setErr(t(errText(e)));
    }
  };
  return (
    <Dialog open onOpenChange={(o) => { if (!o) onClose(false); }} title={en ? tool.label[1] : tool.label[0]} width={520}
      footer={<>
        <button type="button" className="btn" onClick={() => onClose(false)}>{t('common.cancel')}</button>
        <button type="button" className="btn btn-primary" onClick={() => void submit()}>{t('common.ok')}</button>
      </>}>
      {tool.fields.map((f) => {
        const id = `tool-${f.name}`;
        const label = en ? f.label[1] : f.label[0];
        const field = { name: f.name, kind: 'long', label, labelEn: label, required: true, filter: false, sort: false, search: false, list: false, form: true, refers: { resource: f.refers!, list: '', title: '' } } as unknown as Field;
        return (
          <FormRow key={f.name} label={label} htmlFor={id} required={f.required !== false}>
            {f.refers
              ? <RefPicker id={id} field={field} value={v[f.name] ?? ''} label={titles[f.name] ?? ''}
                  narrow={Object.fromEntries(Object.entries(f.within ?? {}).map(([from, through]) => [through, v[from] ?? '']))}
                  onChange={(val, text) => {
                    // Another choice here clears the boxes it narrows (a worker of another construct's crew).
                    const changed = (v[f.name] ?? '') !== val;
                    const narrowed = changed ? tool.fields.filter((g) => g.within && f.name in g.within).map((g) => g.name) : [];
                    setV({ ...v, ...Object.fromEntries(narrowed.map((n) => [n, ''])), [f.name]: val });
                    setTitles({ ...titles, ...Object.fromEntries(narrowed.map((n) => [n, ''])), [f.name]: text });
                  }} />
              : <input id={id} type={f.kind === 'date' ? 'date' : f.kind === 'time' ? 'time' : 'text'} value={v[f.name] ?? ''} onChange={(e) => setV({ ...v, [f.name]: e.target.value })} />}
          </FormRow>
        );
      })}
      {err && <div className="form-err" role="alert">{err}</div>}
    </Dialog>
  );
}
