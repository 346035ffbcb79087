// Tag bar rules of SPEC §2 as pure functions over {tags, active}. The first tag is the
// desk (/wel/index) and can never be closed; the last remaining tag can never be closed.
/** `name`: which record the page shows (a goods, a person's leave), set by the page once it has loaded it
 * (`useTagName`); `title`: the page's own title where it differs from its route's (调整申请 on 审批处理). */
export type Tag = { label: string; value: string; name?: string; title?: string };
export type TagState = { tags: Tag[]; active: string };
export const HOME: Tag = { label: 'menu.wel', value: '/wel/index' };

export function initial(): TagState {
  return { tags: [HOME], active: HOME.value };
}

/**
 * Pages whose trailing segments are views of one record (the construct page's `{edit}/{tagname}`): one tag per
 * record, showing the view last opened.
 */
const RECORD_VIEWS: [prefix: string, segments: number][] = [['/construct/info/', 4]];
const recordOf = (path: string): string => {
  const r = RECORD_VIEWS.find(([p]) => path.startsWith(p));
  return r ? path.split('/').slice(0, r[1]).join('/') : path;
};

/** Pages that create a record, and where they go once it is saved: their tag becomes the new record's (a new
 * 施工单's stayed open as 「施工单 · info」, 新建工单 beside the order it raised). */
const CREATES: [page: string, then: string][] = [['/construct/info', '/construct/info/'], ['/worklist/addworklist', '/worklist/view/']];
const creates = (path: string, next: string): boolean => CREATES.some(([p, then]) => path === p && next.startsWith(then));

/** Opens (or re-activates) a tag; the desk always stays first. */
export function open(s: TagState, tag: Tag): TagState {
  const tags = s.tags.some((t) => t.value === HOME.value) ? s.tags : [HOME, ...s.tags];
  if (tags.some((t) => t.value === tag.value)) return { tags, active: tag.value };
  const creating = tags.findIndex((t) => t.value === s.active && creates(t.value.split('?')[0], tag.value));
  if (creating >= 0) return { tags: tags.map((t, i) => (i === creating ? tag : t)), active: tag.value };
  const same = tags.findIndex((t) => recordOf(t.value) === recordOf(tag.value));
  if (same >= 0) return { tags: tags.map((t, i) => (i === same ? tag : t)), active: tag.value };
  return { tags: [...tags, tag], active: tag.value };
}

/** The tag of `value` named by its page (unchanged state when it already is, or when no tag is open there). */
export function named(s: TagState, value: string, name?: string, title?: string): TagState {
  const i = s.tags.findIndex((t) => t.value === value);
  if (i < 0 || (s.tags[i].name === name && s.tags[i].title === title)) return s;
  return { ...s, tags: s.tags.map((t, j) => (j === i ? { ...t, name: name || undefined, title: title || undefined } : t)) };
}

/** How long a record's name may run in a tag before it is cut (the tag bar holds many). */
const NAME_MAX = 16;

export function closable(s: TagState, value: string): boolean {
  return s.tags.length > 1 && value !== HOME.value && s.tags.some((t) => t.value === value);
}

/** Closes one tag; closing the active one activates the previous one, or the first. */
export function close(s: TagState, value: string): TagState {
  if (!closable(s, value)) return s;
  const i = s.tags.findIndex((t) => t.value === value);
  const tags = s.tags.filter((t) => t.value !== value);
  if (s.active !== value) return { tags, active: s.active };
  const prev = tags[i - 1] ?? tags[0];
  return { tags, active: prev.value };
}

/** Keeps the desk and the active tag. */
export function closeOthers(s: TagState): TagState {
  return { tags: s.tags.filter((t) => t.value === HOME.value || t.value === s.active), active: s.active };
}

/** Back to the desk alone. */
export function closeAll(_s: TagState): TagState {
  return initial();
}

/**
 * What each tag shows: its title, and where two open tags have the same title (two 施工单, two contracts) the
 * record each is of, from its path (`施工单详情 · SG-1`), so they can be told apart.
 */
export function tagLabels(tags: Tag[], routeLabel: (t: Tag) => string): Map<string, string> {
  const label = (t: Tag) => t.title || routeLabel(t);
  const count = new Map<string, number>();
  for (const t of tags) count.set(label(t), (count.get(label(t)) ?? 0) + 1);
  const out = new Map<string, string>();
  const seen = new Map<string, number>();
  for (const t of tags) {
    const l = label(t);
    const n = (seen.get(l) ?? 0) + 1;
    seen.set(l, n);
    const rec = decoded(recordOf(t.value.split('?')[0]).split('/').filter(Boolean).pop() ?? '');
    // The name its page gave it (瓷砖 600×600, 吴军 · 事假) says which it is; else a record's code (SG-1); a bare
    // database id (or the 0 of a process without a business record) says nothing to a person: the tags are
    // numbered in the order they were opened instead.
    const name = t.name && (t.name.length > NAME_MAX ? t.name.slice(0, NAME_MAX - 1) + '…' : t.name);
    const which = name || (/^\d{6,}$/.test(rec) || rec === '0' ? String(n) : rec);
    out.set(t.value, (count.get(l) ?? 0) > 1 && which ? `${l} · ${which}` : l);
  }
  return out;
}

const decoded = (s: string) => {
  try { return decodeURIComponent(s); } catch { return s; }
};

/** Tags whose label (translated) or path contains the query, case-insensitively. */
export function search(s: TagState, q: string, label: (t: Tag) => string = (t) => t.label): Tag[] {
  const needle = q.trim().toLowerCase();
  if (!needle) return s.tags;
  return s.tags.filter((t) => label(t).toLowerCase().includes(needle) || t.value.toLowerCase().includes(needle));
}

/** The event a page sends to name its tag (the tag bar listens; see `useTagName`). */
export const TAG_NAME_EVENT = 'zz:tag-name';
export type TagNameDetail = { path: string; name?: string; title?: string };
