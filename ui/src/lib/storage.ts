// Browser storage with the site prefix (SPEC §9): key `<prefix>-<name>`, value
// {dataType, content, type, datetime}. Session storage when a type is given, else local.
export type Backend = Pick<Storage, 'getItem' | 'setItem' | 'removeItem' | 'key' | 'length'>;
export type StoreItem = { dataType: string; content: unknown; type?: string; datetime: number };

export function createStore(prefix: string, local: Backend, session: Backend, now: () => number = () => Date.now()) {
  const key = (name: string) => `${prefix}-${name}`;
  const pick = (type?: string) => (type ? session : local);
  return {
    set(name: string, content: unknown, type?: string) {
      const item: StoreItem = { dataType: typeof content, content, type, datetime: now() };
      pick(type).setItem(key(name), JSON.stringify(item));
    },
    /** Session first, then local; `undefined` when absent or unreadable. */
    get<T = unknown>(name: string, debug = false): T | StoreItem | undefined {
      const raw = session.getItem(key(name)) ?? local.getItem(key(name));
      if (raw == null) return undefined;
      try {
        const item = JSON.parse(raw) as StoreItem;
        return debug ? item : (item.content as T);
      } catch {
        return undefined;
      }
    },
    remove(name: string) {
      session.removeItem(key(name));
      local.removeItem(key(name));
    },
    /** Removes this site's keys from the session (type given) or local store. */
    clear(type?: string) {
      const b = pick(type);
      const mine: string[] = [];
      for (let i = 0; i < b.length; i++) {
        const k = b.key(i);
        if (k && k.startsWith(prefix + '-')) mine.push(k);
      }
      mine.forEach((k) => b.removeItem(k));
    },
  };
}
export type Store = ReturnType<typeof createStore>;

/** In-memory backend for tests and for the server side, where there is no browser storage. */
export function memoryBackend(): Backend {
  const m = new Map<string, string>();
  return {
    getItem: (k) => (m.has(k) ? m.get(k)! : null),
    setItem: (k, v) => void m.set(k, String(v)),
    removeItem: (k) => void m.delete(k),
    key: (i) => [...m.keys()][i] ?? null,
    get length() { return m.size; },
  };
}

let browserStore: Store | null = null;
/** The page's store; memory-backed outside a browser. */
export function store(prefix: string): Store {
  if (!browserStore) {
    const hasDom = typeof window !== 'undefined' && typeof localStorage !== 'undefined';
    browserStore = hasDom ? createStore(prefix, localStorage, sessionStorage) : createStore(prefix, memoryBackend(), memoryBackend());
  }
  return browserStore;
}
