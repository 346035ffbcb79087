// The table of an administration screen: search bar, bordered table with selection and row
// index, paged or as a tree, view / edit / delete / add-child per row by permission code, the
// add/edit/view dialog, delete with 请选择至少一条数据 and 确定将选择数据删除?. The first rows come
// from the server's props (`firstPage`, what the list call answers), so the server's HTML already has
// them and hydration matches; later pages, filters and reloads are fetched.
import { useMemo, useRef, useState, type ReactNode } from 'react';
import { useTranslation } from '../../i18n/react';
import { useProps } from '../../app';
import { useRemove } from '../crud/useRemove';
import { useToast } from '../../components/ui/toast';
import { get, post, ApiError } from '../../lib/api';
import { allIds, buildTree, defaults, submitBody, visibleRows, txt, type FormField, type Mode, type TreeNode, type Txt } from '../../lib/admin';
import { FormDialogX, useAfterHydration, useDicts, useTree } from './widgets';
import { Pager } from '../../components/ui/pager';
import { Host } from '../../components/ui/host';

/** Rows a tree screen asks for at once: the server's largest page (`listq::MAX_SIZE`). */
export const UNPAGED_SIZE = 1000;

export type Column = { name: string; label: Txt; width?: number; dict?: string; options?: { value: string | number; label: Txt }[]; render?: (row: any) => ReactNode };
export type SearchField = { name: string; label: Txt; dict?: string; options?: { value: string | number; label: Txt }[] };

export type CrudConfig = {
  /** Resource base, e.g. /api/blade-system/dict: detail, submit and remove live under it. */
  api: string;
  /** GET endpoint of the rows; paged answers {records,total,...}, tree lists answer an array. */
  listUrl: string;
  paged: boolean;
  /** Extra query of the list (e.g. deptId, parentId). */
  params?: Record<string, unknown>;
  /** Permission-code prefix: <perm>_add, _edit, _delete, _view. */
  perm: string;
  title: Txt;
  columns: Column[];
  search: SearchField[];
  fields: FormField[];
  actionWidth: number;
  dialogWidth?: number;
  /** Tree tables: a row button 新增子项 that adds under the row. */
  addChild?: boolean;
  expandAll?: boolean;
  /** isSealed = 1 rows cannot be edited or removed. */
  sealed?: boolean;
  /** Values of a new row (parent is the row of 新增子项). */
  addDefaults?: (parent?: any) => Record<string, any>;
  /** Extra body of a save (e.g. parentId, dictKey of a parent dictionary). */
  extraBody?: (form: Record<string, any>, mode: Mode) => Record<string, any>;
  tools?: (ctx: Ctx) => ReactNode;
  rowActions?: (row: any, ctx: Ctx) => ReactNode;
  onRowClick?: (row: any) => void;
  activeRow?: string | null;
  /** Extra class of the section. */
  className?: string;
  /** Hides the add button (e.g. a child table without a chosen parent). */
  canAdd?: boolean;
  emptyText?: Txt;
};
export type Ctx = { selected: string[]; rows: any[]; reload: () => void; can: (op: string) => boolean; /** The list's current filters. */ query: Record<string, unknown> };

const isSealed = (r: any) => r?.isSealed === 1 || r?.isSealed === '1' || r?.isSealed === true;

type TableData = { rows: any[]; total: number; pages: number };

/** The table's data from a list answer: paged {records,total,pages} or a tree list (array or records). */
function shape(cfg: CrudConfig, d: any): TableData {
  if (cfg.paged) {
    const recs = Array.isArray(d?.records) ? d.records : Array.isArray(d) ? d : [];
    return { rows: recs, total: Number(d?.total ?? recs.length), pages: Number(d?.pages ?? 1) };
  }
  const forest = buildTree(Array.isArray(d) ? d : d?.records ?? []);
  return { rows: forest, total: forest.length, pages: 1 };
}

/**
 * `firstPage`: the server's answer of the first list call (cfg.params, page 1 of 10, no filters), shown
 * at once instead of fetching it; `dicts`: the dictionaries the server sent (props.page.dicts).
 */
export function CrudTable({ cfg, reloadKey = 0, firstPage, dicts: seedDicts }: { cfg: CrudConfig; reloadKey?: unknown; firstPage?: unknown; dicts?: Record<string, { dictKey: string; dictValue: string }[]> }) {
  const { t } = useTranslation();
  const props = useProps();
  const toast = useToast();
  const T = (x: Txt | undefined) => txt(x, props.locale);
  const can = (op: string) => props.permissions.includes(`${cfg.perm}_${op}`);
  const dictCodes = useMemo(() => [...new Set([...cfg.columns, ...cfg.search, ...cfg.fields].map((c) => c.dict).filter(Boolean) as string[])], [cfg]);
  const dicts = useDicts(dictCodes, seedDicts);
  const [filters, setFilters] = useState<Record<string, string>>({});
  const [applied, setApplied] = useState<Record<string, string>>({});
  const [page, setPage] = useState({ current: 1, size: 10 });
  const [data, setData] = useState<TableData | null>(() => (firstPage !== undefined ? shape(cfg, firstPage) : null));
  const [failed, setFailed] = useState<string | null>(null);
  const [selected, setSelected] = useState<string[]>([]);
  const [expanded, setExpanded] = useState<Set<string>>(() => (firstPage !== undefined && !cfg.paged && cfg.expandAll ? new Set(allIds(shape(cfg, firstPage).rows as TreeNode[])) : new Set()));
  // The server's rows stand for the first list call; every later change fetches.
  const seeded = useRef(firstPage !== undefined);
  const [dialog, setDialog] = useState<{ mode: Mode; row?: any; parent?: any } | null>(null);
  const [tick, setTick] = useState(0);
  const reload = () => setTick((x) => x + 1);
  const treeFields = cfg.fields.filter((f) => f.type === 'tree' && f.tree);
  // Tree selects load when a dialog opens (fresh after each save).
  const treeA = useTree(dialog ? treeFields[0]?.tree : undefined, tick);
  const treeB = useTree(dialog ? treeFields[1]?.tree : undefined, tick);
  const trees: Record<string, any[]> = {};
  if (treeFields[0]) trees[treeFields[0].name] = treeA;
  if (treeFields[1]) trees[treeFields[1].name] = treeB;

  const paramsKey = JSON.stringify(cfg.params ?? {});
  useAfterHydration(() => {
    if (seeded.current) { seeded.current = false; return; }
    const q: Record<string, unknown> = { ...(cfg.params ?? {}), ...applied };
    // Tree screens show everything: ask for the largest page the server gives (its default is 10).
    if (cfg.paged) Object.assign(q, page);
    else q.size = UNPAGED_SIZE;
    get<any>(cfg.listUrl, q)
      .then((d) => {
        setFailed(null);
        const next = shape(cfg, d);
        setData(next);
        if (!cfg.paged && cfg.expandAll) setExpanded(new Set(allIds(next.rows as TreeNode[])));
      })
      .catch((e) => { setData({ rows: [], total: 0, pages: 1 }); setFailed(e instanceof ApiError ? e.message : 'err.unknown'); });
  }, [cfg.listUrl, paramsKey, JSON.stringify(applied), page.current, page.size, tick, reloadKey]);

  const rows: { node: TreeNode; depth: number; hasChildren: boolean }[] = useMemo(() => {
    if (!data) return [];
    if (cfg.paged) return data.rows.map((r) => ({ node: { ...r, id: String(r.id) }, depth: 0, hasChildren: false }));
    return visibleRows(data.rows as TreeNode[], expanded);
  }, [data, expanded, cfg.paged]);
  const flatAll = useMemo(() => {
    const out: any[] = [];
    const walk = (ns: any[]) => ns.forEach((n) => { out.push(n); if (n.children) walk(n.children); });
    walk(data?.rows ?? []);
    return out;
  }, [data]);
  const ctx: Ctx = { selected, rows: flatAll, reload, can, query: { ...(cfg.params ?? {}), ...applied } };

  const { ask: askDelete, confirm } = useRemove(cfg.api, () => { setSelected([]); reload(); },
    (ids) => (cfg.sealed && flatAll.some((r) => ids.includes(String(r.id)) && isSealed(r)) ? 'adm.sealed' : null));
  const openDialog = async (mode: Mode, row?: any, parent?: any) => {
    setDialog({ mode, row, parent });
    if (row?.id != null) {
      // The detail has every field (lists may leave some out); the row is shown meanwhile.
      get<any>(cfg.api + '/detail', { id: row.id }).then((d) => { if (d) setDialog((cur) => (cur && cur.row?.id === row.id ? { ...cur, row: { ...row, ...d } } : cur)); }).catch(() => {});
    }
  };
  const initial = useMemo(() => {
    if (!dialog) return {};
    if (dialog.mode === 'add') return defaults(cfg.fields, cfg.addDefaults?.(dialog.parent) ?? {});
    const r = { ...dialog.row };
    for (const f of cfg.fields) if (r[f.name] != null && typeof r[f.name] === 'number') r[f.name] = String(r[f.name]);
    for (const f of cfg.fields) if (f.type === 'switch' && r[f.name] != null) r[f.name] = Number(r[f.name]);
    return r;
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [dialog]);
  const save = async (form: Record<string, any>) => {
    const mode = dialog!.mode;
    const body = submitBody(cfg.fields, form, mode, cfg.extraBody?.(form, mode) ?? {});
    try {
      await post(cfg.api + '/submit', body);
    } catch (e) {
      throw new Error(e instanceof ApiError ? e.message : 'err.unknown');
    }
    toast(t(mode === 'add' ? 'crud.added' : 'crud.updated'));
    setDialog(null);
    reload();
  };

  const cols = cfg.columns;
  const ids = rows.map((r) => r.node.id);
  const allOn = ids.length > 0 && ids.every((id) => selected.includes(id));
  const cell = (c: Column, row: any) => {
    if (c.render) return c.render(row);
    const v = row[c.name];
    if (v == null) return '';
    const opts = c.options ? c.options.map((o) => ({ value: String(o.value), label: T(o.label) })) : c.dict ? dicts[c.dict] : undefined;
    if (opts) return opts.find((o) => o.value === String(v))?.label ?? String(v);
    return typeof v === 'object' ? JSON.stringify(v) : String(v);
  };
  const title = T(cfg.title);
  const tools = cfg.tools?.(ctx);

  return (
    <section className={'crud adm ' + (cfg.className ?? '')} aria-label={title}>
      {cfg.search.length > 0 && (
        <form className="crud-search" role="search" aria-label={title} onSubmit={(e) => { e.preventDefault(); setPage((p) => ({ ...p, current: 1 })); setApplied({ ...filters }); }}>
          <label>
            <span>{t('common.keyword')}</span>
            <input type="search" name="keyword" placeholder={t('common.keywordHint')} value={filters.keyword ?? ''} onChange={(e) => setFilters({ ...filters, keyword: e.target.value })} />
          </label>
          {cfg.search.map((f) => {
            const opts = f.options ? f.options.map((o) => ({ value: String(o.value), label: T(o.label) })) : f.dict ? dicts[f.dict] ?? [] : null;
            return (
              <label key={f.name}>
                <span>{T(f.label)}</span>
                {opts ? (
                  <select value={filters[f.name] ?? ''} onChange={(e) => setFilters({ ...filters, [f.name]: e.target.value })}>
                    <option value="">{t('common.choose')}</option>
                    {opts.map((o) => <option key={o.value} value={o.value}>{o.label}</option>)}
                  </select>
                ) : <input value={filters[f.name] ?? ''} onChange={(e) => setFilters({ ...filters, [f.name]: e.target.value })} />}
              </label>
            );
          })}
          <button type="submit" className="btn btn-primary">{t('common.search')}</button>
          <button type="button" className="btn" onClick={() => { setFilters({}); setApplied({}); setPage((p) => ({ ...p, current: 1 })); }}>{t('common.reset')}</button>
        </form>
      )}
      <div className="crud-tools">
        {can('add') && cfg.canAdd !== false && <button type="button" className="btn btn-primary" onClick={() => openDialog('add')}>{t('common.add')}</button>}
        {can('delete') && <button type="button" className="btn btn-danger" onClick={() => askDelete(selected)}>{t('common.delete')}</button>}
        {tools}
        {selected.length > 0 && <span className="muted">{t('common.selected', { n: selected.length })}</span>}
        {!cfg.paged && data && data.rows.length > 0 && (
          <span className="crud-tools-end">
            <button type="button" className="link" onClick={() => setExpanded(new Set(allIds(data.rows as TreeNode[])))}>{t('adm.expandAll')}</button>
            <button type="button" className="link" onClick={() => setExpanded(new Set())}>{t('adm.collapseAll')}</button>
          </span>
        )}
      </div>
      <div className="table-wrap">
        <table className="table" aria-label={title} aria-busy={data ? undefined : true}>
          <thead>
            <tr>
              <th className="col-check"><input type="checkbox" aria-label={t('common.selectAll')} checked={allOn} onChange={() => setSelected(allOn ? [] : ids)} /></th>
              <th className="col-index">{t('common.index')}</th>
              {cols.map((c) => <th key={c.name} scope="col" style={c.width ? { width: c.width } : undefined}>{T(c.label)}</th>)}
              <th className="col-action" style={{ width: cfg.actionWidth }}>{t('common.action')}</th>
            </tr>
          </thead>
          <Host tag="tbody">
            {!data && <tr><td colSpan={cols.length + 3} className="empty">{t('common.loading')}</td></tr>}
            {data && rows.length === 0 && <tr><td colSpan={cols.length + 3} className="empty">{failed ? t(failed) : cfg.emptyText ? T(cfg.emptyText) : t('common.empty')}</td></tr>}
            {rows.map(({ node: row, depth, hasChildren }, i) => {
              const id = row.id;
              const on = selected.includes(id);
              const locked = cfg.sealed && isSealed(row);
              const open = expanded.has(id);
              return (
                <tr key={id} className={(on ? 'selected ' : '') + (cfg.activeRow === id ? 'active' : '')} onClick={cfg.onRowClick ? (e) => { if (!(e.target as HTMLElement).closest('button,input,a,label')) cfg.onRowClick!(row); } : undefined}>
                  <td className="col-check"><input type="checkbox" aria-label={t('common.selectRow') + ' ' + (i + 1)} checked={on} onChange={() => setSelected(on ? selected.filter((x) => x !== id) : [...selected, id])} /></td>
                  <td className="col-index">{cfg.paged ? (page.current - 1) * page.size + i + 1 : i + 1}</td>
                  {cols.map((c, ci) => (
                    <td key={c.name}>
                      {ci === 0 && !cfg.paged ? (
                        <span className="tree-cell" style={{ paddingLeft: depth * 18 }}>
                          {hasChildren ? <button type="button" className={'tree-caret' + (open ? ' open' : '')} aria-expanded={open} aria-label={(open ? t('adm.collapse') : t('adm.expand')) + ' ' + String(row[c.name] ?? '')} onClick={() => { const s = new Set(expanded); open ? s.delete(id) : s.add(id); setExpanded(s); }}><span className="chev" aria-hidden="true" /></button> : <span className="tree-caret" />}
                          {cell(c, row)}
                        </span>
                      ) : cell(c, row)}
                    </td>
                  ))}
                  <td className="col-action" style={{ width: cfg.actionWidth }}>
                    {can('view') && <button type="button" className="link" onClick={() => openDialog('view', row)}>{t('common.view')}</button>}
                    {can('edit') && <button type="button" className="link" disabled={locked} title={locked ? t('adm.sealed') : undefined} onClick={() => openDialog('edit', row)}>{t('common.edit')}</button>}
                    {can('delete') && <button type="button" className="link danger" disabled={locked} title={locked ? t('adm.sealed') : undefined} onClick={() => askDelete([id])}>{t('common.delete')}</button>}
                    {cfg.addChild && can('add') && <button type="button" className="link" onClick={() => openDialog('add', undefined, row)}>{t('adm.addChild')}</button>}
                    {cfg.rowActions?.(row, ctx)}
                  </td>
                </tr>
              );
            })}
          </Host>
        </table>
      </div>
      {cfg.paged && data && <Pager total={data.total} current={page.current} pages={data.pages} size={page.size} go={(o) => setPage((p) => ({ ...p, ...o }))} />}
      {dialog && (
        <FormDialogX title={t(dialog.mode === 'add' ? 'crud.addTitle' : dialog.mode === 'edit' ? 'crud.editTitle' : 'crud.viewTitle') + ' · ' + title}
          fields={cfg.fields} mode={dialog.mode} initial={initial} width={cfg.dialogWidth ?? 880} dicts={dicts} trees={trees}
          onClose={() => setDialog(null)} onSave={save} />
      )}
      {confirm}
    </section>
  );
}

