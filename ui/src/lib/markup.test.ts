import { expect, test } from 'bun:test';
import { createElement as h, Fragment, type ReactNode } from 'react';
import { renderToString } from 'react-dom/server';
import { escapeHtml, hostMarkup } from './markup';
import { Host } from '../components/ui/host';
import { leanServerElements } from '../server/vnodes';

// Elements as the server makes them (server/vnodes.ts).
leanServerElements();

/** What the server's renderer writes inside <tbody> for these children. */
const rendered = (children: ReactNode) => {
  const html = renderToString(h('table', null, h('tbody', null, children)));
  return html.slice('<table><tbody>'.length, -'</tbody></table>'.length);
};
const same = (children: ReactNode) => expect(hostMarkup(children)).toBe(rendered(children));

const nasty = ['', 'a', '<b>&"\'', '基准参数 1', ' x ', '&amp;', '<!-- -->', '\u2028', '0'];

test('rows of a list screen: cells, checkboxes, buttons, numbers, adjacent texts', () => {
  const rows = nasty.map((v, i) =>
    h('tr', { key: i, className: i % 2 ? 'selected' : '' },
      h('td', { className: 'col-check' }, h('input', { type: 'checkbox', 'aria-label': '选择此行 ' + (i + 1), checked: i % 2 === 1, onChange: () => {} })),
      h('td', { className: 'col-index' }, i + 1),
      h('td', null, v),
      h('td', null, v, v, i, null, false, true, undefined, [v, [i]]),
      h('td', { title: v, 'data-id': v, 'aria-hidden': i % 2 === 0, hidden: i % 3 === 0, colSpan: i || undefined }, h(Fragment, null, v, h('b', null, v), v)),
      h('td', { className: 'col-action' },
        h('button', { type: 'button', className: 'link', onClick: () => {}, disabled: i % 2 === 0, tabIndex: i % 2 ? -1 : undefined }, '查看'),
        h('button', { type: 'button', className: 'link danger', role: 'menuitem', id: 'b' + i }, v, '删除'))));
  same(rows);
  same(h('tr', null, h('td', { colSpan: 3, className: 'empty' }, '暂无数据')));
  // Every attribute the renderer writes, and aria/data booleans as text.
  expect(hostMarkup(h('td', { 'aria-hidden': false, 'data-x': true, hidden: true, title: '' }, 'x'))).toBe('<td aria-hidden="false" data-x="true" hidden title>x</td>');
});

test('menu lists: links, aria booleans, nested lists', () => {
  const inNav = (children: ReactNode) => renderToString(h('nav', null, children)).slice(5, -6);
  const items = ['/a', '', '/myiframe/urlPath?name=%E5%A4%A7&src=http%3A%2F%2Fx.html', 'https://x.y/?a=1&b="2"', 7].map((href, i) =>
    h('li', { key: i, className: 'menu-group' + (i ? ' open' : '') },
      h('button', { type: 'button', 'aria-expanded': i % 2 === 0, onClick: () => {} }, h('span', { className: 'menu-icon', 'aria-hidden': 'true' }, '系'), h('span', { className: 'caret', 'aria-hidden': 'true' })),
      h('ul', { className: 'menu-list depth-1' }, h('li', null, h('a', { href, className: i ? '' : 'active', 'aria-current': i ? undefined : 'page', target: i ? '_blank' : undefined, rel: 'noopener', onClick: () => {} }, h('span', null, '名'), '<x>')))));
  const list = h('ul', { className: 'menu-list depth-0' }, items);
  expect(hostMarkup(list)).toBe(inNav(list));
});

test('style objects: px for numbers, unitless properties, custom properties, escaping', () => {
  same(h('tr', { style: { '--primary': ' #409EFF ', width: 120, paddingLeft: 0, lineHeight: 1.5, flexGrow: 2, color: 'red"', marginTop: '', opacity: null, zIndex: 3, borderTopLeftRadius: 4 } },
    h('td', { style: { width: '10%' }, className: 'c' }, 'x'), h('td', { style: {} }, 'y'), h('td', { style: 'color: red' }, 'z')));
});

test('svg shapes: attribute names, numbers, titles', () => {
  const shapes = [
    h('path', { key: 1, d: 'M0,0L10,10Z', fill: '#fff', stroke: '#fff', strokeWidth: 0.8 / 3 }, h('title', null, `广东 ${12}`)),
    h('path', { key: 2, d: 'M1,1', fill: 'red' }, h('title', null, ['a<b']), h('title', null, 7)),
    h('g', { key: 3, transform: 'translate(1.5,2)', className: 'x' },
      h('circle', { r: 14 / 3, fill: '#F56C6C', fillOpacity: 0.75, strokeLinecap: 'round' }),
      h('text', { y: -17.123456789, fontSize: 15, textAnchor: 'middle', dominantBaseline: 'central' }, `${1}. 广东`, '!')),
  ];
  const svg = h('svg', { viewBox: '0 0 800 600', role: 'img', 'aria-label': 'm' }, shapes);
  const html = renderToString(svg);
  expect(hostMarkup(shapes, true)).toBe(html.slice(html.indexOf('>') + 1, -'</svg>'.length));
  expect(hostMarkup(shapes, true)).toContain('stroke-width="0.26666666666666666"');
  // Outside svg the same names are html's (camel case kept, as the renderer does).
  expect(hostMarkup(h('div', null, h('svg', null, h('path', { strokeWidth: 2 }))))).toBe('<div><svg><path stroke-width="2"></path></svg></div>');
});

test('inputs: value, checked and empty attributes as the renderer writes them', () => {
  same(h('tr', null, h('td', null,
    h('input', { value: 'v"<', type: 'text', readOnly: true, placeholder: 'p' }),
    h('input', { defaultValue: 'd', id: 'x' }),
    h('input', { defaultChecked: true, type: 'radio' }),
    h('input', { value: '', autoComplete: 'off' }),
    h('input', { checked: true, value: 3, type: 'checkbox', 'aria-label': 'a', onChange: () => {} }))));
});

test('anything outside the subset is left to the renderer', () => {
  const C = () => h('td', null, 'x');
  for (const n of [
    h(C),
    h('select', { value: 'a' }, h('option', { value: 'a' }, 'a')),
    h('textarea', { value: 'a' }),
    h('td', { value: 'a' }),
    h('td', { dangerouslySetInnerHTML: { __html: '<b>' } }),
    h('td', { xlinkHref: '#a' }),
    h('my-el', null),
    [h('td', null, 'ok'), h(C)],
  ]) expect(hostMarkup(n)).toBeNull();
});

test('Host writes the same HTML as the renderer and falls back for other children', () => {
  const kids = [h('tr', { key: 1 }, h('td', null, 'a', 1)), h('tr', { key: 2 }, h('td', null, '<b>'))];
  const viaHost = renderToString(h('table', null, h(Host, { tag: 'tbody', className: 'x' }, kids)));
  expect(viaHost).toBe(renderToString(h('table', null, h('tbody', { className: 'x' }, kids))));
  expect(viaHost).toBe('<table><tbody class="x"><tr><td>a1</td></tr><tr><td>&lt;b></td></tr></tbody></table>');
  const C = () => h('tr', null, h('td', null, 'c'));
  expect(renderToString(h('table', null, h(Host, { tag: 'tbody' }, h(C))))).toBe('<table><tbody><tr><td>c</td></tr></tbody></table>');
});

test('escaping matches the renderer for every special character', () => {
  expect(escapeHtml(`a"b'c&d<e>f`)).toBe('a&quot;b\'c&amp;d&lt;e>f');
  expect(escapeHtml('<')).toBe('&lt;');
  expect(escapeHtml(12)).toBe('12');
  for (const s of nasty) same(h('tr', null, h('td', { title: s }, s)));
  const long = '<&"'.repeat(40);
  same(h('tr', null, h('td', { title: long }, long)));
});
