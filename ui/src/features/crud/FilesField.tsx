// Files a record names by their links (`ui.control: "files"`: a document's 文件, a rectification's 照片, a work
// order's 附件): uploaded here (put-file), listed by their names, each removable; the value stays the links,
// comma-separated, as the server takes and checks them (`engine::attachments`). Shown read-only as links.
import { useState } from 'react';
import { upload, errText } from '../../lib/api';
import { useL } from '../../lib/words';
import { FileButton } from '../../components/ui/file';
import { IconClip } from '../../components/ui/icons';

const PUT_FILE = '/api/blade-resource/oss/endpoint/put-file';
/** As the server takes them on one field. */
const MAX_FILES = 10;

export type NamedFile = { link: string; name: string };

/** The files of a value: its links beside the names the server kept (a JSON array in `names`), else 附件 N. */
export function filesOf(links: unknown, names: unknown, L: (zh: string, en: string) => string): NamedFile[] {
  const list = String(links ?? '').split(',').map((l) => l.trim()).filter(Boolean);
  let n: unknown = [];
  try { n = typeof names === 'string' ? JSON.parse(names || '[]') : names ?? []; } catch { n = []; }
  return list.map((link, i) => ({ link, name: (Array.isArray(n) && typeof n[i] === 'string' && n[i]) || L(`附件 ${i + 1}`, `File ${i + 1}`) }));
}

/** Only links of this server's files are links (anything else, an old free-text value, is shown as text). */
const ours = (link: string) => /^\/files\/[^/]+\/[0-9a-f]{32}$/.test(link);

export function FileLinks({ files }: { files: NamedFile[] }) {
  const { L } = useL();
  if (files.length === 0) return <span className="muted">—</span>;
  return (
    <ul className="attachments" aria-label={L('附件', 'Attachments')}>
      {files.map((f) => <li key={f.link}>{ours(f.link) ? <a href={f.link} target="_blank" rel="noopener noreferrer"><IconClip /> {f.name}</a> : <span>{f.link}</span>}</li>)}
    </ul>
  );
}

export function FilesField({ id, value, names, disabled, label, onBusy, onChange }: { id: string; value: string; names: unknown; disabled?: boolean; label?: string; onBusy?: (busy: boolean) => void; onChange: (links: string) => void }) {
  const { L } = useL();
  const [added, setAdded] = useState<Record<string, string>>({});
  const [busy, setBusyState] = useState(false);
  const setBusy = (b: boolean) => { setBusyState(b); onBusy?.(b); };
  const pick = label ?? L('上传文件', 'Upload files');
  const [err, setErr] = useState<string | null>(null);
  const files = filesOf(value, names, L).map((f) => ({ ...f, name: added[f.link] ?? f.name }));
  if (disabled) return <FileLinks files={files} />;
  const put = async (picked: File[]) => {
    setBusy(true);
    setErr(null);
    const links = files.map((f) => f.link);
    const named: Record<string, string> = {};
    for (const f of picked.slice(0, MAX_FILES - links.length)) {
      try {
        const d = await upload<{ link: string; originalName?: string }>(PUT_FILE, f);
        links.push(d.link);
        named[d.link] = d.originalName ?? f.name;
      } catch (e) { setErr(`${f.name}: ${errText(e)}`); }
    }
    setAdded((a) => ({ ...a, ...named }));
    setBusy(false);
    onChange(links.join(','));
  };
  return (
    <div className="files-field" id={id}>
      {files.length > 0 && (
        <ul className="attachments" aria-label={L('附件', 'Attachments')}>
          {files.map((f) => (
            <li key={f.link}>
              {ours(f.link) ? <a href={f.link} target="_blank" rel="noopener noreferrer"><IconClip /> {f.name}</a> : <span>{f.link}</span>}
              <button type="button" className="btn btn-small" aria-label={L(`移除 ${f.name}`, `Remove ${f.name}`)} onClick={() => onChange(files.filter((x) => x.link !== f.link).map((x) => x.link).join(','))}>×</button>
            </li>
          ))}
        </ul>
      )}
      {files.length < MAX_FILES && <FileButton label={pick} busy={busy} multiple onFiles={(fs) => void put(fs)}>{busy ? L('上传中…', 'Uploading…') : pick}</FileButton>}
      {err && <div className="form-err" role="alert">{err}</div>}
    </div>
  );
}
