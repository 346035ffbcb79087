// Whole pages, rendered the way the server renders them (entry-server's App with the props the demo server
// really sends, captured in ssr/tests/fixtures with the X-ZZ-Props: 1 header), with and without lib/markup: the HTML must be identical (the
// renderer's own for the same tree), or hydration in the browser would not meet what it expects.
import { expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { renderToString } from 'react-dom/server';
import { App } from './app';
import { hostOptions } from './components/ui/host';
import type { Props } from './types';
import { ensure } from './parts';
import { leanServerElements } from './server/vnodes';

// Elements as the server makes them (server/vnodes.ts).
leanServerElements();

// The server bundle has every part at once (parts.server.ts); here they are fetched first, as the browser does.
await ensure(['layout', 'desk', 'crud', 'admin', 'scm', 'finance', 'worklist', 'wms', 'flow', 'print']);

const fixture = (name: string) => JSON.parse(readFileSync(new URL(`../../ssr/tests/fixtures/${name}.json`, import.meta.url), 'utf8')) as Props;

function both(props: Props): [string, string] {
  hostOptions.markup = true;
  hostOptions.fallbacks = 0;
  const fast = renderToString(<App initial={props} />);
  // The screens' tables and the sidebar stay inside markup's subset (else the speed-up is silently lost).
  expect(hostOptions.fallbacks).toBe(0);
  hostOptions.markup = false;
  try {
    return [fast, renderToString(<App initial={props} />)];
  } finally {
    hostOptions.markup = true;
  }
}

for (const name of ['list-demo', 'list', 'dashboard-demo', 'wel', 'user-demo', 'dept-demo']) {
  test(`${name}: the server's HTML is the renderer's, row for row`, () => {
    const [fast, react] = both(fixture(name));
    expect(fast.length).toBeGreaterThan(1000);
    expect(fast).toBe(react);
  });
}

test('a list page in English with a selected theme and rows that need escaping', () => {
  const p = fixture('list-demo');
  p.locale = 'en';
  p.theme = { name: 'dark', color: '#ff0000' } as Props['theme'];
  const page = p.page as Extract<Props['page'], { kind: 'list' }>;
  page.data.records = page.data.records.map((r, i) => ({ ...r, paramName: `<b>"${i}"</b> & 'x'`, remark: i % 2 ? null : '' }));
  const [fast, react] = both(p);
  expect(fast).toContain('&lt;b>&quot;0&quot;&lt;/b> &amp; \'x\'');
  expect(fast).not.toContain('<b>"0"</b>');
  expect(fast).toBe(react);
});

test("a declaration's exact filters: boxes and choices sending <field>_equal, filled from the query", () => {
  const p = fixture('list-demo');
  const page = p.page as Extract<Props['page'], { kind: 'list' }>;
  const paramKey = page.resource.fields.find((f) => f.name === 'paramKey')!;
  page.resource.ui = { ...page.resource.ui, filters: [{ field: 'paramKey' }, { field: 'paramName', options: ['甲', ['乙', '乙参数', 'B param']] }, { field: 'undeclared' }] };
  page.query = { ...page.query, paramKey_equal: 'a.b', paramName_equal: '乙' };
  const [fast, react] = both(p);
  expect(fast).toBe(react);
  const form = fast.slice(fast.indexOf('role="search"'), fast.indexOf('</form>'));
  expect(form).toContain(`<span>${paramKey.label}</span><input value="a.b" placeholder="精确匹配"/>`);
  expect(form).toContain('<option value="甲">甲</option><option selected value="乙">乙参数</option>');
  expect(form).not.toContain('undeclared');
});

test('a reference filter is a picker named after the rows that all name the picked record', () => {
  const p = fixture('list-demo');
  const page = p.page as Extract<Props['page'], { kind: 'list' }>;
  page.resource.fields = page.resource.fields.map((f) => (f.name === 'paramKey' ? { ...f, refers: { resource: 'goods', list: 'GET /api/x/list', title: 'goodsName' } } : f));
  page.resource.ui = { ...page.resource.ui, filters: [{ field: 'paramKey' }] };
  const key = String(page.data.records[0].paramKey);
  page.data.records = page.data.records.map((r) => ({ ...r, paramKey: key, paramKeyName: '铜芯电线' }));
  page.query = { ...page.query, paramKey_equal: key };
  const [fast, react] = both(p);
  expect(fast).toBe(react);
  const form = fast.slice(fast.indexOf('role="search"'), fast.indexOf('</form>'));
  expect(form).toContain('role="combobox"');
  expect(form).toContain('value="铜芯电线"');
});
