// Toasts over Radix Toast: useToast()(message, kind).
import * as T from '@radix-ui/react-toast';
import { createContext, useCallback, useContext, useState, type ReactNode } from 'react';

type Kind = 'success' | 'warning' | 'error' | 'info';
type Item = { id: number; text: string; kind: Kind };
const Ctx = createContext<(text: string, kind?: Kind) => void>(() => {});
export const useToast = () => useContext(Ctx);

export function ToastProvider({ children }: { children: ReactNode }) {
  const [items, setItems] = useState<Item[]>([]);
  const show = useCallback((text: string, kind: Kind = 'success') => {
    setItems((xs) => [...xs, { id: (xs.at(-1)?.id ?? 0) + 1, text, kind }]);
  }, []);
  return (
    <Ctx.Provider value={show}>
      <T.Provider duration={3000}>
        {children}
        {items.map((it) => (
          <T.Root key={it.id} className={`toast toast-${it.kind}`} onOpenChange={(o) => { if (!o) setItems((xs) => xs.filter((x) => x.id !== it.id)); }}>
            <T.Title>{it.text}</T.Title>
          </T.Root>
        ))}
        <T.Viewport className="toast-viewport" />
      </T.Provider>
    </Ctx.Provider>
  );
}
