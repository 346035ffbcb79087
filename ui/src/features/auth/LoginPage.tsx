// Sign-in page (SPEC §2, §8): tenant (hidden when known from the host), account, password
// sent as MD5, captcha with refresh; third-party sign-ins not yet bound open the register dialog.
import { useEffect, useState, type FormEvent } from 'react';
import { useTranslation } from '../../i18n/react';
import { useApp } from '../../app';
import { signIn } from '../../lib/auth';
import { safeRedirect } from '../../lib/guard';
import { RegisterDialog } from './RegisterDialog';
import { LangSwitch } from '../layout/LangSwitch';

export function LoginPage() {
  const { t } = useTranslation();
  const { props } = useApp();
  const [f, setF] = useState({ tenantId: props.tenant.id, username: '', password: '', code: '' });
  const [captcha, setCaptcha] = useState<{ key: string; image: string } | null>(null);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [message, setMessage] = useState<string | null>(null);
  // Back from /password: the new password is set and every session of the account ended.
  const [changed] = useState(() => typeof location !== 'undefined' && new URLSearchParams(location.search).get('changed') === '1');
  const [busy, setBusy] = useState(false);
  const [register, setRegister] = useState(false);

  const loadCaptcha = () => {
    fetch('/api/blade-auth/oauth/captcha', { headers: { 'Tenant-Id': f.tenantId } })
      .then((r) => r.json())
      .then((c) => setCaptcha({ key: c.key ?? c.data?.key, image: c.image ?? c.data?.image }))
      .catch(() => setCaptcha(null));
  };
  useEffect(loadCaptcha, []);
  // On an address that names no tenant, the form starts from the tenant last signed in to on this browser.
  useEffect(() => {
    if (props.tenant.knownFromHost) return;
    const last = lastTenant();
    if (last) setF((x) => (x.tenantId === props.tenant.id ? { ...x, tenantId: last } : x));
  }, []);

  // Typing into a field marked 请输入… takes its mark away (the form says what is still missing, not what was).
  const set = (k: keyof typeof f) => (e: { target: { value: string } }) => {
    const v = e.target.value;
    setF({ ...f, [k]: v });
    if (errors[k] && v.trim()) setErrors(({ [k]: _, ...rest }) => rest);
  };

  async function submit(e: FormEvent) {
    e.preventDefault();
    const errs: Record<string, string> = {};
    if (!props.tenant.knownFromHost && !f.tenantId.trim()) errs.tenantId = 'login.tenantRequired';
    if (!f.username.trim()) errs.username = 'login.accountRequired';
    if (!f.password) errs.password = 'login.passwordRequired';
    if (!f.code.trim()) errs.code = 'login.captchaRequired';
    setErrors(errs);
    if (Object.keys(errs).length) return;
    setBusy(true);
    setMessage(null);
    const r = await signIn(props.site.storagePrefix, { ...f, key: captcha?.key ?? '' });
    setBusy(false);
    if (r.ok === true) {
      if (!props.tenant.knownFromHost) rememberTenant(f.tenantId.trim());
      const back = safeRedirect(new URLSearchParams(location.search).get('redirect')) ?? '/wel/index';
      window.location.assign(back);
    } else if (r.ok === 'register') {
      setRegister(true);
    } else {
      setMessage(r.message);
      setF((x) => ({ ...x, code: '' }));
      loadCaptcha();
    }
  }

  return (
    <div className="login">
      <div className="login-box">
        <div className="login-brand">
          <h1>{props.site.title}</h1>
          <p>{t('login.subtitle')}</p>
        </div>
        <form className="login-form" onSubmit={submit} noValidate aria-label={t('login.title')}>
          <div className="login-head"><h2>{t('login.title')}</h2><LangSwitch /></div>
          {!props.tenant.knownFromHost && (
            <Field id="tenantId" label={t('login.tenantId')} error={errors.tenantId && t(errors.tenantId)}>
              <input id="tenantId" name="tenantId" value={f.tenantId} onChange={set('tenantId')} placeholder={t('login.tenantPlaceholder')} autoComplete="organization" />
            </Field>
          )}
          <Field id="username" label={t('login.account')} error={errors.username && t(errors.username)}>
            <input id="username" name="username" value={f.username} onChange={set('username')} placeholder={t('login.accountPlaceholder')} autoComplete="username" />
          </Field>
          <Field id="password" label={t('login.password')} error={errors.password && t(errors.password)}>
            <input id="password" name="password" type="password" value={f.password} onChange={set('password')} placeholder={t('login.passwordPlaceholder')} autoComplete="current-password" />
          </Field>
          <Field id="code" label={t('login.captcha')} error={errors.code && t(errors.code)}>
            <div className="captcha">
              <input id="code" name="code" value={f.code} onChange={set('code')} placeholder={t('login.captchaPlaceholder')} autoComplete="off" maxLength={8} />
              <button type="button" className="captcha-img" onClick={loadCaptcha} title={t('login.refreshCaptcha')} aria-label={t('login.refreshCaptcha')}>
                {captcha?.image ? <img src={captcha.image} alt={t('login.captcha')} /> : <span>{t('login.captcha')}</span>}
              </button>
            </div>
          </Field>
          {changed && !message && <div className="login-ok" role="status">{t('password.changed')}</div>}
          {message && <div className="login-error" role="alert">{t(message)}</div>}
          <button type="submit" className="btn btn-primary btn-block" disabled={busy}>{busy ? t('login.signingIn') : t('login.submit')}</button>
        </form>
      </div>
      <RegisterDialog open={register} onOpenChange={setRegister} />
    </div>
  );
}

function Field(p: { id: string; label: string; error?: string | false; children: React.ReactNode }) {
  return (
    <div className={'login-field' + (p.error ? ' has-error' : '')}>
      <label htmlFor={p.id}>{p.label}</label>
      {p.children}
      {p.error && <div className="form-err" role="alert">{p.error}</div>}
    </div>
  );
}

const LAST_TENANT = 'zz-last-tenant';

/** The tenant last signed in to from an address that names none (empty when unknown or storage is off). */
export function lastTenant(): string {
  try {
    return globalThis.localStorage?.getItem(LAST_TENANT) ?? '';
  } catch {
    return '';
  }
}

export function rememberTenant(id: string) {
  try {
    if (id) globalThis.localStorage?.setItem(LAST_TENANT, id);
  } catch {
    // Private windows may refuse storage: the form then starts from the server's default.
  }
}
