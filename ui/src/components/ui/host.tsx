// A host element whose children are plain host elements and text (table bodies, menu lists, map shapes).
// On the server the children are written by lib/markup (the same HTML as the renderer's, at a fraction of its
// cost in QuickJS); in the browser they render and hydrate as usual, so handlers and state work unchanged.
// Children outside markup's subset go through the renderer.
import { createElement, type ReactNode } from 'react';
import { hostMarkup } from '../../lib/markup';

/**
 * `markup`: whether Host writes its children through lib/markup (on the server; tests switch it off to
 * compare). `fallbacks`: how many times children outside markup's subset went to the renderer instead.
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
