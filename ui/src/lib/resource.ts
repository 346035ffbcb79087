// How the generic screens call a declared resource: the generic Blade routes (`<api>/detail?id=`,
// `<api>/submit`, `<api>/remove?ids=`) or, for a resource served in a route dialect (blade-scm), the routes
// its schema lists (`POST /api/blade-scm/project/detail/{id}`, `delete/{id}/{parentId}/1`, ...).
import type { ResourceSchema } from '../types';
import { blade } from './api';

type Call = { method: string; url: string };

/** The route of an action with `{id}`, `{ids}` and `{parentId}` filled in, or null when the schema has none. */
export function route(res: ResourceSchema, action: string, vars: { id?: string; ids?: string; parentId?: string } = {}): Call | null {
  const spec = res.dialect?.routes?.[action];
  if (!spec) return null;
  const [method, path] = spec.split(' ');
  const url = path
    .replace('{id}', encodeURIComponent(vars.id ?? ''))
    .replace('{ids}', encodeURIComponent(vars.ids ?? ''))
    .replace('{parentId}', encodeURIComponent(vars.parentId || '0'));
  return { method, url };
}

/** One record, decorated as the list shows it. */
export function detail(res: ResourceSchema, id: string): Promise<any> {
  if (!res.dialect) return blade('GET', `${res.api}/detail?id=${encodeURIComponent(id)}`);
  const r = route(res, 'detail', { id })!;
  return blade(r.method, r.url.includes(encodeURIComponent(id)) ? r.url : `${r.url}?id=${encodeURIComponent(id)}`, r.method === 'POST' ? {} : undefined);
}

/** Insert (no id) or update. */
export function save(res: ResourceSchema, body: Record<string, unknown>): Promise<any> {
  if (!res.dialect) return blade('POST', `${res.api}/submit`, body);
  const r = body.id ? route(res, 'update') ?? route(res, 'save') : route(res, 'add') ?? route(res, 'save');
  return blade(r!.method, r!.url, body);
}

/** Removes the rows (`rows` give each one's parent for `{parentId}` segments). */
export async function remove(res: ResourceSchema, ids: string[], rows: any[]): Promise<void> {
  if (!res.dialect) {
    await blade('POST', `${res.api}/remove?ids=${encodeURIComponent(ids.join(','))}`);
    return;
  }
  const parentOf = (id: string) => {
    const p = res.dialect!.parent;
    const row = rows.find((r) => String(r.id) === id);
    return p && row ? String(row[p] ?? '0') : '0';
  };
  const viaRemove = route(res, 'remove');
  if (viaRemove) {
    await blade(viaRemove.method, `${viaRemove.url}?ids=${encodeURIComponent(ids.join(','))}`);
    return;
  }
  // One call per parent when the batch route takes a parent, else one per record.
  const batch = res.dialect.routes.batchDelete;
  if (batch && ids.length > 1) {
    const groups = new Map<string, string[]>();
    ids.forEach((id) => groups.set(parentOf(id), [...(groups.get(parentOf(id)) ?? []), id]));
    for (const [parentId, list] of groups) {
      const r = route(res, 'batchDelete', { ids: list.join(','), parentId })!;
      await blade(r.method, r.url);
    }
    return;
  }
  for (const id of ids) {
    const r = route(res, 'delete', { id, parentId: parentOf(id) });
    if (!r) throw new Error('err.unknown');
    await blade(r.method, r.url);
  }
}

/** A page of records of a list route (`"METHOD path"`), with a text filter on `field`. */
export function listVia(spec: string, params: Record<string, unknown>): Promise<any> {
  const [method, path] = spec.split(' ');
  if (method === 'POST') return blade('POST', path, params);
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  return blade('GET', `${path}?${q}`);
}

/** A reference box's choices: `GET /api/blade-system/lookup` (needs the right to use the form, not to manage the
 * looked-up kind). `keyword` searches names, codes and pinyin; `ids` answers the titles of chosen records. */
export type LookupRow = { id: string; title: string; hint?: string };
export function lookup(resource: string, params: { keyword?: string; ids?: string; size?: number; staff?: boolean; holds?: string; narrow?: Record<string, string> }): Promise<{ records: LookupRow[]; total: number }> {
  const q = new URLSearchParams({ resource });
  if (params.keyword) q.set('keyword', params.keyword);
  // A field of the looked-up kind (`projectId` → projectId_equal), or a join (`construct_worker.constructId`: the
  // chosen construct's crew) as it is.
  for (const [k, v] of Object.entries(params.narrow ?? {})) if (v) q.set(k.includes('.') ? k : `${k}_equal`, v);
  if (params.ids) q.set('ids', params.ids);
  q.set('size', String(params.size ?? 20));
  if (params.staff) q.set('staff', '1');
  // Only people whose roles hold this code (a 工单's 处理人 may open work orders).
  if (params.holds) q.set('holds', params.holds);
  return blade('GET', `/api/blade-system/lookup?${q}`);
}

/** What a reference field's picker is narrowed by (the declaration's `ui.within`): [a field of this record, the
 * picked resource's field that must equal it]. 合同 is picked among the chosen 项目's contracts. */
export function withinOf(f: { ui?: { [k: string]: unknown } | null }): [string, string][] {
  const w = f.ui?.within;
  if (typeof w === 'string') return [[w, w]];
  if (Array.isArray(w)) return w.map((x) => [String(x), String(x)]);
  if (w && typeof w === 'object') return Object.entries(w as Record<string, string>).map(([a, b]) => [a, String(b)]);
  return [];
}

/** The picker's narrowing from the values chosen so far (`value(field)`: this record's value of a field). */
export function narrowOf(f: { ui?: { [k: string]: unknown } | null }, value: (field: string) => unknown): Record<string, string> {
  const out: Record<string, string> = {};
  // And the kind of record it takes (`ui.pickWhere`: a 供应商 among the third parties that are suppliers).
  const fixed = f.ui?.pickWhere;
  if (fixed && typeof fixed === 'object') for (const [k, v] of Object.entries(fixed as Record<string, unknown>)) out[k] = String(v);
  for (const [from, to] of withinOf(f)) {
    const v = value(from);
    if (v !== undefined && v !== null && v !== '') out[to] = String(v);
  }
  return out;
}

/** The fields whose pickers are narrowed by `field` (cleared when it changes: a contract of another project). */
export const narrowedBy = (fields: { name: string; ui?: { [k: string]: unknown } | null }[], field: string) =>
  fields.filter((f) => withinOf(f).some(([from]) => from === field)).map((f) => f.name);

/** The key a list answers a referring field's title under: `projectCompanyId` → `projectCompanyName`. */
export const refKey = (field: string) => field.replace(/Id$/, '') + 'Name';
