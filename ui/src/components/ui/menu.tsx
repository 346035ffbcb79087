// Radix dropdown and context menus that cost nothing until first used. Each Radix menu root and
// trigger is a deep tree of providers, scopes and refs: with three on every page that was about
// a third of an SSR render. Until the user first presses the trigger (or right-clicks the area)
// a plain element with the same markup is rendered, on the server and in the hydrating render
// alike (the state depends on nothing but interaction); the first press swaps in the Radix menu,
// already open.
import * as CM from '@radix-ui/react-context-menu';
import * as DM from '@radix-ui/react-dropdown-menu';
import { cloneElement, useEffect, useRef, useState, type MouseEvent as ReactMouseEvent, type PointerEvent as ReactPointerEvent, type ReactElement, type ReactNode } from 'react';

export function Dropdown(p: { className: string; label?: string; trigger: ReactNode; align?: 'start' | 'center' | 'end'; children: ReactNode }) {
  const [live, setLive] = useState(false);
  if (!live) {
    return (
      <button type="button" className={p.className} aria-label={p.label} aria-haspopup="menu" aria-expanded={false} data-state="closed"
        onPointerDown={(e) => { if (e.button === 0 && !e.ctrlKey) { e.preventDefault(); setLive(true); } }}
        onKeyDown={(e) => { if (e.key === 'Enter' || e.key === ' ' || e.key === 'ArrowDown') { e.preventDefault(); setLive(true); } }}>
        {p.trigger}
      </button>
    );
  }
  return (
    <DM.Root defaultOpen>
      <DM.Trigger className={p.className} aria-label={p.label}>{p.trigger}</DM.Trigger>
      <DM.Portal><DM.Content className="menu" align={p.align}>{p.children}</DM.Content></DM.Portal>
    </DM.Root>
  );
}

const TOUCH_STYLE = { WebkitTouchCallout: 'none' } as const;

/** `area` is the element the menu belongs to (rendered as the Radix trigger with asChild once live). */
export function ContextMenu(p: { area: ReactElement<any>; children: ReactNode }) {
  const [at, setAt] = useState<{ x: number; y: number } | null>(null);
  const ref = useRef<HTMLElement>(null);
  useEffect(() => {
    // Replays the right-click that made the menu live, so Radix opens it where the user clicked.
    if (at && ref.current) ref.current.dispatchEvent(new MouseEvent('contextmenu', { bubbles: true, cancelable: true, clientX: at.x, clientY: at.y, button: 2 }));
  }, [at]);
  const press = useRef(0);
  if (!at) {
    const cancel = () => window.clearTimeout(press.current);
    return cloneElement(p.area, {
      'data-state': 'closed',
      style: TOUCH_STYLE,
      onContextMenu: (e: ReactMouseEvent) => { cancel(); e.preventDefault(); setAt({ x: e.clientX, y: e.clientY }); },
      // Touch long-press, as Radix does it (700 ms).
      onPointerDown: (e: ReactPointerEvent) => {
        if (e.pointerType === 'mouse') return;
        cancel();
        const { clientX: x, clientY: y } = e;
        press.current = window.setTimeout(() => setAt({ x, y }), 700);
      },
      onPointerMove: (e: ReactPointerEvent) => { if (e.pointerType !== 'mouse') cancel(); },
      onPointerCancel: (e: ReactPointerEvent) => { if (e.pointerType !== 'mouse') cancel(); },
      onPointerUp: (e: ReactPointerEvent) => { if (e.pointerType !== 'mouse') cancel(); },
    });
  }
  return (
    <CM.Root>
      <CM.Trigger asChild ref={ref as any}>{p.area}</CM.Trigger>
      <CM.Portal><CM.Content className="menu">{p.children}</CM.Content></CM.Portal>
    </CM.Root>
  );
}
