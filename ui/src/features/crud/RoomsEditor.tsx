// 房间尺寸 of a measure (`ui.control: "rooms"`): a table of rooms — name, length, width and height in millimetres —
// with each room's floor area, rows added and removed, instead of the raw JSON the form showed
// (`[{"roomName":"一层大堂","length":11000,…}]`). The server checks and computes again (scm/site.rs).
import { useApp } from '../../app';

export type Room = { roomName: string; length: string | number; width: string | number; height: string | number };

/** The rooms of a stored value: an array, or its JSON text; anything else is no rooms. */
export function roomsOf(v: unknown): Room[] {
  let x = v;
  if (typeof x === 'string') {
    try { x = x.trim() ? JSON.parse(x) : []; } catch { x = []; }
  }
  if (!Array.isArray(x)) return [];
  return x.filter((r) => r && typeof r === 'object').map((r: any) => ({ roomName: String(r.roomName ?? ''), length: r.length ?? '', width: r.width ?? '', height: r.height ?? '' }));
}

/** Floor area in ㎡ of a room typed in millimetres, two places; '' until both sides are whole numbers. */
export function roomArea(r: Room): string {
  const [l, w] = [Number(r.length), Number(r.width)];
  if (!Number.isInteger(l) || !Number.isInteger(w) || l <= 0 || w <= 0) return '';
  return ((l * w) / 1_000_000).toFixed(2);
}

export function RoomsEditor({ id, value, disabled, onChange }: { id?: string; value: unknown; disabled?: boolean; onChange: (rooms: Room[]) => void }) {
  const { props } = useApp();
  const en = props.locale === 'en';
  const L = (zh: string, e: string) => (en ? e : zh);
  const rooms = roomsOf(value);
  const set = (i: number, k: keyof Room, v: string) => onChange(rooms.map((r, j) => (j === i ? { ...r, [k]: k === 'roomName' ? v : v.replace(/\D/g, '') } : r)));
  const total = rooms.reduce((s, r) => s + (Number(roomArea(r)) || 0), 0);
  const sides = [['length', '长', 'length'], ['width', '宽', 'width'], ['height', '高', 'height']] as const;
  return (
    <div className="rooms-editor" id={id}>
      <table className="mini-table" aria-label={L('房间尺寸', 'Rooms')}>
        <thead>
          <tr><th>{L('房间', 'Room')}</th><th>{L('长(mm)', 'Length (mm)')}</th><th>{L('宽(mm)', 'Width (mm)')}</th><th>{L('高(mm)', 'Height (mm)')}</th><th>{L('面积(㎡)', 'Area (㎡)')}</th>{!disabled && <th />}</tr>
        </thead>
        <tbody>
          {rooms.length === 0 && <tr><td colSpan={disabled ? 5 : 6} className="muted">{L('暂无房间', 'No rooms')}</td></tr>}
          {rooms.map((r, i) => (
            <tr key={i}>
              <td><input aria-label={L(`第 ${i + 1} 个房间名称`, `Room ${i + 1} name`)} value={r.roomName} maxLength={32} readOnly={disabled} onChange={(e) => set(i, 'roomName', e.target.value)} /></td>
              {sides.map(([k, zh, e]) => (
                <td key={k}><input inputMode="numeric" aria-label={L(`第 ${i + 1} 个房间${zh}(mm)`, `Room ${i + 1} ${e} (mm)`)} value={String(r[k] ?? '')} readOnly={disabled} onChange={(x) => set(i, k, x.target.value)} /></td>
              ))}
              <td className="num">{roomArea(r) || '—'}</td>
              {!disabled && <td><button type="button" className="link danger" onClick={() => onChange(rooms.filter((_, j) => j !== i))}>{L('删除', 'Remove')}</button></td>}
            </tr>
          ))}
        </tbody>
      </table>
      <p>
        {!disabled && rooms.length < 200 && <><button type="button" className="btn" onClick={() => onChange([...rooms, { roomName: '', length: '', width: '', height: '' }])}>{L('添加房间', 'Add a room')}</button>{' '}</>}
        <span className="muted">{L(`共 ${rooms.length} 间,地面面积约 ${total.toFixed(2)} ㎡${disabled ? '' : '(以保存结果为准)'}`, `${rooms.length} rooms, about ${total.toFixed(2)} ㎡ of floor${disabled ? '' : ' (the saved figure is exact)'}`)}</span>
      </p>
    </div>
  );
}
