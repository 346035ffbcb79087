// The props contract between the Rust server and the UI: the server sends it to render(),
// embeds it as JSON in #__ZZ_PROPS__, and the client hydrates from the same object.
export type MenuNode = {
  id: string; parentId: string; name: string; path: string; source?: string; sort?: number;
  isOpen?: number; children?: MenuNode[]; hasChildren?: boolean; code?: string; roles?: string[];
  /** The name's pinyin initials and spelling, space-separated (`kqgl kaoqinguanli`): the menu search's. */
  py?: string;
};
export type FieldKind = 'text' | 'textarea' | 'int' | 'long' | 'flag' | 'decimal' | 'date' | 'json' | 'money' | 'qty';
export type Field = {
  name: string; kind: FieldKind; label: string; labelEn: string; required: boolean;
  maxLen?: number; min?: number; max?: number; pattern?: 'phone' | 'email' | 'digits' | 'nospace' | 'code';
  filter: boolean; sort: boolean; search: boolean; dict?: string; list: boolean; form: boolean; readonly?: boolean;
  /** A record of another resource: how to pick one (its list route, the field shown). */
  /** `hint`: a code shown beside the title in a picker's choices (records of the same name told apart). */
  refers?: { resource: string; list: string; title: string; hint?: string | null; staff?: boolean; holds?: string } | null;
  /** The list's keyword also finds records through this reference (stock rows by their goods' name, code or spec). */
  keywordThrough?: boolean;
  /** A comma-separated list of ids (with `refers`: several records picked). */
  multi?: boolean;
  /** Left empty on a new record, the server makes the code (合同编号 HT20261205-0001). */
  autoCode?: boolean;
  /** Personal data answered with its middle hidden. */
  mask?: boolean;
  /** Screen hints of the declaration: `control` picks a special control (`region`: the 省/市/区 picker). */
  ui?: { control?: string; [k: string]: unknown } | null;
};
export type DictItem = { dictKey: string; dictValue: string };
export type ResourceSchema = {
  name: string; label: string; labelEn: string; api: string; fields: Field[]; dicts: Record<string, DictItem[]>;
  /** Resources served in a route dialect (blade-scm): action → "METHOD /path", the parent field. */
  dialect?: { routes: Record<string, string>; parent?: string | null; pageSize: number; import?: boolean } | null;
  /** Screen hints of the declaration (e.g. `detail`: the record's own page, `/project/detail/:projectCode`). */
  ui?: { detail?: string; overdue?: { date: string; field: string; done: unknown[] }; low?: { qty: string; min: string };
    /** Rows whose field is 0 are left out unless the screen's `zero=1` asks for them (the stock list). */
    hideZero?: string;
    /** Records are never added by hand (no add button). */
    noAdd?: boolean;
    /** Its records are announced by 站内消息 opening `?open=<id>`: viewing one reads its message. */
    announced?: boolean;
    /** Records are never changed once written (a log: no edit button). */
    noEdit?: boolean;
    /** A row offers 删除 only when this field (often carried from the record it belongs to: `ui.carry`) is one of
     *  these values: a receipt can be reversed only while its order is still being received. */
    removeWhen?: { field: string; in: string[] };
    /** 编辑 is offered only on rows whose field has one of these values (an order the server still lets change). */
    editWhen?: { field: string; in: string[] };
    /** The edit action's name, [zh, en], when editing is something else (a count). */
    editLabel?: [string, string];
    /** A row's own actions, each `POST <api>/<path>?id=` with the `<resource>_<code>` permission (启用, 测试连接). */
    rowActions?: RowAction[];
    /** Toolbar actions that ask for a few values first (考勤's 补卡), each `POST <path>` with the values. */
    tools?: ToolForm[];
    /** What the screen is for and what the server does not do with it, [zh, en] (shown above the list). */
    note?: [string, string];
    /** Exact-value filters of the search form beside the keyword fields (`<field>_equal`, answered from the field's
     * index): a choice of `options` or the field's dictionary, else a text box (the logs' 状态码, 请求接口, 操作IP). */
    filters?: ExactFilter[];
    /** The date field of the search form's range instead of 创建时间 (项目: 开始时间), from and to both whole days. */
    dateRange?: string;
    /** List columns the screen's table leaves out so it fits the screen (still in 查看 and 导出): 货主, 联系电话. */
    hide?: string[];
    /** A 创建时间 column under this label (工单回复: 回复时间). */
    createdColumn?: [string, string] } | null;
};
/** A value offered as it is, or as [value, zh, en]. */
export type ExactFilter = { field: string; options?: (string | [string, string, string])[] };
export type RowAction = { path: string; label: [string, string]; code: string; done: [string, string];
  /** A reason asked for first (sent as `reason`), [zh, en]. */
  reason?: [string, string];
  /** A question asked first (what cannot be undone), [zh, en]. */
  confirm?: [string, string];
  /** Offered only on rows whose `field` is one of `in`. */
  when?: { field: string; in: string[] } };
/** A toolbar action's form: `POST path` (absolute, or under the resource's api) with the values typed. */
export type ToolForm = { path: string; label: [string, string]; code: string; done: [string, string];
  /** A page the tool opens instead of a form (`/wms/stock/count`). */
  to?: string;
  fields: { name: string; label: [string, string]; kind?: 'text' | 'date' | 'time'; refers?: string; required?: boolean;
    /** The picker narrowed by another choice of the form, through a join: {"constructId": "construct_worker.constructId"}. */
    within?: Record<string, string> }[] };
export type PageData = { records: any[]; total: number; size: number; current: number; pages: number };
/** Dictionary entries by code, for the administration screens' first render. */
export type PageDicts = Record<string, DictItem[]>;
export type Page =
  /** `error`: why the query's filters could not be taken (the page then holds no rows). */
  | { kind: 'list'; resource: ResourceSchema; data: PageData; query: Record<string, string>; error?: string | null }
  | { kind: 'none' }
  // The specialised administration screens (routes.tsx ADMIN_SCREENS): what their first calls answer.
  | { kind: 'dict'; parents: PageData; dicts: PageDicts }
  | { kind: 'user'; depts: any[]; users: PageData; dicts: PageDicts }
  | { kind: 'tree'; rows: any; dicts: PageDicts }
  | { kind: 'paged'; data: PageData; dicts: PageDicts }
  | { kind: string; data: any };
export type User = { userId: string; account: string; realName: string; avatar: string; tenantId: string; roleName: string; deptId: string;
  /** The password was set by someone else (a reset, a new tenant, an install): /password comes first. */
  mustChangePassword?: boolean };
export type Props = {
  url: string;
  now: number;
  locale: 'zh' | 'en';
  site: { title: string; storagePrefix: string; apps: { name: string; url: string }[]; socialAuthUrl: string | null; feedbackUrl?: string; appraiseUrl?: string; searchBox?: boolean;
    /** What the frame page may show: origins configured for the tenant, and its menus' same-site .html paths. */
    frames?: string[] };
  /** The theme from cookie zz-theme (validated by the server), so the first paint already has it. */
  theme?: { name: string; color: string | null } | null;
  tenant: { id: string; name: string; knownFromHost: boolean };
  user: User | null;
  menus: MenuNode[];
  permissions: string[];
  page: Page;
  /**
   * Signed out only: whether the path names a screen that exists for someone (a menu path, a list screen,
   * a generated resource's screen). Such a path asks for sign-in first; any other path is /404 (SPEC §2).
   */
  knownPath?: boolean;
};
