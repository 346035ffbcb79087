// Personal info (SPEC §2): two tabs — info (avatar jpg/png ≤ 500kb, name, realName, phone,
// email) and change password (sent as MD5 like the sign-in password).
import * as Tabs from '@radix-ui/react-tabs';
import { useEffect, useState } from 'react';
import { useTranslation } from '../../i18n/react';
import { useProps } from '../../app';
import { FormRow } from '../../components/ui/dialog';
import { useToast } from '../../components/ui/toast';
import { email, phone, required } from '../../lib/validators';
import { get, post, upload, ApiError } from '../../lib/api';
import { md5 } from '../../lib/md5';
import { logout } from '../../lib/auth';
import { passwordErrors } from '../auth/PasswordPage';

export const AVATAR_MAX = 500 * 1024;
export const avatarOk = (f: { type: string; size: number }) => (f.type === 'image/jpeg' || f.type === 'image/png') && f.size <= AVATAR_MAX;

export function InfoPage() {
  const { t } = useTranslation();
  const props = useProps();
  const toast = useToast();
  const u = props.user;
  // What is stored, read once the page is up (the session knows only the name and avatar): saving a form that
  // started empty would have cleared the phone and e-mail on file.
  const [info, setInfo] = useState({ avatar: u?.avatar ?? '', name: '', realName: u?.realName ?? '', phone: '', email: '' });
  // false: being read (the boxes wait, so nothing typed is overwritten); a string: why it could not be read.
  const [loaded, setLoaded] = useState<boolean | string>(false);
  const load = () => {
    setLoaded(false);
    get<Record<string, unknown>>('/api/blade-user/info').then((d) => {
      const s = (k: string) => (d?.[k] == null ? '' : String(d[k]));
      setInfo({ avatar: s('avatar') || (u?.avatar ?? ''), name: s('name'), realName: s('realName'), phone: s('phone'), email: s('email') });
      setLoaded(true);
    }, (e) => setLoaded(e instanceof ApiError ? t(e.message) : t('err.unknown')));
  };
  useEffect(load, []);
  const [pw, setPw] = useState({ oldPassword: '', newPassword: '', newPassword1: '' });
  const [err, setErr] = useState<Record<string, string | null>>({});
  const fail = (e: unknown) => toast(e instanceof ApiError ? t(e.message) : t('err.unknown'), 'error');

  const saveInfo = async () => {
    // A phone is not required (many staff have none on file); one that is given must be a mobile number.
    const e = { realName: required(info.realName), name: required(info.name), phone: info.phone.trim() ? phone(info.phone) : null, email: email(info.email) };
    setErr(e);
    if (Object.values(e).some(Boolean)) return;
    try { await post('/api/blade-user/update-info', { ...info, id: u?.userId }); toast(t('crud.updated')); } catch (x) { fail(x); }
  };
  const savePw = async () => {
    // The rule of /password (8+ characters of two kinds, not the old one): "123" was taken here.
    const e = passwordErrors(pw);
    setErr({ oldPassword: e.oldPassword ?? null, newPassword: e.newPassword ?? null, newPassword1: e.newPassword1 ?? null });
    if (Object.keys(e).length) return;
    try {
      await post('/api/blade-user/update-password', undefined, { oldPassword: md5(pw.oldPassword), newPassword: md5(pw.newPassword), newPassword1: md5(pw.newPassword1) });
    } catch (x) { return fail(x); }
    // The change ends every session of the account (the server bumps its token version): sign in again, told why
    // (the next click used to land on the sign-in page with no word).
    await logout(props.site.storagePrefix, '/login?changed=1');
  };
  const setAvatar = async (file: File | undefined) => {
    if (!file) return;
    if (!avatarOk(file)) return toast(t('info.avatarTip'), 'warning');
    try {
      const d = await upload('/api/blade-resource/oss/endpoint/put-file', file);
      setInfo({ ...info, avatar: d?.link ?? d });
    } catch (x) { fail(x); }
  };

  const text = (k: 'name' | 'realName' | 'phone' | 'email') => (
    <FormRow label={t('info.' + k)} htmlFor={'info-' + k} error={err[k] && t(err[k]!)} required={k === 'name' || k === 'realName'}>
      <input id={'info-' + k} value={info[k]} disabled={loaded !== true} onChange={(e) => setInfo({ ...info, [k]: e.target.value })}
        onBlur={k === 'phone' ? () => setErr({ ...err, phone: info.phone.trim() ? phone(info.phone) : null }) : k === 'email' ? () => setErr({ ...err, email: email(info.email) }) : undefined} />
    </FormRow>
  );
  const pass = (k: keyof typeof pw) => (
    <FormRow label={t('info.' + k)} htmlFor={'pw-' + k} error={err[k] && t(err[k]!)} required>
      <input id={'pw-' + k} type="password" value={pw[k]} onChange={(e) => setPw({ ...pw, [k]: e.target.value })} />
      {k === 'newPassword' && !err[k] && <small className="muted">{t('password.rule')}</small>}
    </FormRow>
  );

  return (
    <Tabs.Root className="card tab-card" defaultValue="info">
      <Tabs.List className="tab-list" aria-label={t('menu.info')}>
        <Tabs.Trigger value="info">{t('info.tabInfo')}</Tabs.Trigger>
        <Tabs.Trigger value="password">{t('info.tabPassword')}</Tabs.Trigger>
      </Tabs.List>
      <Tabs.Content value="info" className="tab-body">
        <FormRow label={t('info.avatar')} htmlFor="info-avatar">
          <div className="avatar-up">
            {info.avatar && <img src={info.avatar} alt="" width={64} height={64} />}
            {/* The native file box says "Choose File / No file chosen" in the browser's language: hide it behind a translated button. */}
            <input id="info-avatar" className="sr-only file-input" type="file" accept="image/jpeg,image/png" onChange={(e) => void setAvatar(e.target.files?.[0])} />
            <label htmlFor="info-avatar" className="btn file-btn">{t('info.chooseAvatar')}</label>
            <small className="muted">{t('info.avatarTip')}</small>
          </div>
        </FormRow>
        {typeof loaded === 'string' && <div className="form-err" role="alert">{loaded} <button type="button" className="link" onClick={load}>{t('common.retry')}</button></div>}
        {text('realName')}{text('name')}{text('phone')}{text('email')}
        <div className="form-actions"><button type="button" className="btn btn-primary" disabled={loaded !== true} onClick={saveInfo}>{t('common.save')}</button></div>
      </Tabs.Content>
      <Tabs.Content value="password" className="tab-body">
        {pass('oldPassword')}{pass('newPassword')}{pass('newPassword1')}
        <div className="form-actions"><button type="button" className="btn btn-primary" onClick={savePw}>{t('common.save')}</button></div>
      </Tabs.Content>
    </Tabs.Root>
  );
}
