// The process diagram, drawn as SVG from the definition (no image from the server): start and end circles,
// task boxes, gateway diamonds, flows with their names or conditions. With an instance: the path taken is green,
// the current steps orange. Nodes without a drawn position are laid out in columns by their distance from the
// start. Problems from the checks (by node) are drawn as a red outline with the message as the node's title.
export type FlowNode = { id: string; name?: string; type: string; x?: number; y?: number; assign?: any; mode?: string; quorum?: number; rejectTo?: string; default?: string; dueHours?: number; rejected?: boolean };
export type FlowEdge = { id: string; from: string; to: string; name?: string; condition?: string };
export type Definition = { variables?: { name: string; label?: string; type: string; required?: boolean }[]; nodes: FlowNode[]; flows: FlowEdge[] };

const W = 120;
const H = 44;

/** Positions: the drawn ones, else columns by breadth-first distance from the start. */
export function layout(def: Definition): Record<string, { x: number; y: number }> {
  const pos: Record<string, { x: number; y: number }> = {};
  const depth: Record<string, number> = {};
  const start = def.nodes.find((n) => n.type === 'start');
  const queue: string[] = start ? [start.id] : [];
  if (start) depth[start.id] = 0;
  while (queue.length) {
    const id = queue.shift()!;
    for (const f of def.flows.filter((f) => f.from === id)) {
      if (depth[f.to] === undefined) {
        depth[f.to] = depth[id] + 1;
        queue.push(f.to);
      }
    }
  }
  const rows: Record<number, number> = {};
  for (const n of def.nodes) {
    if (typeof n.x === 'number' && typeof n.y === 'number') {
      pos[n.id] = { x: n.x, y: n.y };
      continue;
    }
    const d = depth[n.id] ?? Object.keys(depth).length;
    const r = rows[d] ?? 0;
    rows[d] = r + 1;
    pos[n.id] = { x: 40 + d * 170, y: 60 + r * 100 };
  }
  return pos;
}

/** A step's way back when it is rejected (`rejectTo`: a leave's 调整申请), drawn dashed: without it the step it
 * goes back to looked unreachable. */
export function rejectEdges(def: Definition): (FlowEdge & { reject: true })[] {
  return def.nodes.filter((n) => n.type === 'task' && n.rejectTo && def.nodes.some((m) => m.id === n.rejectTo))
    .map((n) => ({ id: `reject-${n.id}`, from: n.id, to: n.rejectTo!, name: '驳回', reject: true as const }));
}

function edgeLabel(f: FlowEdge): string {
  const t = f.name || f.condition || '';
  return t.length > 18 ? t.slice(0, 17) + '…' : t;
}

export function Diagram({ def, path = [], current = [], problems = {}, selected, onSelect, label }: {
  def: Definition; path?: string[]; current?: string[]; problems?: Record<string, string>; selected?: string | null; onSelect?: (id: string) => void; label: string;
}) {
  if (!def?.nodes?.length) return <p className="muted">—</p>;
  const pos = layout(def);
  const taken = new Set(path);
  const now = new Set(current);
  const xs = Object.values(pos);
  const width = Math.max(...xs.map((p) => p.x)) + W + 60;
  const height = Math.max(...xs.map((p) => p.y)) + H + 60;
  const centre = (id: string) => {
    const p = pos[id] ?? { x: 0, y: 0 };
    return { x: p.x + W / 2, y: p.y + H / 2 };
  };
  // Whether a flow was taken: both ends on the path, in order somewhere.
  const flowTaken = (f: FlowEdge) => path.some((n, i) => n === f.from && path[i + 1] === f.to);
  return (
    <svg className="flow-diagram" role="img" aria-label={label} viewBox={`0 0 ${width} ${height}`} width={width} height={height}>
      <defs>
        <marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="#909399" /></marker>
        <marker id="arrow-on" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="#67c23a" /></marker>
      </defs>
      {[...def.flows, ...rejectEdges(def)].map((f) => {
        const back = 'reject' in f;
        // A way back runs beside the flow it may share its ends with (调整申请 → 部门领导审批 and back).
        const [a0, b0] = [centre(f.from), centre(f.to)];
        const l0 = Math.hypot(b0.x - a0.x, b0.y - a0.y) || 1;
        const [nx, ny] = back ? [-((b0.y - a0.y) / l0) * 7, ((b0.x - a0.x) / l0) * 7] : [0, 0];
        const a = { x: a0.x + nx, y: a0.y + ny };
        const b = { x: b0.x + nx, y: b0.y + ny };
        if (!pos[f.from] || !pos[f.to]) return null;
        // End the line at the target's border (boxes: clip on the rectangle; others: a radius).
        const dx = b.x - a.x;
        const dy = b.y - a.y;
        const len = Math.hypot(dx, dy) || 1;
        const target = def.nodes.find((n) => n.id === f.to);
        const r = target?.type === 'task' ? Math.min(Math.abs((W / 2) / (dx / len || 1e-9)), Math.abs((H / 2) / (dy / len || 1e-9))) : 24;
        const ex = b.x - (dx / len) * (r + 2);
        const ey = b.y - (dy / len) * (r + 2);
        const on = !back && flowTaken(f);
        const lab = edgeLabel(f);
        return (
          <g key={f.id} className={'flow-edge' + (on ? ' taken' : '') + (back ? ' reject' : '') + (problems[f.id] ? ' bad' : '')}>
            <line x1={a.x} y1={a.y} x2={ex} y2={ey} stroke={problems[f.id] ? '#f56c6c' : on ? '#67c23a' : back ? '#e6a23c' : '#909399'} strokeWidth={on ? 2.5 : 1.5}
              strokeDasharray={back ? '5 4' : undefined} markerEnd={on ? 'url(#arrow-on)' : 'url(#arrow)'}>
              {problems[f.id] && <title>{problems[f.id]}</title>}
            </line>
            {lab && <text x={(a.x + ex) / 2} y={(a.y + ey) / 2 - 6} textAnchor="middle" className="flow-edge-label">{lab}</text>}
          </g>
        );
      })}
      {def.nodes.map((n) => {
        const p = pos[n.id];
        const c = centre(n.id);
        const cls = 'flow-node ' + n.type + (now.has(n.id) ? ' current' : taken.has(n.id) ? ' taken' : '') + (problems[n.id] ? ' bad' : '') + (selected === n.id ? ' selected' : '');
        const name = n.name || n.id;
        const click = onSelect ? () => onSelect(n.id) : undefined;
        const title = problems[n.id] ? `${name}: ${problems[n.id]}` : name;
        let shape;
        if (n.type === 'start' || n.type === 'end') {
          shape = <circle cx={c.x} cy={c.y} r={22} strokeWidth={n.type === 'end' ? 4 : 2} />;
        } else if (n.type === 'exclusive' || n.type === 'parallel') {
          shape = (
            <>
              <polygon points={`${c.x},${c.y - 26} ${c.x + 26},${c.y} ${c.x},${c.y + 26} ${c.x - 26},${c.y}`} strokeWidth={2} />
              <text x={c.x} y={c.y + 5} textAnchor="middle" className="flow-gw-mark">{n.type === 'parallel' ? '+' : '×'}</text>
            </>
          );
        } else {
          shape = <rect x={p.x} y={p.y} width={W} height={H} rx={8} strokeWidth={2} />;
        }
        const labelY = n.type === 'task' ? c.y + 5 : c.y + 42;
        return (
          <g key={n.id} className={cls} onClick={click} role={onSelect ? 'button' : undefined} tabIndex={onSelect ? 0 : undefined} data-node={n.id}
            onKeyDown={onSelect ? (e) => { if (e.key === 'Enter') onSelect(n.id); } : undefined}>
            <title>{title}</title>
            {shape}
            <text x={c.x} y={labelY} textAnchor="middle" className="flow-node-label">{name.length > 9 ? name.slice(0, 8) + '…' : name}</text>
          </g>
        );
      })}
    </svg>
  );
}
