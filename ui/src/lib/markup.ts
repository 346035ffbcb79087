// The exact HTML React's server renderer writes for a subtree made only of plain host elements
// and text, written directly. In the embedded QuickJS engine React's renderer costs ~15 µs per
// element (measured: 2,400 bare <td>s take 37 ms), which made a 20-row table half of a list
// page's server render; this writes the same rows in ~0.1 ms.
//
// The output must be byte-identical to renderToString's, or hydration would mismatch: the rules
// below follow react-dom/server 19 (pushAttribute, pushInput, pushTextInstance) for a deliberately
// small subset. Anything outside it (components, style objects, URLs, forms, selects, svg, ...)
// makes `hostMarkup` return null and the caller lets React render the subtree as usual.
// markup.test.ts compares both renderers over the shapes the screens use.
import { Fragment, isValidElement, type ReactNode } from 'react';

class Unsupported {}
const UNSUPPORTED = new Unsupported();

/** Tags rendered by React's generic path (open tag, attributes, children, close tag). */
const GENERIC = new Set([
  'div', 'span', 'p', 'li', 'ul', 'ol', 'dl', 'dt', 'dd', 'table', 'thead', 'tbody', 'tfoot', 'tr', 'td', 'th',
  'caption', 'b', 'i', 'em', 'strong', 'small', 'mark', 'code', 'kbd', 'label', 'section', 'header', 'footer',
  'nav', 'aside', 'main', 'article', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'time', 'abbr', 's', 'u', 'sub', 'sup',
  'button', 'input', 'a',
]);
/** Attributes written as given (escaped), skipped when boolean. */
const PLAIN = new Set(['id', 'title', 'type', 'scope', 'colSpan', 'lang', 'placeholder', 'autoComplete', 'headers', 'inputMode', 'target', 'rel']);
/** React replaces such links with one that throws; left to React. */
const JAVASCRIPT_URL = /^[\u0000-\u001F ]*j[\r\n\t]*a[\r\n\t]*v[\r\n\t]*a[\r\n\t]*s[\r\n\t]*c[\r\n\t]*r[\r\n\t]*i[\r\n\t]*p[\r\n\t]*t[\r\n\t]*:/i;
/** Written as name="" when truthy. */
const BOOLEAN = new Set(['disabled', 'hidden', 'readOnly', 'required']);
/** Attributes whose names change. */
const RENAMED: Record<string, string> = { className: 'class', tabIndex: 'tabindex' };
/** Input and button props that involve React's form-action handling: not supported here. */
const FORM = new Set(['name', 'formAction', 'formEncType', 'formMethod', 'formTarget']);

const ESCAPE = /["'&<>]/;
export function escapeHtml(v: unknown): string {
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return '' + v;
  const s = '' + v;
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

function attribute(name: string, v: unknown): string {
  if (name.length > 2 && (name[0] === 'o' || name[0] === 'O') && (name[1] === 'n' || name[1] === 'N')) return ''; // handlers
  if (name === 'ref' || name === 'suppressHydrationWarning' || name === 'suppressContentEditableWarning') return '';
  const renamed = RENAMED[name];
  if (renamed !== undefined || name === 'role' || name === 'dir') {
    return invisible(v) || typeof v === 'boolean' ? '' : ` ${renamed ?? name}="${escapeHtml(v)}"`;
  }
  if (BOOLEAN.has(name)) return v && !invisible(v) ? ` ${name}=""` : '';
  const prefix = name.slice(0, 5).toLowerCase();
  if (prefix === 'aria-' || prefix === 'data-') {
    if (!/^[a-zA-Z][-a-zA-Z0-9_.:]*$/.test(name)) throw UNSUPPORTED;
    return invisible(v) ? '' : ` ${name}="${escapeHtml(v)}"`;
  }
  if (PLAIN.has(name)) return invisible(v) || typeof v === 'boolean' ? '' : ` ${name}="${escapeHtml(v)}"`;
  throw UNSUPPORTED;
}

class Writer {
  out = '';
  /** Whether the last thing written was text (React separates adjacent texts with <!-- -->). */
  text = false;

  node(n: unknown) {
    if (n == null || typeof n === 'boolean') return;
    if (typeof n === 'string' || typeof n === 'number' || typeof n === 'bigint') {
      const s = '' + n;
      if (s === '') return;
      if (this.text) this.out += '<!-- -->';
      this.out += escapeHtml(s);
      this.text = true;
      return;
    }
    if (Array.isArray(n)) {
      for (const c of n) this.node(c);
      return;
    }
    if (!isValidElement(n)) throw UNSUPPORTED;
    const props = n.props as Record<string, unknown>;
    if (n.type === Fragment) return this.node(props.children);
    if (typeof n.type !== 'string' || !GENERIC.has(n.type)) throw UNSUPPORTED;
    this.element(n.type, props);
  }

  element(tag: string, props: Record<string, unknown>) {
    let attrs = '';
    let children: unknown = null;
    let checked: unknown = null;
    let defaultChecked: unknown = null;
    let value: unknown = null;
    let defaultValue: unknown = null;
    const input = tag === 'input';
    for (const key in props) {
      if (!Object.prototype.hasOwnProperty.call(props, key)) continue;
      const v = props[key];
      if (v == null) continue;
      if (key === 'children') children = v;
      else if (key === 'dangerouslySetInnerHTML') throw UNSUPPORTED;
      else if (key === 'style') attrs += style(v);
      else if (key === 'href') {
        if (tag !== 'a' || JAVASCRIPT_URL.test('' + v)) throw UNSUPPORTED;
        if (!invisible(v) && typeof v !== 'boolean') attrs += ` href="${escapeHtml(v)}"`;
      }
      else if ((input || tag === 'button') && FORM.has(key)) throw UNSUPPORTED;
      else if (input && key === 'checked') checked = v;
      else if (input && key === 'defaultChecked') defaultChecked = v;
      else if (input && key === 'value') value = v;
      else if (input && key === 'defaultValue') defaultValue = v;
      else attrs += attribute(key, v);
    }
    if (input) {
      if (children != null) throw UNSUPPORTED;
      // After the other attributes, as React writes them.
      const on = checked !== null ? checked : defaultChecked;
      if (on && !invisible(on)) attrs += ' checked=""';
      const val = value !== null ? value : defaultValue;
      if (val !== null && !invisible(val)) attrs += ` value="${escapeHtml(val)}"`;
      this.out += `<input${attrs}/>`;
      this.text = false;
      return;
    }
    this.out += `<${tag}${attrs}>`;
    this.text = false;
    this.node(children);
    this.out += `</${tag}>`;
    this.text = false;
  }
}

/**
 * The HTML React's renderToString writes for `children` placed inside a host element, or null
 * when the subtree holds anything but plain host elements and text of the supported subset.
 */
export function hostMarkup(children: ReactNode): string | null {
  const w = new Writer();
  try {
    w.node(children);
  } catch (e) {
    if (e === UNSUPPORTED) return null;
    throw e;
  }
  return w.out;
}
