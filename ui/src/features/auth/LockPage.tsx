// /lock: the session stays signed in but hidden until the lock password is given again.
// Only the MD5 of the lock password is kept (session storage); never the clear text.
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useApp } from '../../app';
import { store } from '../../lib/storage';
import { md5 } from '../../lib/md5';
import { lockPassword } from '../../lib/validators';
import { logout } from '../../lib/auth';

export function LockPage() {
  const { t } = useTranslation();
  const { props } = useApp();
  const [pw, setPw] = useState('');
  const [err, setErr] = useState<string | null>(null);

  function unlock() {
    const m = lockPassword(pw);
    if (m) return setErr(m);
    const s = store(props.site.storagePrefix);
    if (s.get('lockPasswd') !== md5(pw)) return setErr('lock.wrong');
    s.remove('isLock');
    s.remove('lockPasswd');
    window.location.assign('/wel/index');
  }

  return (
    <div className="lock-page">
      <div className="lock-box">
        <div className="lock-user">{props.user?.realName ?? ''}</div>
        <h2>{t('lock.locked')}</h2>
        <form onSubmit={(e) => { e.preventDefault(); unlock(); }}>
          <label htmlFor="unlock-pw" className="sr-only">{t('lock.password')}</label>
          <input id="unlock-pw" type="password" value={pw} onChange={(e) => setPw(e.target.value)} placeholder={t('lock.placeholder')} autoFocus />
          {err && <div className="form-err" role="alert">{t(err)}</div>}
          <div className="lock-actions">
            <button type="submit" className="btn btn-primary">{t('lock.unlock')}</button>
            <button type="button" className="btn" onClick={() => void logout(props.site.storagePrefix)}>{t('lock.logout')}</button>
          </div>
        </form>
      </div>
    </div>
  );
}
