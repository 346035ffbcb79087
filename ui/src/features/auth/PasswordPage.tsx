// /password: a user signed in with a password someone else set (an administrator's reset, an install's generated
// one) sets his own before anything else; the pages send him here until he has (the guard's mustChange) and the
// API refuses him all else. The change ends every session of the account (the server bumps its token version),
// so he signs in again with the new one.
import { useState, type FormEvent } from 'react';
import { useTranslation } from '../../i18n/react';
import { useApp } from '../../app';
import { ApiError, post } from '../../lib/api';
import { md5 } from '../../lib/md5';
import { logout } from '../../lib/auth';

type Fields = { oldPassword: string; newPassword: string; newPassword1: string };

/** At least 8 characters of at least two kinds (letters, digits, other signs): the server sees only the MD5,
 * so the length and mix are checked here; it refuses the commonest passwords itself. */
export function strongEnough(p: string): boolean {
  const kinds = [/[A-Za-z]/, /[0-9]/, /[^A-Za-z0-9]/].filter((re) => re.test(p)).length;
  return [...p].length >= 8 && kinds >= 2;
}

/** What is wrong with the form, by field (message keys); empty when it may be sent. */
export function passwordErrors(f: Fields): Partial<Record<keyof Fields, string>> {
  const e: Partial<Record<keyof Fields, string>> = {};
  if (!f.oldPassword) e.oldPassword = 'valid.required';
  if (!f.newPassword) e.newPassword = 'valid.required';
  else if (f.newPassword === f.oldPassword) e.newPassword = 'password.same';
  else if (!strongEnough(f.newPassword)) e.newPassword = 'password.rule';
  if (!f.newPassword1) e.newPassword1 = 'valid.required';
  else if (f.newPassword1 !== f.newPassword) e.newPassword1 = 'register.passwordMismatch';
  return e;
}

export function PasswordPage() {
  const { t } = useTranslation();
  const { props } = useApp();
  const prefix = props.site.storagePrefix;
  const [f, setF] = useState<Fields>({ oldPassword: '', newPassword: '', newPassword1: '' });
  const [errors, setErrors] = useState<Partial<Record<keyof Fields, string>>>({});
  const [message, setMessage] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(e: FormEvent) {
    e.preventDefault();
    const errs = passwordErrors(f);
    setErrors(errs);
    if (Object.keys(errs).length) return;
    setBusy(true);
    setMessage(null);
    try {
      await post('/api/blade-user/update-password', undefined, { oldPassword: md5(f.oldPassword), newPassword: md5(f.newPassword), newPassword1: md5(f.newPassword1) });
    } catch (x) {
      setBusy(false);
      setMessage(x instanceof ApiError ? x.message : 'err.network');
      return;
    }
    await logout(prefix, '/login?changed=1');
  }

  const field = (k: keyof Fields, auto: string) => (
    <div className={'login-field' + (errors[k] ? ' has-error' : '')}>
      <label htmlFor={'pw-' + k}>{t('info.' + k)}</label>
      <input id={'pw-' + k} type="password" value={f[k]} autoComplete={auto} onChange={(e) => {
        const v = e.target.value;
        setF({ ...f, [k]: v });
        if (errors[k] && v) setErrors(({ [k]: _, ...rest }) => rest);
      }} />
      {errors[k] ? <div className="form-err" role="alert">{t(errors[k]!)}</div> : k === 'newPassword' && <div className="muted small">{t('password.rule')}</div>}
    </div>
  );

  return (
    <div className="login">
      <div className="login-box">
        <div className="login-brand">
          <h1>{props.site.title}</h1>
          <p>{props.user?.realName ?? ''}</p>
        </div>
        <form className="login-form" onSubmit={submit} noValidate aria-label={t('password.title')}>
          <div className="login-head"><h2>{t('password.title')}</h2></div>
          <p className="login-note">{t('password.why')}</p>
          {field('oldPassword', 'current-password')}
          {field('newPassword', 'new-password')}
          {field('newPassword1', 'new-password')}
          {message && <div className="login-error" role="alert">{t(message)}</div>}
          <button type="submit" className="btn btn-primary btn-block" disabled={busy}>{t('password.submit')}</button>
          <button type="button" className="btn btn-block" onClick={() => void logout(prefix)}>{t('password.logout')}</button>
        </form>
      </div>
    </div>
  );
}
