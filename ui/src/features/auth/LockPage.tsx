// /lock: the session stays signed in but hidden until the password is given again. Unlocking
// asks the server (POST /api/blade-user/check-password with the MD5, as at sign-in); the
// browser never keeps the clear text.
import { useState } from 'react';
import { useTranslation } from '../../i18n/react';
import { useApp } from '../../app';
import { store } from '../../lib/storage';
import { lockPassword } from '../../lib/validators';
import { checkPassword, logout } from '../../lib/auth';

export function LockPage() {
  const { t } = useTranslation();
  const { props } = useApp();
  const [pw, setPw] = useState('');
  const [err, setErr] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function unlock() {
    const m = lockPassword(pw);
    if (m) return setErr(m);
    setBusy(true);
    let ok = false;
    try {
      ok = await checkPassword(props.tenant.id, pw);
    } catch {
      setBusy(false);
      return setErr('err.network');
    }
    setBusy(false);
    if (!ok) return setErr('lock.wrong');
    const s = store(props.site.storagePrefix);
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
