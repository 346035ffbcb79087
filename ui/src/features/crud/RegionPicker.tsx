// The cascading 省 / 市 / 区 picker of every region field (`ui.control: "region"`): three selects over the region
// table, each level loaded when its parent is chosen, and a search box (names and pinyin, initials too: "gl"
// finds 鼓楼区) whose matches show their whole path. The form keeps the deepest chosen code.
import { useEffect, useState } from 'react';
import { get } from '../../lib/api';
import { useL } from '../../lib/words';

const PICK = '/api/blade-system/region/pick';
type Node = { code: string; name: string; hasChildren?: boolean };
type Path = { code: string; name: string; title: string; path: { code: string; name: string }[] };

function useLevel(parent: string | null) {
  const [rows, setRows] = useState<Node[]>([]);
  useEffect(() => {
    if (parent === null) { setRows([]); return; }
    let live = true;
    get<Node[]>(PICK, { parentCode: parent }).then((r) => live && setRows(r ?? []), () => live && setRows([]));
    return () => { live = false; };
  }, [parent]);
  return rows;
}

export function RegionPicker({ id, value, disabled, onChange }: { id: string; value: string; disabled?: boolean; onChange: (code: string) => void }) {
  const { L } = useL();
  // The chosen codes per level, from the value's path.
  const [chosen, setChosen] = useState<string[]>([]);
  const [title, setTitle] = useState('');
  useEffect(() => {
    if (!value) { setChosen([]); setTitle(''); return; }
    if (chosen[chosen.length - 1] === value) return;
    get<Path | null>(PICK, { code: value }).then((p) => {
      if (p) { setChosen(p.path.map((x) => x.code)); setTitle(p.title); } else { setTitle(value); }
    }, () => setTitle(value));
  }, [value]);
  const provinces = useLevel('00');
  const cities = useLevel(chosen[0] ?? null);
  const districts = useLevel(chosen[1] ?? null);
  const [keyword, setKeyword] = useState('');
  const [hits, setHits] = useState<Path[]>([]);
  useEffect(() => {
    const k = keyword.trim();
    if (!k) { setHits([]); return; }
    const timer = setTimeout(() => { get<Path[]>(PICK, { keyword: k }).then((r) => setHits(r ?? []), () => setHits([])); }, 200);
    return () => clearTimeout(timer);
  }, [keyword]);
  const pick = (codes: string[], names?: string) => {
    setChosen(codes);
    if (names !== undefined) setTitle(names);
    onChange(codes[codes.length - 1] ?? '');
  };
  const nameOf = (rows: Node[], code?: string) => rows.find((r) => r.code === code)?.name ?? '';
  const choose = (level: number, code: string) => {
    const codes = [...chosen.slice(0, level), ...(code ? [code] : [])];
    const names = [nameOf(provinces, codes[0]), nameOf(cities, codes[1]), nameOf(districts, codes[2])].slice(0, codes.length).filter(Boolean).join(' / ');
    pick(codes, names);
  };
  if (disabled) return <input id={id} value={title || value} readOnly />;
  const select = (level: number, rows: Node[], label: string) => (
    <select aria-label={label} value={chosen[level] ?? ''} disabled={level > 0 && !chosen[level - 1]} onChange={(e) => choose(level, e.target.value)}>
      <option value="">{label}</option>
      {rows.map((r) => <option key={r.code} value={r.code}>{r.name}</option>)}
    </select>
  );
  return (
    <div className="region-picker">
      <div className="region-levels">
        {select(0, provinces, L('省', 'Province'))}
        {select(1, cities, L('市', 'City'))}
        {select(2, districts, L('区/县', 'District'))}
      </div>
      <div className="ref-picker">
        <input id={id} autoComplete="off" placeholder={L('搜索地区:名称或拼音,如 gulou', 'Search: name or pinyin, e.g. gulou')} value={keyword} onChange={(e) => setKeyword(e.target.value)} />
        {hits.length > 0 && (
          <ul className="ref-options" role="listbox">
            {hits.map((h) => (
              <li key={h.code} role="option" aria-selected={h.code === value} onMouseDown={(e) => { e.preventDefault(); pick(h.path.map((x) => x.code), h.title); setKeyword(''); }}>
                {h.title}<span className="muted"> {h.code}</span>
              </li>
            ))}
          </ul>
        )}
      </div>
      {title && <span className="muted small">{title}</span>}
    </div>
  );
}
