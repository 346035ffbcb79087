// The exact HTML React's server renderer writes for a subtree made only of plain host elements
// and text, written directly. In the embedded QuickJS engine React's renderer costs ~15 µs per
// element (measured: 2,400 bare <td>s take 37 ms), which made a 20-row table half of a list
// page's server render; writing the same markup here costs about a quarter of that (bench/README.md).
//
// The output must be byte-identical to renderToString's, or hydration would mismatch: the rules
// below follow react-dom/server 19 (pushAttribute, pushInput, pushTextInstance) for a deliberately
// small subset. Anything outside it (components, style objects, URLs, forms, selects, svg, ...)
// makes `hostMarkup` return null and the caller lets React render the subtree as usual.
// markup.test.ts compares both renderers over the shapes the screens use.
import { Fragment, createElement, type ReactNode } from 'react';

/** The tag of React's elements (what isValidElement checks). */
const ELEMENT = (createElement('i') as unknown as { $$typeof: symbol }).$$typeof;

class Unsupported {}
const UNSUPPORTED = new Unsupported();

/** Tags rendered by React's generic path (open tag, attributes, children, close tag). */
const GENERIC = new Set([
  'div', 'span', 'p', 'li', 'ul', 'ol', 'dl', 'dt', 'dd', 'table', 'thead', 'tbody', 'tfoot', 'tr', 'td', 'th',
  'caption', 'b', 'i', 'em', 'strong', 'small', 'mark', 'code', 'kbd', 'label', 'section', 'header', 'footer',
  'nav', 'aside', 'main', 'article', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'time', 'abbr', 's', 'u', 'sub', 'sup',
  'button', 'input', 'a',
  // svg shapes (React writes them through the same generic path; titles are special, see below)
  'svg', 'g', 'path', 'circle', 'ellipse', 'rect', 'line', 'polyline', 'polygon', 'text', 'tspan',
]);
/** Attributes written as given (escaped), skipped when boolean. */
const PLAIN = new Set([
  'id', 'title', 'type', 'scope', 'colSpan', 'lang', 'placeholder', 'autoComplete', 'headers', 'inputMode', 'target', 'rel',
  'width', 'height', 'viewBox', 'd', 'fill', 'stroke', 'transform', 'r', 'cx', 'cy', 'rx', 'ry', 'x', 'y', 'x1', 'y1', 'x2', 'y2',
  'dx', 'dy', 'points', 'opacity',
]);
/** React replaces such links with one that throws; left to React. */
const JAVASCRIPT_URL = /^[\u0000-\u001F ]*j[\r\n\t]*a[\r\n\t]*v[\r\n\t]*a[\r\n\t]*s[\r\n\t]*c[\r\n\t]*r[\r\n\t]*i[\r\n\t]*p[\r\n\t]*t[\r\n\t]*:/i;
/** Written as name="" when truthy. */
const BOOLEAN = new Set(['disabled', 'hidden', 'readOnly', 'required']);
/** Attributes whose names change. */
const RENAMED: Record<string, string> = {
  className: 'class', tabIndex: 'tabindex',
  // React's svg aliases (the ones the screens use)
  strokeWidth: 'stroke-width', strokeOpacity: 'stroke-opacity', strokeLinecap: 'stroke-linecap', strokeLinejoin: 'stroke-linejoin',
  fillOpacity: 'fill-opacity', fillRule: 'fill-rule', fontSize: 'font-size', textAnchor: 'text-anchor', dominantBaseline: 'dominant-baseline',
};
/** Props React treats as form fields or actions (name goes after the other attributes): not supported here. */
const FORM = new Set(['name', 'formAction', 'formEncType', 'formMethod', 'formTarget']);

const ESCAPE = /["'&<>]/;
// Escaped short strings, remembered: class names, labels and cell values repeat within a page and
// across renders, and in QuickJS a Map lookup costs a tenth of a regular-expression test.
const escaped = new Map<string, string>();
export function escapeHtml(v: unknown): string {
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return '' + v;
  const s = '' + v;
  if (s.length > 64) return escapeSlow(s);
  let e = escaped.get(s);
  if (e === undefined) {
    if (escaped.size >= 4096) escaped.clear();
    escaped.set(s, (e = escapeSlow(s)));
  }
  return e;
}
function escapeSlow(s: string): string {
  if (!ESCAPE.test(s)) return s;
  let out = '';
  let last = 0;
  for (let i = 0; i < s.length; i++) {
    let rep: string;
    switch (s.charCodeAt(i)) {
      case 34: rep = '&quot;'; break;
      case 38: rep = '&amp;'; break;
      case 39: rep = '&#x27;'; break;
      case 60: rep = '&lt;'; break;
      case 62: rep = '&gt;'; break;
      default: continue;
    }
    if (last !== i) out += s.slice(last, i);
    last = i + 1;
    out += rep;
  }
  return last !== s.length ? out + s.slice(last) : out;
}

/** React's unitless CSS properties (numbers get no px). */
const UNITLESS = new Set(
  'animationIterationCount aspectRatio borderImageOutset borderImageSlice borderImageWidth boxFlex boxFlexGroup boxOrdinalGroup columnCount columns flex flexGrow flexPositive flexShrink flexNegative flexOrder gridArea gridRow gridRowEnd gridRowSpan gridRowStart gridColumn gridColumnEnd gridColumnSpan gridColumnStart fontWeight lineClamp lineHeight opacity order orphans scale tabSize widows zIndex zoom fillOpacity floodOpacity stopOpacity strokeDasharray strokeDashoffset strokeMiterlimit strokeOpacity strokeWidth'.split(' '),
);

function style(v: unknown): string {
  if (typeof v !== 'object' || v === null) throw UNSUPPORTED;
  let out = '';
  for (const name in v) {
    if (!Object.prototype.hasOwnProperty.call(v, name)) continue;
    const value = (v as Record<string, unknown>)[name];
    if (value == null || typeof value === 'boolean' || value === '') continue;
    let css: string;
    let val: string;
    if (name.startsWith('--')) {
      css = escapeHtml(name);
      val = escapeHtml(('' + value).trim());
    } else {
      if (!/^[a-zA-Z]+$/.test(name) || name.startsWith('ms') || /^(Moz|Webkit|WebKit)/.test(name)) throw UNSUPPORTED;
      css = name.replace(/([A-Z])/g, '-$1').toLowerCase();
      val = typeof value === 'number' ? (value === 0 || UNITLESS.has(name) ? '' + value : value + 'px') : escapeHtml(('' + value).trim());
    }
    out += (out ? ';' : ' style="') + css + ':' + val;
  }
  return out ? out + '"' : '';
}

const invisible = (v: unknown) => typeof v === 'function' || typeof v === 'symbol';

// How each prop name is written, decided once per name (QuickJS makes every string test count).
const K = { Skip: 0, Text: 1, Bool: 2, AriaData: 3, Children: 4, Style: 5, Href: 6, Form: 7, Checked: 8, DefaultChecked: 9, Value: 10, DefaultValue: 11, No: 12 } as const;
type Kind = { k: number; open: string };
const KINDS = new Map<string, Kind>([
  ['children', { k: K.Children, open: '' }],
  ['style', { k: K.Style, open: '' }],
  ['href', { k: K.Href, open: ' href="' }],
  ['checked', { k: K.Checked, open: '' }],
  ['defaultChecked', { k: K.DefaultChecked, open: '' }],
  ['value', { k: K.Value, open: '' }],
  ['defaultValue', { k: K.DefaultValue, open: '' }],
  ['dangerouslySetInnerHTML', { k: K.No, open: '' }],
]);
for (const f of FORM) KINDS.set(f, { k: K.Form, open: '' });

function classify(name: string): Kind {
  if (name.length > 2 && (name[0] === 'o' || name[0] === 'O') && (name[1] === 'n' || name[1] === 'N')) return { k: K.Skip, open: '' }; // handlers
  if (name === 'ref' || name === 'suppressHydrationWarning' || name === 'suppressContentEditableWarning') return { k: K.Skip, open: '' };
  const renamed = RENAMED[name];
  if (renamed !== undefined || name === 'role' || name === 'dir' || PLAIN.has(name)) return { k: K.Text, open: ` ${renamed ?? name}="` };
  if (BOOLEAN.has(name)) return { k: K.Bool, open: ` ${name}=""` };
  const prefix = name.slice(0, 5).toLowerCase();
  if ((prefix === 'aria-' || prefix === 'data-') && /^[a-zA-Z][-a-zA-Z0-9_.:]*$/.test(name)) return { k: K.AriaData, open: ` ${name}="` };
  return { k: K.No, open: '' };
}
function kind(name: string): Kind {
  let k = KINDS.get(name);
  if (k === undefined) KINDS.set(name, (k = classify(name)));
  return k;
}

// Output goes to an array joined once: in QuickJS `this.out += s` copies the whole string each
// time (the field holds a second reference, so the engine cannot append in place).
class Writer {
  out: string[] = [];
  /** Whether the last thing written was text (React separates adjacent texts with <!-- -->). */
  text = false;
  /** Inside an <svg>: where React writes <title> in place (elsewhere it hoists titles to the head). */
  svg = false;

  node(n: unknown): void {
    if (n == null || typeof n === 'boolean') return;
    if (typeof n === 'string' || typeof n === 'number' || typeof n === 'bigint') {
      const s = '' + n;
      if (s === '') return;
      if (this.text) this.out.push('<!-- -->');
      this.out.push(escapeHtml(s));
      this.text = true;
      return;
    }
    if (Array.isArray(n)) {
      for (let i = 0; i < n.length; i++) this.node(n[i]);
      return;
    }
    const el = n as { $$typeof?: unknown; type?: unknown; props?: Record<string, unknown> };
    if (el.$$typeof !== ELEMENT) throw UNSUPPORTED;
    const props = el.props ?? {};
    if (el.type === Fragment) return this.node(props.children);
    if (el.type === 'title' && this.svg) return this.title(props);
    if (typeof el.type !== 'string' || !GENERIC.has(el.type)) throw UNSUPPORTED;
    this.element(el.type, props);
  }

  element(tag: string, props: Record<string, unknown>) {
    const out = this.out;
    const input = tag === 'input';
    out.push('<', tag);
    let children: unknown = null;
    let checked: unknown = null;
    let defaultChecked: unknown = null;
    let value: unknown = null;
    let defaultValue: unknown = null;
    const keys = Object.keys(props); // own enumerable string keys, in the order for...in gives React
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i];
      const v = props[key];
      if (v == null) continue;
      const kd = kind(key);
      const open = kd.open;
      // Numbers, not K.*: each case expression is evaluated in turn.
      switch (kd.k) {
        case 0 /* Skip */: break;
        case 1 /* Text */: if (!invisible(v) && typeof v !== 'boolean') out.push(open, escapeHtml(v), '"'); break;
        case 2 /* Bool */: if (v && !invisible(v)) out.push(open); break;
        case 3 /* AriaData */: if (!invisible(v)) out.push(open, escapeHtml(v), '"'); break;
        case 4 /* Children */: children = v; break;
        case 5 /* Style */: out.push(style(v)); break;
        case 6 /* Href */:
          if (tag !== 'a' || JAVASCRIPT_URL.test('' + v)) throw UNSUPPORTED;
          if (!invisible(v) && typeof v !== 'boolean') out.push(open, escapeHtml(v), '"');
          break;
        case 7 /* Form */: throw UNSUPPORTED;
        case 8 /* Checked */: if (!input) throw UNSUPPORTED; checked = v; break;
        case 9 /* DefaultChecked */: if (!input) throw UNSUPPORTED; defaultChecked = v; break;
        case 10 /* Value */: if (!input) throw UNSUPPORTED; value = v; break;
        case 11 /* DefaultValue */: if (!input) throw UNSUPPORTED; defaultValue = v; break;
        default: throw UNSUPPORTED;
      }
    }
    if (input) {
      if (children != null) throw UNSUPPORTED;
      // After the other attributes, as React writes them.
      const on = checked !== null ? checked : defaultChecked;
      if (on && !invisible(on)) out.push(' checked=""');
      const val = value !== null ? value : defaultValue;
      if (val !== null && !invisible(val)) out.push(' value="', escapeHtml(val), '"');
      out.push('/>');
      this.text = false;
      return;
    }
    out.push('>');
    this.text = false;
    const outer = this.svg;
    if (tag === 'svg') this.svg = true;
    this.node(children);
    this.svg = outer;
    out.push('</', tag, '>');
    this.text = false;
  }

  /** An svg <title>: its one text child written whole, no separators (React's pushTitleImpl). */
  title(props: Record<string, unknown>) {
    let text: unknown = props.children;
    if (Array.isArray(text)) text = text.length < 2 ? text[0] : null;
    if (text != null && typeof text !== 'string' && typeof text !== 'number') throw UNSUPPORTED;
    const out = this.out;
    out.push('<title');
    for (const key of Object.keys(props)) {
      const v = props[key];
      if (key === 'children' || v == null) continue;
      const kd = kind(key);
      if (kd.k === 1 /* Text */) { if (!invisible(v) && typeof v !== 'boolean') out.push(kd.open, escapeHtml(v), '"'); }
      else if (kd.k !== 0 /* Skip */) throw UNSUPPORTED;
    }
    out.push('>');
    if (text != null) out.push(escapeHtml('' + text));
    out.push('</title>');
    this.text = false;
  }
}

/**
 * The HTML React's renderToString writes for `children` placed inside a host element, or null
 * when the subtree holds anything but plain host elements and text of the supported subset.
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
