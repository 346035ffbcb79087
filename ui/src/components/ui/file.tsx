// A button that picks files: a real <button> (focusable, announced as a button, Enter and Space press it) that opens
// the browser's file chooser of a hidden input. A <label class="btn"> around a hidden input looked the same but
// could not be reached with the keyboard and was no button to a screen reader.
import { useRef, type ReactNode } from 'react';

export function FileButton(p: { label: string; children?: ReactNode; className?: string; busy?: boolean; multiple?: boolean; accept?: string; onFiles: (files: File[]) => void }) {
  const input = useRef<HTMLInputElement>(null);
  return (
    <>
      <button type="button" className={p.className ?? 'btn'} aria-busy={p.busy || undefined} disabled={p.busy} onClick={() => input.current?.click()}>{p.children ?? p.label}</button>
      <input ref={input} type="file" hidden tabIndex={-1} multiple={p.multiple} accept={p.accept} aria-label={p.label} disabled={p.busy}
        onChange={(e) => {
          const files = Array.from(e.target.files ?? []);
          e.target.value = '';
          if (files.length) p.onFiles(files);
        }} />
    </>
  );
}
