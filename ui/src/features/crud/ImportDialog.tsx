// The Excel import dialog shared by the user screen and the generic list screens: choose a file, choose whether
// rows naming an existing record overwrite it, download the template; the result (added, updated, skipped) or
// the server's refusal (which names the row) is shown in the dialog.
import { useState } from 'react';
import { useTranslation } from '../../i18n/react';
import { Dialog } from '../../components/ui/dialog';
import { useToast } from '../../components/ui/toast';
import { download, errText, importFile } from '../../lib/api';

export type ImportResult = { inserted: number; updated: number; skipped: number };

export function ImportDialog({ title, url, template, templateName, onClose, onDone }: {
  title: string; url: string; template: string; templateName: string; onClose: () => void; onDone: (r: ImportResult) => void;
}) {
  const { t } = useTranslation();
  const toast = useToast();
  const [file, setFile] = useState<File | null>(null);
  const [covered, setCovered] = useState(false);
  const [busy, setBusy] = useState(false);
  const [err, setErr] = useState('');
  const send = async () => {
    if (!file) return toast(t('adm.importChoose'), 'warning');
    setBusy(true);
    setErr('');
    try {
      const r = await importFile<ImportResult>(url, file, { isCovered: covered ? 1 : 0 });
      toast(t('adm.importedCounts', { inserted: r?.inserted ?? 0, updated: r?.updated ?? 0, skipped: r?.skipped ?? 0 }));
      onDone(r);
    } catch (e) {
      setErr(t(errText(e)));
    } finally {
      setBusy(false);
    }
  };
  const getTemplate = () => download(template, templateName).catch((e) => toast(t(errText(e)), 'error'));
  return (
    <Dialog open onOpenChange={(o) => { if (!o && !busy) onClose(); }} title={title} width={560}
      footer={<><button type="button" className="btn" onClick={onClose} disabled={busy}>{t('common.cancel')}</button><button type="button" className="btn btn-primary" disabled={busy} onClick={send}>{busy ? t('adm.importing') : t('adm.import')}</button></>}>
      <div className="form-row"><label htmlFor="imp-file">{t('adm.importFile')}</label><div className="form-ctl"><input id="imp-file" type="file" accept=".xlsx" onChange={(e) => setFile(e.target.files?.[0] ?? null)} /></div></div>
      <div className="form-row"><label htmlFor="imp-cover">{t('adm.importCover')}</label><div className="form-ctl"><label className="inline"><input id="imp-cover" type="checkbox" checked={covered} onChange={(e) => setCovered(e.target.checked)} />{covered ? t('common.yes') : t('common.no')}</label></div></div>
      <div className="form-row"><label>{t('adm.importTemplate')}</label><div className="form-ctl"><button type="button" className="link" style={{ alignSelf: 'flex-start' }} onClick={getTemplate}>{t('adm.templateDownload')}</button></div></div>
      <p className="muted">{t('adm.importNote')}</p>
      {err && <div className="form-err" role="alert">{err}</div>}
    </Dialog>
  );
}
