// The server's parts (see parts.ts): all of them, at once, so a render never waits.
import * as layout from './parts/layout';
import * as desk from './parts/desk';
import * as crud from './parts/crud';
import * as admin from './parts/admin';
import * as scm from './parts/scm';
import * as finance from './parts/finance';
import * as worklist from './parts/worklist';
import * as wms from './parts/wms';
import * as flow from './parts/flow';
import * as print from './parts/print';
import type { PartName, Parts } from './parts';

export type { PartName, Parts };
const got: Parts = { layout, desk, crud, admin, scm, finance, worklist, wms, flow, print };

export function loaded<K extends PartName>(k: K): Parts[K] | undefined {
  return got[k];
}

export async function ensure(_keys: PartName[]): Promise<void> {}
