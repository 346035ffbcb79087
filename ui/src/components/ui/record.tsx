// A record's facts (a definition list) and a plain table of rows with an empty-state line: the detail pages of
// every area build on these.
import type { ReactNode } from 'react';

type Row = Record<string, any>;

export function Table({ cols, rows, empty, label }: { cols: [string, (r: Row) => ReactNode][]; rows: Row[]; empty: string; label: string }) {
  return (
    <div className="table-wrap">
      <table className="table rec" aria-label={label}>
        <thead><tr>{cols.map(([h]) => <th key={h} scope="col">{h}</th>)}</tr></thead>
        <tbody>
          {rows.length === 0 && <tr><td colSpan={cols.length} className="empty">{empty}</td></tr>}
          {rows.map((r) => <tr key={String(r.id)}>{cols.map(([h, f]) => <td key={h} data-label={h}>{f(r)}</td>)}</tr>)}
        </tbody>
      </table>
    </div>
  );
}

/** Label–value pairs in columns; a pair marked 'wide' (a reason, a remark) takes a whole line instead of a
 * narrow column. */
export function Facts({ rows }: { rows: ([string, ReactNode] | [string, ReactNode, 'wide'])[] }) {
  return <dl className="facts">{rows.map(([k, v, wide]) => <div key={k} className={wide ? 'wide' : undefined}><dt>{k}</dt><dd>{v || '—'}</dd></div>)}</dl>;
}

