// Pure helpers of the administration screens (users, roles, menus, dictionaries, departments,
// tenants): tree shaping for tree tables and tree selects, the checkable grant trees, form rules.

/** A text in both languages: a plain string is the same in both. */
export type Txt = string | readonly [zh: string, en: string];
export const txt = (x: Txt | undefined, locale: string): string => (x == null ? '' : typeof x === 'string' ? x : locale === 'en' ? x[1] : x[0]);

export type TreeNode = { id: string; parentId?: string; children?: TreeNode[]; [k: string]: any };

const sid = (v: unknown) => (v == null ? '' : String(v));

/**
 * The rows of a tree list as a forest. A list whose rows already carry `children` is kept as it
 * is (ids normalised to strings); a flat list is nested by `parentId`. A row whose parent is not
 * in the list is a root.
 */
export function buildTree(rows: any[]): TreeNode[] {
  if (!Array.isArray(rows)) return [];
  const norm = (r: any): TreeNode => ({ ...r, id: sid(r.id), parentId: sid(r.parentId), children: Array.isArray(r.children) && r.children.length ? r.children.map(norm) : undefined });
  if (rows.some((r) => Array.isArray(r.children) && r.children.length)) return rows.map(norm);
  const nodes = rows.map((r) => ({ ...r, id: sid(r.id), parentId: sid(r.parentId) }) as TreeNode);
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const roots: TreeNode[] = [];
  for (const n of nodes) {
    const p = n.parentId && n.parentId !== n.id ? byId.get(n.parentId) : undefined;
    if (p) (p.children ??= []).push(n);
    else roots.push(n);
  }
  return roots;
}

export type FlatRow = { node: TreeNode; depth: number; hasChildren: boolean };
/** The rows a tree table shows: depth first, children only under expanded nodes. */
export function visibleRows(forest: TreeNode[], expanded: Set<string>): FlatRow[] {
  const out: FlatRow[] = [];
  const walk = (ns: TreeNode[], depth: number) => {
    for (const n of ns) {
      const kids = n.children ?? [];
      out.push({ node: n, depth, hasChildren: kids.length > 0 });
      if (kids.length && expanded.has(n.id)) walk(kids, depth + 1);
    }
  };
  walk(forest, 0);
  return out;
}

export function allIds(forest: TreeNode[]): string[] {
  const out: string[] = [];
  const walk = (ns: TreeNode[]) => ns.forEach((n) => { out.push(n.id); if (n.children) walk(n.children); });
  walk(forest);
  return out;
}

/** A tree node's label whatever the endpoint called it (tree: title; lists: name, roleName, deptName, dictValue). */
export const nodeLabel = (n: any): string => sid(n.title ?? n.label ?? n.name ?? n.roleName ?? n.deptName ?? n.dictValue ?? n.id);
/** Tree endpoints answer {id, title, value, key}; the value to store is `value` when there, else `id`. */
export const nodeValue = (n: any): string => sid(n.value ?? n.id ?? n.key);

/** A tree select's options: every node in depth-first order, the label indented by depth. */
export function treeOptions(forest: any[], depth = 0): { value: string; label: string; depth: number }[] {
  const out: { value: string; label: string; depth: number }[] = [];
  for (const n of forest ?? []) {
    out.push({ value: nodeValue(n), label: nodeLabel(n), depth });
    if (Array.isArray(n.children)) out.push(...treeOptions(n.children, depth + 1));
  }
  return out;
}

// ------------------------------------------------------------------ checkable trees (grants)

/** Parent of every node id, and the children ids, of a tree whose nodes are keyed by nodeValue. */
export function index(forest: any[]): { parent: Map<string, string | null>; kids: Map<string, string[]> } {
  const parent = new Map<string, string | null>();
  const kids = new Map<string, string[]>();
  const walk = (ns: any[], p: string | null) => {
    for (const n of ns ?? []) {
      const id = nodeValue(n);
      parent.set(id, p);
      const cs = Array.isArray(n.children) ? n.children : [];
      kids.set(id, cs.map(nodeValue));
      walk(cs, id);
    }
  };
  walk(forest, null);
  return { parent, kids };
}

function descendants(id: string, kids: Map<string, string[]>): string[] {
  const out: string[] = [];
  const stack = [...(kids.get(id) ?? [])];
  while (stack.length) { const c = stack.pop()!; out.push(c); stack.push(...(kids.get(c) ?? [])); }
  return out;
}

/**
 * Checking a node checks its whole subtree, and each ancestor whose children are now all checked;
 * unchecking clears the subtree and every ancestor.
 */
export function toggleCheck(checked: ReadonlySet<string>, id: string, on: boolean, ix: ReturnType<typeof index>): Set<string> {
  const next = new Set(checked);
  for (const x of [id, ...descendants(id, ix.kids)]) on ? next.add(x) : next.delete(x);
  let p = ix.parent.get(id) ?? null;
  while (p != null) {
    if (!on) next.delete(p);
    else if ((ix.kids.get(p) ?? []).every((c) => next.has(c))) next.add(p);
    else break;
    p = ix.parent.get(p) ?? null;
  }
  return next;
}

export type CheckState = 'on' | 'off' | 'some';
export function checkState(id: string, checked: ReadonlySet<string>, ix: ReturnType<typeof index>): CheckState {
  if (checked.has(id)) return 'on';
  return descendants(id, ix.kids).some((d) => checked.has(d)) ? 'some' : 'off';
}

/** What a grant saves: the checked nodes plus every ancestor of one (a granted button needs its menu). */
export function grantIds(checked: ReadonlySet<string>, ix: ReturnType<typeof index>): string[] {
  const out = new Set<string>();
  for (const id of checked) {
    if (!ix.parent.has(id)) continue; // not in this tree
    out.add(id);
    let p = ix.parent.get(id) ?? null;
    while (p != null && !out.has(p)) { out.add(p); p = ix.parent.get(p) ?? null; }
  }
  return [...out];
}

// ------------------------------------------------------------------ forms

export type Mode = 'add' | 'edit' | 'view';
export type FormField = {
  name: string;
  label: Txt;
  type?: 'text' | 'number' | 'switch' | 'textarea' | 'select' | 'radio' | 'tree' | 'password' | 'date';
  required?: boolean;
  /** The on-blur message when required and empty (SPEC §5), else 请输入<label>. */
  message?: Txt;
  /** 24 spans the dialog's width; 12 (default) is half of it. */
  span?: 12 | 24;
  disabledOn?: Mode[];
  /** Shown only in these modes (e.g. the password on add). */
  only?: Mode[];
  /** Fixed options, or a dictionary code (dict/dictionary?code=). */
  options?: { value: string | number; label: Txt }[];
  dict?: string;
  /** Tree endpoint for type 'tree'. */
  tree?: string;
  /** Placeholder of a select or tree select. */
  hint?: Txt;
  default?: unknown;
  /** Extra rule after "required": a message or null. */
  validate?: (v: unknown, form: Record<string, any>) => Txt | null;
};

export const blank = (v: unknown) => v == null || String(v).trim() === '';

export function shown(f: FormField, mode: Mode) {
  return !f.only || f.only.includes(mode);
}

/** The message of one field, or null; `locale` picks the language. */
export function fieldMessage(f: FormField, form: Record<string, any>, locale: string): string | null {
  const v = form[f.name];
  if (blank(v)) {
    if (!f.required) return null;
    if (f.message) return txt(f.message, locale);
    const label = txt(f.label, locale);
    return f.type === 'select' || f.type === 'tree' || f.type === 'radio' || f.type === 'switch' ? (locale === 'en' ? `Please choose ${label}` : `请选择${label}`) : locale === 'en' ? `Please enter ${label}` : `请输入${label}`;
  }
  if (f.type === 'number' && !/^-?\d+(\.\d+)?$/.test(String(v).trim())) return locale === 'en' ? 'Numbers only' : '输入内容需为纯数字';
  const extra = f.validate?.(v, form);
  return extra ? txt(extra, locale) : null;
}

export function formErrors(fields: FormField[], form: Record<string, any>, mode: Mode, locale: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of fields) {
    if (!shown(f, mode)) continue;
    const m = fieldMessage(f, form, locale);
    if (m) out[f.name] = m;
  }
  return out;
}

/** The initial form of an add: each field's default, then the given values. */
export function defaults(fields: FormField[], extra: Record<string, any> = {}): Record<string, any> {
  const out: Record<string, any> = {};
  for (const f of fields) if (f.default !== undefined) out[f.name] = f.default;
  return { ...out, ...extra };
}

/** The body a save posts: the shown fields (numbers as numbers), the id on edit, and `extra`. */
export function submitBody(fields: FormField[], form: Record<string, any>, mode: Mode, extra: Record<string, any> = {}): Record<string, any> {
  const body: Record<string, any> = { ...extra };
  for (const f of fields) {
    if (!shown(f, mode)) continue;
    let v = form[f.name];
    if (f.type === 'number' || f.type === 'switch') v = blank(v) ? (f.type === 'switch' ? 0 : '') : Number(v);
    body[f.name] = v ?? '';
  }
  if (mode === 'edit' && form.id != null) body.id = form.id;
  return body;
}

export const passwordsMatch = (passwordField = 'password') => (v: unknown, form: Record<string, any>): Txt | null =>
  String(v ?? '') === String(form[passwordField] ?? '') ? null : ['两次密码输入不一致', 'The two passwords differ'];

// ------------------------------------------------------------------ one-time passwords

export type OneTime = { account: string; password: string };
/**
 * The answer of user/reset-password as (account, password) pairs, whatever its shape: a string
 * (one user), a list of strings or of {account|userId|id, password|newPassword}, or a map id → password.
 */
export function oneTimePasswords(data: unknown, accounts: Record<string, string> = {}): OneTime[] {
  const name = (id: unknown) => accounts[String(id)] ?? String(id ?? '');
  if (data == null) return [];
  if (typeof data === 'string') return [{ account: Object.values(accounts).join(', '), password: data }];
  if (Array.isArray(data)) {
    const ids = Object.keys(accounts);
    return data.map((x, i) => (typeof x === 'string'
      ? { account: name(ids[i] ?? ''), password: x }
      : { account: x.account ?? name(x.userId ?? x.id), password: String(x.password ?? x.newPassword ?? '') }));
  }
  if (typeof data === 'object') {
    const o = data as Record<string, any>;
    if (typeof o.password === 'string') return [{ account: o.account ?? name(o.userId ?? o.id), password: o.password }];
    if (Array.isArray(o.records)) return oneTimePasswords(o.records, accounts);
    return Object.entries(o).map(([k, v]) => ({ account: name(k), password: String(v) }));
  }
  return [];
}
