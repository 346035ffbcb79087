// /lock: the session stays signed in but hidden until a password is given again: the lock password set in the
// lock dialog (SPEC §2: its hash in session storage), or the account's own, asked of the server (POST
// /api/blade-user/check-password with the MD5, as at sign-in); the browser never keeps the clear text.
import { useState } from 'react';
import { useTranslation } from '../../i18n/react';
import { useApp } from '../../app';
import { store } from '../../lib/storage';
import { lockPassword } from '../../lib/validators';
import { checkPassword, logout } from '../../lib/auth';
import { md5 } from '../../lib/md5';

export function LockPage() {
  const { t } = useTranslation();
  const { props } = useApp();
  const [pw, setPw] = useState('');
  const [err, setErr] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function unlock() {
    const m = lockPassword(pw);
    if (m) return setErr(m);
    const s = store(props.site.storagePrefix);
    setBusy(true);
    let ok = s.get<string>('lockPasswd') === md5(pw);
    try {
      if (!ok) ok = await checkPassword(props.tenant.id, pw);
    } catch {
      setBusy(false);
      return setErr('err.network');
    }
    setBusy(false);
    if (!ok) return setErr('lock.wrong');
    s.remove('isLock');
    s.remove('lockPasswd');
    window.location.assign('/wel/index');
  }

  return (
    <div className="lock-page">
      <div className="lock-box">
        <div className="lock-user">{props.user?.realName ?? ''}</div>
        <h2>{t('lock.locked')}</h2>
        <form onSubmit={(e) => { e.preventDefault(); void unlock(); }}>
          <label htmlFor="unlock-pw" className="sr-only">{t('lock.password')}</label>
          <input id="unlock-pw" type="password" value={pw} onChange={(e) => setPw(e.target.value)} placeholder={t('lock.placeholder')} autoFocus />
          {err && <div className="form-err" role="alert">{t(err)}</div>}
          <div className="lock-actions">
            <button type="submit" className="btn btn-primary" disabled={busy}>{t('lock.unlock')}</button>
            <button type="button" className="btn" onClick={() => void logout(props.site.storagePrefix)}>{t('lock.logout')}</button>
          </div>
        </form>
      </div>
    </div>
  );
}
