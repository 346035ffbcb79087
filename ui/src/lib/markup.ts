// The exact HTML the server renderer (preact-render-to-string, through preact/compat) writes for a subtree made
// only of plain host elements and text, written directly. In the embedded QuickJS engine the renderer's generic
// path costs several µs per element (its option hooks, attribute tests and one string per subtree level); a
// list page's table body is half of its elements, and writing them here took the page's render from ~7.1 to
// ~6.1 ms (bench/README.md).
//
// The output must be byte-identical to renderToString's: markup.test.ts and pages.test.tsx compare both
// renderers over the shapes the screens use. The rules follow preact-render-to-string 6 (`_renderToString`,
// `encodeEntities`, `styleObjToCss`) for a deliberately small subset, on the props as the server leaves them
// (server/vnodes.ts: not normalized by compat). Anything outside it (components, dangerouslySetInnerHTML, selects,
// textareas, namespaced or unknown tags, ...) makes `hostMarkup` return null and the caller lets the renderer
// write the subtree as usual.
import { Fragment, type ReactNode } from 'react';
import { isValidElement } from 'preact';

class Unsupported {}
const UNSUPPORTED = new Unsupported();

/** Tags written through the renderer's generic path (open tag, attributes, children, close tag). */
const GENERIC = new Set([
  'div', 'span', 'p', 'li', 'ul', 'ol', 'dl', 'dt', 'dd', 'table', 'thead', 'tbody', 'tfoot', 'tr', 'td', 'th',
  'caption', 'b', 'i', 'em', 'strong', 'small', 'mark', 'code', 'kbd', 'label', 'section', 'header', 'footer',
  'nav', 'aside', 'main', 'article', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'time', 'abbr', 's', 'u', 'sub', 'sup',
  'button', 'input', 'a', 'br', 'hr', 'img',
  'svg', 'g', 'path', 'circle', 'ellipse', 'rect', 'line', 'polyline', 'polygon', 'text', 'tspan', 'title',
]);
/** Written as `<tag .../>` when they have no content. */
const VOID = new Set(['input', 'br', 'hr', 'img']);

// The renderer's name rules (preact-render-to-string's util.js).
const UNSAFE_NAME = /[\s\n\\/='"\0<>]/;
const NAMESPACED = /^(xlink|xmlns|xml)([A-Z])/;
const HTML_LOWER_CASE = /^(?:accessK|auto[A-Z]|cell|ch|col|cont|cross|dateT|encT|form[A-Z]|frame|hrefL|inputM|maxL|minL|noV|playsI|popoverT|readO|rowS|src[A-Z]|tabI|useM|item[A-Z])/;
const SVG_CAMEL_CASE = /^ac|^ali|arabic|basel|cap|clipPath$|clipRule$|color|dominant|enable|fill|flood|font|glyph[^R]|horiz|image|letter|lighting|marker[^WUH]|overline|panose|pointe|paint|rendering|shape|stop|strikethrough|stroke|text[^L]|transform|underline|unicode|units|^v[^i]|^w|^xH/;
const NON_DIMENSIONAL = new Set([
  'animation-iteration-count', 'border-image-outset', 'border-image-slice', 'border-image-width', 'box-flex',
  'box-flex-group', 'box-ordinal-group', 'column-count', 'fill-opacity', 'flex', 'flex-grow', 'flex-negative',
  'flex-order', 'flex-positive', 'flex-shrink', 'flood-opacity', 'font-weight', 'grid-column', 'grid-row',
  'line-clamp', 'line-height', 'opacity', 'order', 'orphans', 'stop-opacity', 'stroke-dasharray',
  'stroke-dashoffset', 'stroke-miterlimit', 'stroke-opacity', 'stroke-width', 'tab-size', 'widows', 'z-index',
  'zoom',
]);

const ENTITY = /["&<]/;
// Encoded short strings, remembered: class names, labels and cell values repeat within a page and across
// renders, and in QuickJS a Map lookup costs a tenth of a regular-expression test.
const encoded = new Map<string, string>();
/** The renderer's `encodeEntities`: `"`, `&` and `<` only. */
export function escapeHtml(v: unknown): string {
  const s = '' + v;
  if (s.length > 64) return encodeSlow(s);
  let e = encoded.get(s);
  if (e === undefined) {
    if (encoded.size >= 4096) encoded.clear();
    encoded.set(s, (e = encodeSlow(s)));
  }
  return e;
}
function encodeSlow(s: string): string {
  if (!ENTITY.test(s)) return s;
  return s.replace(/["&<]/g, (c) => (c === '"' ? '&quot;' : c === '&' ? '&amp;' : '&lt;'));
}

const cssNames = new Map<string, string>();
/** The renderer's `styleObjToCss`. */
function style(v: unknown): string | undefined {
  if (v == null || typeof v !== 'object') throw UNSUPPORTED;
  let out = '';
  for (const prop in v as Record<string, unknown>) {
    const val = (v as Record<string, unknown>)[prop];
    if (val == null || val === '') continue;
    let name = prop[0] === '-' ? prop : cssNames.get(prop);
    if (name === undefined) cssNames.set(prop, (name = prop.replace(/[A-Z]/g, '-$&').toLowerCase()));
    const px = typeof val === 'number' && !name.startsWith('--') && !NON_DIMENSIONAL.has(name);
    out = out + name + ':' + val + (px ? 'px;' : ';');
  }
  return out || undefined;
}

// What each prop name becomes, decided once per name and mode (QuickJS makes every string test count).
const K = { Skip: 0, Attr: 1, Enumerated: 2, Children: 3, Style: 4, Value: 5, No: 6 } as const;
type Kind = { k: number; name: string };
const SPECIAL: Record<string, Kind> = {
  children: { k: K.Children, name: '' },
  key: { k: K.Skip, name: '' }, ref: { k: K.Skip, name: '' }, __self: { k: K.Skip, name: '' }, __source: { k: K.Skip, name: '' },
  style: { k: K.Style, name: 'style' },
  value: { k: K.Value, name: 'value' }, defaultValue: { k: K.Value, name: 'value' },
  defaultChecked: { k: K.Attr, name: 'checked' }, defaultSelected: { k: K.Attr, name: 'selected' },
  dangerouslySetInnerHTML: { k: K.No, name: '' }, acceptCharset: { k: K.No, name: '' }, httpEquiv: { k: K.No, name: '' },
  // (className and htmlFor depend on the other props: see `element`.)
};
const kinds = [new Map<string, Kind>(), new Map<string, Kind>()];
function classify(name: string, svg: boolean): Kind {
  const special = SPECIAL[name];
  if (special) return special;
  if (UNSAFE_NAME.test(name)) return { k: K.Skip, name: '' };
  if (NAMESPACED.test(name)) return { k: K.No, name: '' };
  if (name[4] === '-' || name === 'draggable' || name === 'spellcheck') return { k: K.Enumerated, name };
  if (svg) return { k: K.Attr, name: SVG_CAMEL_CASE.test(name) ? (name === 'panose1' ? 'panose-1' : name.replace(/([A-Z])/g, '-$1').toLowerCase()) : name };
  return { k: K.Attr, name: HTML_LOWER_CASE.test(name) ? name.toLowerCase() : name };
}
function kind(name: string, svg: boolean): Kind {
  const m = kinds[svg ? 1 : 0];
  let k = m.get(name);
  if (k === undefined) m.set(name, (k = classify(name, svg)));
  return k;
}

// Output goes to an array joined once: in QuickJS `this.out += s` copies the whole string each time.
class Writer {
  out: string[] = [];
  svg = false;

  node(n: unknown): void {
    if (n == null || typeof n === 'boolean' || typeof n === 'function') return;
    if (typeof n === 'string') {
      if (n !== '') this.out.push(escapeHtml(n));
      return;
    }
    if (typeof n === 'number' || typeof n === 'bigint') {
      this.out.push('' + n);
      return;
    }
    if (Array.isArray(n)) {
      for (let i = 0; i < n.length; i++) this.node(n[i]);
      return;
    }
    // An element (what the renderer takes for one: Preact's own mark).
    if (!isValidElement(n as never)) throw UNSUPPORTED;
    const el = n as { type?: unknown; props: Record<string, unknown> };
    if (el.type === Fragment) return this.node(el.props.children);
    if (typeof el.type !== 'string' || !GENERIC.has(el.type)) throw UNSUPPORTED;
    this.element(el.type, el.props);
  }

  element(tag: string, props: Record<string, unknown>) {
    const out = this.out;
    out.push('<', tag);
    const svg = this.svg;
    let children: unknown = null;
    for (const key in props) {
      let v = props[key];
      if (typeof v === 'function' && key !== 'class' && key !== 'className') continue;
      let name: string;
      if (key === 'className') {
        if ('class' in props) continue;
        name = 'class';
      } else if (key === 'htmlFor') {
        if ('for' in props) continue;
        name = 'for';
      } else {
        const kd = kind(key, svg);
        name = kd.name;
        switch (kd.k) {
          case 0 /* Skip */: continue;
          case 1 /* Attr */: break;
          case 2 /* Enumerated */: if (v != null) v = v + ''; break;
          case 3 /* Children */: children = v; continue;
          case 4 /* Style */: if (typeof v === 'object') v = style(v); break;
          case 5 /* Value */: if (tag !== 'input') throw UNSUPPORTED; break;
          default: throw UNSUPPORTED;
        }
      }
      if (v != null && v !== false) {
        if (v === true || v === '') out.push(' ', name);
        else out.push(' ', name, '="', escapeHtml(v), '"');
      }
    }
    if (typeof children === 'string') {
      if (children === '' && VOID.has(tag)) {
        out.push('/>');
        return;
      }
      out.push('>', escapeHtml(children), '</', tag, '>');
      return;
    }
    const start = out.length;
    out.push('>');
    if (children != null && children !== false && children !== true) {
      this.svg = tag === 'svg' || svg;
      this.node(children);
      this.svg = svg;
    }
    if (out.length === start + 1 && VOID.has(tag)) {
      out[start] = '/>';
      return;
    }
    out.push('</', tag, '>');
  }
}

/**
 * The HTML renderToString writes for `children` placed inside a host element, or null when the subtree holds
 * anything but plain host elements and text of the supported subset.
 */
export function hostMarkup(children: ReactNode, inSvg = false): string | null {
  const w = new Writer();
  w.svg = inSvg;
  try {
    w.node(children);
  } catch (e) {
    if (e === UNSUPPORTED) return null;
    throw e;
  }
  return w.out.join('');
}
