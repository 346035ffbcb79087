// Error log (SPEC §2, §5, §8): the header button with its badge (caps at 99) and the dialog
// listing the local log (type, address, content, stack, time), with upload to the server and
// clearing, both confirmed first. The count is read after hydration (browser storage).
import { useEffect, useState } from 'react';
import { useTranslation } from '../../i18n/react';
import { Confirm, Dialog } from '../../components/ui/dialog';
import { useToast } from '../../components/ui/toast';
import { IconBug } from '../../components/ui/icons';
import { badgeText, clearLogs, readLogs, type LogEntry } from '../../lib/errorlog';
import { post, ApiError } from '../../lib/api';

export function ErrorLog({ prefix }: { prefix: string }) {
  const { t } = useTranslation();
  const toast = useToast();
  const [logs, setLogs] = useState<LogEntry[]>([]);
  const [open, setOpen] = useState(false);
  const [ask, setAsk] = useState<'upload' | 'clear' | null>(null);

  useEffect(() => {
    const load = () => setLogs(readLogs(prefix));
    load();
    window.addEventListener('zz-logs', load);
    window.addEventListener('storage', load);
    return () => { window.removeEventListener('zz-logs', load); window.removeEventListener('storage', load); };
  }, [prefix]);

  const upload = async () => {
    try {
      await post('/api/blade-log/error/upload', logs);
      toast(t('log.sent'));
    } catch (e) {
      toast(e instanceof ApiError ? t(e.message) : t('err.unknown'), 'error');
    }
  };
  const clear = () => {
    clearLogs(prefix);
    setOpen(false);
    toast(t('log.cleared'));
  };
  const badge = badgeText(logs.length);

  return (
    <>
      <button type="button" className="icon-btn has-badge" aria-label={t('top.log')} title={t('top.log')} onClick={() => setOpen(true)}>
        <IconBug />
        {badge && <span className="badge" aria-label={t('log.count', { n: logs.length })}>{badge}</span>}
      </button>
      <Dialog open={open} onOpenChange={setOpen} title={t('log.title')} width={1000}
        footer={<>
          <button type="button" className="btn btn-primary" disabled={!logs.length} onClick={() => setAsk('upload')}>{t('log.upload')}</button>
          <button type="button" className="btn btn-danger" disabled={!logs.length} onClick={() => setAsk('clear')}>{t('log.clear')}</button>
        </>}>
        <div className="table-wrap">
          <table className="table log-table">
            <thead><tr>
              <th scope="col">{t('log.type')}</th><th scope="col">{t('log.url')}</th><th scope="col">{t('log.message')}</th>
              <th scope="col">{t('log.stack')}</th><th scope="col">{t('log.time')}</th>
            </tr></thead>
            <tbody>
              {logs.length === 0 && <tr><td colSpan={5} className="empty">{t('common.empty')}</td></tr>}
              {logs.map((l, i) => (
                <tr key={i}>
                  <td>{l.type}</td><td className="log-url">{l.url}</td><td>{l.message}</td>
                  <td><pre className="log-stack">{l.stack}</pre></td><td className="nowrap">{l.time}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </Dialog>
      <Confirm open={ask !== null} onOpenChange={(o) => { if (!o) setAsk(null); }}
        text={t(ask === 'clear' ? 'log.clearConfirm' : 'log.uploadConfirm')}
        onConfirm={() => { const a = ask; setAsk(null); if (a === 'clear') clear(); else void upload(); }} />
    </>
  );
}
