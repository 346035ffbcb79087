// A host element whose children are plain host elements and text (table bodies, menu lists, map shapes).
// On the server the children are written by lib/markup (the same HTML as React's renderer,
// about a quarter of the cost in QuickJS); in the browser React renders and hydrates them as usual, so
// handlers and state work unchanged. Children outside markup's subset render through React.
import { createElement, type ReactNode } from 'react';
import { hostMarkup } from '../../lib/markup';

/**
 * `markup`: whether Host writes its children through lib/markup (on the server; tests switch it off to
 * compare). `fallbacks`: how many times children outside markup's subset went to React instead.
 */
export const hostOptions = { markup: typeof document === 'undefined', fallbacks: 0 };

export function Host({ tag, children, ...rest }: { tag: string; children?: ReactNode } & Record<string, unknown>) {
  if (hostOptions.markup) {
    const html = hostMarkup(children, tag === 'svg');
    if (html !== null) return createElement(tag, { ...rest, dangerouslySetInnerHTML: { __html: html } });
    hostOptions.fallbacks++;
  }
  return createElement(tag, rest, children);
}
