// 账号注册 for third-party sign-ins whose user id is empty or negative (SPEC §2, §4, §5).
import { useState } from 'react';
import { useTranslation } from '../../i18n/react';
import { useApp } from '../../app';
import { Dialog, FormRow } from '../../components/ui/dialog';
import { registerErrors, type RegisterForm } from '../../lib/validators';
import { call } from '../../lib/api';
import { md5 } from '../../lib/md5';
import { store } from '../../lib/storage';
import { logout } from '../../lib/auth';

export function RegisterDialog({ open, onOpenChange }: { open: boolean; onOpenChange: (o: boolean) => void }) {
  const { t } = useTranslation();
  const { props } = useApp();
  const known = props.tenant.knownFromHost;
  const [f, setF] = useState<RegisterForm>({ tenantId: props.tenant.id, name: '', account: '', password: '', password2: '' });
  const [errors, setErrors] = useState<Partial<Record<keyof RegisterForm, string>>>({});
  const [msg, setMsg] = useState<string | null>(null);

  const blur = (k: keyof RegisterForm) => () => setErrors((e) => ({ ...e, [k]: registerErrors(f, known)[k] }));
  const row = (k: keyof RegisterForm, type = 'text') => (
    <FormRow label={t('register.' + k)} htmlFor={'reg-' + k} error={errors[k] && t(errors[k]!)} required={k !== 'name'}>
      <input id={'reg-' + k} type={type} value={f[k]} onChange={(e) => setF({ ...f, [k]: e.target.value })} onBlur={blur(k)} />
    </FormRow>
  );

  async function submit() {
    const errs = registerErrors(f, known);
    setErrors(errs);
    if (Object.keys(errs).length) return;
    const info = (store(props.site.storagePrefix).get<any>('userInfo') as any) ?? {};
    const body = { tenantId: f.tenantId, name: f.name, account: f.account, password: md5(f.password), oauthId: info.oauth_id ?? '' };
    try {
      const r = await call('POST', '/api/blade-user/register-guest', { body });
      if (r.body?.success) {
        onOpenChange(false);
        window.alert(t('register.done'));
        await logout(props.site.storagePrefix);
      } else setMsg(r.body?.msg || 'register.failed');
    } catch {
      setMsg('register.failed');
    }
  }

  return (
    <Dialog open={open} onOpenChange={onOpenChange} title={t('register.title')} width={480}
      footer={<><button className="btn" onClick={() => onOpenChange(false)}>{t('common.cancel')}</button><button className="btn btn-primary" onClick={submit}>{t('register.submit')}</button></>}>
      {!known && row('tenantId')}
      {row('name')}
      {row('account')}
      {row('password', 'password')}
      {row('password2', 'password')}
      {msg && <div className="form-err" role="alert">{t(msg)}</div>}
    </Dialog>
  );
}
