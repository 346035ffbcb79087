// A host element whose children are plain host elements and text (table bodies, menu lists).
// On the server the children are written by lib/markup (the same HTML as React's renderer,
// ~100× cheaper in QuickJS); in the browser React renders and hydrates them as usual, so
// handlers and state work unchanged. Children outside markup's subset render through React.
import { createElement, type ReactNode } from 'react';
import { hostMarkup } from '../../lib/markup';

const onServer = typeof document === 'undefined';

export function Host({ tag, children, ...rest }: { tag: string; children?: ReactNode } & Record<string, unknown>) {
  if (onServer) {
    const html = hostMarkup(children);
    if (html !== null) return createElement(tag, { ...rest, dangerouslySetInnerHTML: { __html: html } });
  }
  return createElement(tag, rest, children);
}
