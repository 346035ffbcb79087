// Users (/system/user): department tree on the left, the user page on the right; add/edit with
// password and confirmation on add, role grant dialog, password reset whose one-time passwords
// are shown once, Excel import/export. Buttons per permission code (user_add, user_edit,
// user_delete, user_view, user_role, user_reset, user_import, user_export).
import { useMemo, useState } from 'react';
import { useTranslation } from '../../i18n/react';
import { Confirm, Dialog } from '../../components/ui/dialog';
import { useToast } from '../../components/ui/toast';
import { ApiError, download as dl, errText, post, qs } from '../../lib/api';
import { ImportDialog } from '../crud/ImportDialog';
import { nodeLabel, nodeValue, oneTimePasswords, passwordsMatch, type FormField, type OneTime } from '../../lib/admin';
import { CrudTable, type CrudConfig } from './CrudTable';
import { CheckTree, usePageSeed, useTree } from './widgets';

const USER_API = '/api/blade-user';

export const userFields: FormField[] = [
  { name: 'account', label: ['登录账号', 'Account'], required: true, message: ['请输入登录账号', 'Please enter the account'] },
  { name: 'name', label: ['用户昵称', 'Nickname'], required: true, message: ['请输入用户昵称', 'Please enter the nickname'] },
  { name: 'realName', label: ['用户姓名', 'Real name'], required: true, message: ['请输入用户姓名', 'Please enter the real name'] },
  { name: 'password', label: ['密码', 'Password'], type: 'password', required: true, message: ['请输入密码', 'Please enter the password'], only: ['add'] },
  { name: 'password2', label: ['确认密码', 'Confirm password'], type: 'password', required: true, message: ['请输入确认密码', 'Please confirm the password'], only: ['add'], validate: passwordsMatch() },
  { name: 'userType', label: ['用户平台', 'Platform'], type: 'select', dict: 'user_type', default: '1' },
  { name: 'phone', label: ['手机号码', 'Phone'], validate: (v) => (/^1\d{10}$/.test(String(v ?? '')) ? null : String(v ?? '').length !== 11 ? ['手机号码长度不为11位', 'The phone number must have 11 digits'] : ['手机号码格式不正确', 'The phone number is not valid']) },
  { name: 'email', label: ['电子邮箱', 'Email'], validate: (v) => (/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(String(v ?? '')) ? null : ['邮箱格式不正确', 'The email is not valid']) },
  { name: 'sex', label: ['用户性别', 'Sex'], type: 'select', dict: 'sex' },
  { name: 'birthday', label: ['用户生日', 'Birthday'], type: 'date' },
  // A user without a role cannot sign in (未获得用户的角色信息): one is chosen when the account is made; more
  // are granted with 角色配置.
  { name: 'roleId', label: ['所属角色', 'Role'], type: 'tree', tree: '/api/blade-system/role/tree', required: true, message: ['请选择所属角色', 'Please choose the role'], hint: ['请选择所属角色', 'Choose the role'], only: ['add'] },
  { name: 'deptId', label: ['所属部门', 'Department'], type: 'tree', tree: '/api/blade-system/dept/tree', hint: ['请选择所属部门', 'Choose the department'] },
  { name: 'code', label: ['用户编号', 'Number'] },
];

export function UserPage() {
  const { t } = useTranslation();
  const toast = useToast();
  const seed = usePageSeed('user');
  const depts = useTree('/api/blade-system/dept/tree', 0, seed?.depts);
  const [deptId, setDeptId] = useState('');
  const [grant, setGrant] = useState<{ ids: string[]; roles: string[] } | null>(null);
  const [resetIds, setResetIds] = useState<{ ids: string[]; accounts: Record<string, string> } | null>(null);
  const [shown, setShown] = useState<OneTime[] | null>(null);
  const [importing, setImporting] = useState(false);
  const [reloadKey, setReloadKey] = useState(0);

  const needOne = (ids: string[]) => { if (!ids.length) { toast(t('crud.selectOne'), 'warning'); return false; } return true; };
  const doReset = async () => {
    const r = resetIds!;
    try {
      const data = await post<any>(USER_API + '/reset-password', undefined, { userIds: r.ids.join(',') });
      setShown(oneTimePasswords(data, r.accounts));
    } catch (e) {
      toast(e instanceof ApiError ? t(e.message) : t('err.unknown'), 'error');
    }
  };
  const download = (url: string, name: string) => void dl(url, name).catch((e) => toast(t(errText(e)), 'error'));

  const cfg: CrudConfig = useMemo(() => ({
    api: USER_API, listUrl: USER_API + '/page', paged: true, params: { deptId }, perm: 'user',
    title: ['用户管理', 'Users'],
    columns: [
      { name: 'account', label: ['登录账号', 'Account'] },
      { name: 'realName', label: ['用户姓名', 'Real name'] },
      { name: 'userType', label: ['用户平台', 'Platform'], dict: 'user_type' },
      { name: 'roleName', label: ['所属角色', 'Roles'] },
      { name: 'deptName', label: ['所属部门', 'Department'] },
      { name: 'phone', label: ['手机号码', 'Phone'] },
    ],
    search: [{ name: 'account', label: ['登录账号', 'Account'] }, { name: 'realName', label: ['用户姓名', 'Real name'] }],
    fields: userFields, actionWidth: 160, dialogWidth: 880,
    addDefaults: () => (deptId ? { deptId } : {}),
    tools: ({ selected, rows, can, query }) => (
      <>
        {can('role') && <button type="button" className="btn" onClick={() => needOne(selected) && setGrant({ ids: selected, roles: selected.length === 1 ? String(rows.find((r) => String(r.id) === selected[0])?.roleId ?? '').split(',').filter(Boolean) : [] })}>{t('adm.userRole')}</button>}
        {can('reset') && <button type="button" className="btn" onClick={() => needOne(selected) && setResetIds({ ids: selected, accounts: Object.fromEntries(rows.filter((r) => selected.includes(String(r.id))).map((r) => [String(r.id), r.account])) })}>{t('adm.userReset')}</button>}
        {can('import') && <button type="button" className="btn" onClick={() => setImporting(true)}>{t('adm.import')}</button>}
        {can('export') && <button type="button" className="btn" onClick={() => download(USER_API + '/export-user' + qs(query), 'users.xlsx')}>{t('crud.export')}</button>}
      </>
    ),
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }), [deptId, t]);

  const deptNode = (n: any) => {
    const id = nodeValue(n);
    return (
      <li key={id}>
        <button type="button" className={'dept-node' + (deptId === id ? ' active' : '')} aria-pressed={deptId === id} onClick={() => setDeptId(deptId === id ? '' : id)}>{nodeLabel(n)}</button>
        {Array.isArray(n.children) && n.children.length > 0 && <ul>{n.children.map(deptNode)}</ul>}
      </li>
    );
  };

  return (
    <div className="split">
      <aside className="split-side card" aria-label={t('adm.deptTree')}>
        <ul className="dept-tree">
          <li><button type="button" className={'dept-node' + (deptId === '' ? ' active' : '')} aria-pressed={deptId === ''} onClick={() => setDeptId('')}>{t('adm.allDepts')}</button></li>
          {depts.map(deptNode)}
        </ul>
      </aside>
      <div className="split-main">
        <CrudTable cfg={cfg} reloadKey={reloadKey} firstPage={seed?.users} dicts={seed?.dicts} />
      </div>
      {grant && <GrantRoles userIds={grant.ids} roles={grant.roles} onClose={() => setGrant(null)} onDone={() => { setGrant(null); setReloadKey((k) => k + 1); }} />}
      <Confirm open={resetIds !== null && shown === null} onOpenChange={(o) => { if (!o) setResetIds(null); }} text={t('adm.resetConfirm')} onConfirm={doReset} />
      {shown && <OneTimeDialog items={shown} onClose={() => { setShown(null); setResetIds(null); }} />}
      {importing && <ImportDialog title={t('adm.importTitle')} url={USER_API + '/import-user'} template={USER_API + '/export-template'} templateName="user-template.xlsx" onClose={() => setImporting(false)} onDone={() => { setImporting(false); setReloadKey((k) => k + 1); }} />}
    </div>
  );
}

function GrantRoles({ userIds, roles, onClose, onDone }: { userIds: string[]; roles: string[]; onClose: () => void; onDone: () => void }) {
  const { t } = useTranslation();
  const toast = useToast();
  const tree = useTree('/api/blade-system/role/tree');
  const [checked, setChecked] = useState<Set<string>>(() => new Set(roles));
  const save = async () => {
    try {
      await post(USER_API + '/grant', undefined, { userIds: userIds.join(','), roleIds: [...checked].join(',') });
      toast(t('adm.granted'));
      onDone();
    } catch (e) {
      toast(e instanceof ApiError ? t(e.message) : t('err.unknown'), 'error');
    }
  };
  return (
    <Dialog open onOpenChange={(o) => { if (!o) onClose(); }} title={t('adm.userRole')} width={480}
      footer={<><button type="button" className="btn" onClick={onClose}>{t('common.cancel')}</button><button type="button" className="btn btn-primary" onClick={save}>{t('common.ok')}</button></>}>
      {tree.length === 0 ? <p className="muted">{t('common.loading')}</p> : <CheckTree tree={tree} checked={checked} onChange={setChecked} label={t('adm.roleTree')} />}
    </Dialog>
  );
}

function OneTimeDialog({ items, onClose }: { items: OneTime[]; onClose: () => void }) {
  const { t } = useTranslation();
  const [copied, setCopied] = useState<number | null>(null);
  const copy = async (i: number, text: string) => {
    try { await navigator.clipboard.writeText(text); } catch {
      const ta = document.createElement('textarea'); ta.value = text; document.body.appendChild(ta); ta.select(); document.execCommand('copy'); ta.remove();
    }
    setCopied(i);
  };
  return (
    <Dialog open onOpenChange={(o) => { if (!o) onClose(); }} title={t('adm.oneTimeTitle')} width={560}
      footer={<button type="button" className="btn btn-primary" onClick={onClose}>{t('adm.oneTimeDone')}</button>}>
      <p className="warn" role="alert">{t('adm.oneTimeWarn')}</p>
      <table className="table" aria-label={t('adm.oneTimeTitle')}>
        <thead><tr><th>{t('adm.account')}</th><th>{t('adm.oneTimePassword')}</th><th className="col-action" style={{ width: 100 }}>{t('common.action')}</th></tr></thead>
        <tbody>
          {items.map((it, i) => (
            <tr key={i}>
              <td>{it.account}</td>
              <td><code className="otp">{it.password}</code></td>
              <td className="col-action"><button type="button" className="link" onClick={() => copy(i, it.password)}>{copied === i ? t('adm.copied') : t('adm.copy')}</button></td>
            </tr>
          ))}
        </tbody>
      </table>
    </Dialog>
  );
}

