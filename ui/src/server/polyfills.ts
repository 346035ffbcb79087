// What the server's renderer and the screens' code expect of a browser-like global scope, for the bare QuickJS
// engine. Imported first by entry-server. Native pieces (console, performance.now,
// __zz_utf8_encode/__zz_utf8_decode) come from the Rust host (ssr crate).
// Macrotasks queue here and run when the host calls __zz_drain() after each render; delays
// are ignored (SSR has no wall clock to wait on).
const g = globalThis as any;
type Task = { id: number; fn: () => void };
let tasks: Task[] = [];
let nextId = 1;
const cleared = new Set<number>();

function enqueue(fn: (...a: any[]) => void, args: any[]): number {
  const id = nextId++;
  tasks.push({ id, fn: () => fn(...args) });
  return id;
}
if (typeof g.setTimeout !== 'function') {
  g.setTimeout = (fn: any, _ms?: number, ...args: any[]) => enqueue(fn, args);
  g.clearTimeout = (id: number) => { cleared.add(id); };
  g.setImmediate = (fn: any, ...args: any[]) => enqueue(fn, args);
  g.clearImmediate = g.clearTimeout;
  // An interval fires once in SSR: nothing waits for the next tick.
  g.setInterval = g.setTimeout;
  g.clearInterval = g.clearTimeout;
}
// Runs the tasks queued so far; true when running them queued more.
g.__zz_drain = () => {
  const run = tasks;
  tasks = [];
  for (const t of run) {
    if (cleared.delete(t.id)) continue;
    try { t.fn(); } catch (e) { console.error('macrotask', String(e)); }
  }
  if (!tasks.length) cleared.clear();
  return tasks.length > 0;
};
if (typeof g.queueMicrotask !== 'function') {
  g.queueMicrotask = (fn: () => void) => { Promise.resolve().then(fn); };
}
if (typeof g.MessageChannel !== 'function') {
  g.MessageChannel = class {
    port1: any = { onmessage: null, postMessage: (d: any) => enqueue(() => this.port2.onmessage?.({ data: d }), []), close() {} };
    port2: any = { onmessage: null, postMessage: (d: any) => enqueue(() => this.port1.onmessage?.({ data: d }), []), close() {} };
  };
}
if (typeof g.TextEncoder !== 'function') {
  g.TextEncoder = class {
    encoding = 'utf-8';
    encode(s = '') { return g.__zz_utf8_encode(String(s)); }
    encodeInto(s: string, dest: Uint8Array) {
      const b = g.__zz_utf8_encode(String(s));
      const n = Math.min(b.length, dest.length);
      dest.set(b.subarray(0, n));
      return { read: n === b.length ? s.length : 0, written: n };
    }
  };
  g.TextDecoder = class {
    encoding = 'utf-8';
    decode(b?: ArrayBuffer | ArrayBufferView) {
      if (!b) return '';
      const u8 = b instanceof Uint8Array ? b : ArrayBuffer.isView(b) ? new Uint8Array(b.buffer, b.byteOffset, b.byteLength) : new Uint8Array(b);
      return g.__zz_utf8_decode(u8);
    }
  };
}
if (typeof g.window === 'undefined') g.self = g;
export {};

// A minimal URLSearchParams (QuickJS has none): enough for query parsing during render.
if (typeof g.URLSearchParams !== 'function') {
  const dec = (s: string) => { try { return decodeURIComponent(s.replace(/\+/g, ' ')); } catch { return s; } };
  const enc = (s: string) => encodeURIComponent(s).replace(/%20/g, '+');
  g.URLSearchParams = class {
    private p: [string, string][] = [];
    constructor(init?: string | Record<string, string>) {
      if (typeof init === 'string') {
        for (const part of init.replace(/^\?/, '').split('&')) {
          if (!part) continue;
          const i = part.indexOf('=');
          this.p.push(i < 0 ? [dec(part), ''] : [dec(part.slice(0, i)), dec(part.slice(i + 1))]);
        }
      } else if (init) for (const k of Object.keys(init)) this.p.push([k, String(init[k])]);
    }
    get(k: string) { const e = this.p.find((x) => x[0] === k); return e ? e[1] : null; }
    getAll(k: string) { return this.p.filter((x) => x[0] === k).map((x) => x[1]); }
    has(k: string) { return this.p.some((x) => x[0] === k); }
    set(k: string, v: string) { this.delete(k); this.p.push([k, String(v)]); }
    append(k: string, v: string) { this.p.push([k, String(v)]); }
    delete(k: string) { this.p = this.p.filter((x) => x[0] !== k); }
    forEach(fn: (v: string, k: string) => void) { this.p.forEach(([k, v]) => fn(v, k)); }
    entries() { return this.p[Symbol.iterator](); }
    [Symbol.iterator]() { return this.p[Symbol.iterator](); }
    toString() { return this.p.map(([k, v]) => enc(k) + '=' + enc(v)).join('&'); }
  };
}
