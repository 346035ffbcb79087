// Elements as the server renders them: preact/compat normalizes every element's props when it is created (class
// and className, event names, style numbers, svg attribute names: a loop with a regular-expression test per prop
// and a new props object), for the browser's DOM. The server's renderer does what of it a string needs by itself
// (className as class, px for style numbers, svg names), so on the server a host element keeps its props as
// written and only gets the element mark libraries check (`isValidElement`); components still go through compat's
// hook (refs, default props). In QuickJS this took the demo's list page from 9.9 to 5.9 ms (bench/README.md).
// Installed by entry-server and by the tests that compare the server's HTML (pages.test.tsx, markup.test.ts).
import { createElement } from 'react';
import { options } from 'preact';

let installed = false;
export function leanServerElements() {
  if (installed) return;
  installed = true;
  const o = options as { vnode?: (v: { type: unknown; $$typeof?: unknown }) => void };
  const compat = o.vnode;
  // The mark compat gives an element (a component's element still goes through its hook, which sets it).
  const mark = (createElement(() => null) as unknown as { $$typeof: unknown }).$$typeof;
  o.vnode = (v) => {
    if (typeof v.type === 'string') v.$$typeof = mark;
    else if (compat) compat(v);
  };
}
