// Lock dialog (SPEC §2, §5): 锁屏密码不能为空; then /lock after 100 ms. Keeps only the hash.
import { useState } from 'react';
import { useTranslation } from '../../i18n/react';
import { Dialog, FormRow } from '../../components/ui/dialog';
import { lockPassword } from '../../lib/validators';
import { md5 } from '../../lib/md5';
import { store } from '../../lib/storage';

export function LockDialog({ open, onOpenChange, prefix }: { open: boolean; onOpenChange: (o: boolean) => void; prefix: string }) {
  const { t } = useTranslation();
  const [pw, setPw] = useState('');
  const [err, setErr] = useState<string | null>(null);
  const submit = () => {
    const m = lockPassword(pw);
    setErr(m);
    if (m) return;
    const s = store(prefix);
    s.set('lockPasswd', md5(pw), 'session');
    s.set('isLock', true, 'session');
    setPw('');
    setTimeout(() => window.location.assign('/lock'), 100);
  };
  return (
    <Dialog open={open} onOpenChange={onOpenChange} title={t('lock.title')} width={420}
      footer={<button className="btn btn-primary" onClick={submit}>{t('lock.submit')}</button>}>
      <form onSubmit={(e) => { e.preventDefault(); submit(); }}>
        <FormRow label={t('lock.password')} htmlFor="lock-pw" error={err && t(err)} required>
          <input id="lock-pw" type="password" value={pw} onChange={(e) => setPw(e.target.value)} onBlur={() => setErr(lockPassword(pw))} placeholder={t('lock.placeholder')} />
        </FormRow>
        <p className="muted form-hint">{t('lock.hint')}</p>
      </form>
    </Dialog>
  );
}
