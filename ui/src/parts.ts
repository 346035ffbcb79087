// Screens in parts (issue 57 item 4): the first page a browser loads carries React, the sign-in page, the
// layout and what every page shares; a screen's own code (the desk's charts and map, the designer, the warehouse,
// the list screen's forms...) comes in its part, fetched when a page needs it — before hydration for the page the
// server rendered (`entry-client.tsx`, which the server also names in `<link rel="modulepreload">`), before the
// switch for an in-app navigation (`app.tsx`). The server bundle has every part at once (`parts.server.ts`,
// swapped in by build.mjs): it renders synchronously, so a page and its hydration see the same tree.
export type Parts = {
  layout: typeof import('./parts/layout');
  desk: typeof import('./parts/desk');
  crud: typeof import('./parts/crud');
  admin: typeof import('./parts/admin');
  scm: typeof import('./parts/scm');
  finance: typeof import('./parts/finance');
  worklist: typeof import('./parts/worklist');
  wms: typeof import('./parts/wms');
  flow: typeof import('./parts/flow');
  print: typeof import('./parts/print');
};
export type PartName = keyof Parts;

const loaders: { [K in PartName]: () => Promise<Parts[K]> } = {
  layout: () => import('./parts/layout'),
  desk: () => import('./parts/desk'),
  crud: () => import('./parts/crud'),
  admin: () => import('./parts/admin'),
  scm: () => import('./parts/scm'),
  finance: () => import('./parts/finance'),
  worklist: () => import('./parts/worklist'),
  wms: () => import('./parts/wms'),
  flow: () => import('./parts/flow'),
  print: () => import('./parts/print'),
};

const got: Partial<Parts> = {};

/** A part already here, or undefined. */
export function loaded<K extends PartName>(k: K): Parts[K] | undefined {
  return got[k] as Parts[K] | undefined;
}

/** Fetches the parts not here yet (a failed fetch rejects: the caller loads the page the plain way). */
export async function ensure(keys: PartName[]): Promise<void> {
  await Promise.all(keys.filter((k) => !got[k]).map(async (k) => { (got as any)[k] = await loaders[k](); }));
}
