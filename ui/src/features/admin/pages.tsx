// Roles (with the grant dialog), menus, departments and tenants: tree tables or paged tables over
// their blade-system APIs (SPEC §7 "System"), buttons per the codes of assets/seed/menus.json.
import * as Tabs from '@radix-ui/react-tabs';
import { useMemo, useState } from 'react';
import { useTranslation } from '../../i18n/react';
import { Dialog } from '../../components/ui/dialog';
import { useToast } from '../../components/ui/toast';
import { ApiError, get, post } from '../../lib/api';
import { grantIds, index, passwordsMatch, type FormField } from '../../lib/admin';
import { CrudTable, type CrudConfig } from './CrudTable';
import { CheckTree, useAfterHydration, usePageSeed } from './widgets';

const SYS = '/api/blade-system';

// ------------------------------------------------------------------ roles

export function RolePage() {
  const { t } = useTranslation();
  const toast = useToast();
  const [grant, setGrant] = useState<string[] | null>(null);
  const cfg: CrudConfig = useMemo(() => ({
    api: SYS + '/role', listUrl: SYS + '/role/list', paged: false, perm: 'role', title: ['角色管理', 'Roles'],
    columns: [
      { name: 'roleName', label: ['角色名称', 'Role name'] },
      { name: 'roleAlias', label: ['角色别名', 'Alias'] },
      { name: 'sort', label: ['角色排序', 'Sort'], width: 100 },
    ],
    search: [{ name: 'roleName', label: ['角色名称', 'Role name'] }, { name: 'roleAlias', label: ['角色别名', 'Alias'] }],
    fields: [
      { name: 'roleName', label: ['角色名称', 'Role name'], required: true, message: ['请输入角色名称', 'Please enter the role name'] },
      { name: 'roleAlias', label: ['角色别名', 'Alias'], required: true, message: ['请输入角色别名', 'Please enter the alias'] },
      { name: 'parentId', label: ['上级角色', 'Parent'], type: 'tree', tree: SYS + '/role/tree', hint: ['请选择上级角色', 'Choose the parent role'] },
      { name: 'sort', label: ['角色排序', 'Sort'], type: 'number', required: true, message: ['请输入角色排序', 'Please enter the sort order'], default: '1' },
    ],
    actionWidth: 260, dialogWidth: 880, addChild: true, expandAll: true,
    addDefaults: (p) => (p ? { parentId: String(p.id), _parentIdLabel: p.roleName } : {}),
    extraBody: (f) => ({ parentId: f.parentId || 0 }),
    tools: ({ selected, can }) => can('grant') && (
      <button type="button" className="btn" onClick={() => {
        if (selected.length !== 1) return toast(t(selected.length ? 'adm.onlyOne' : 'crud.selectOne'), 'warning');
        setGrant(selected);
      }}>{t('adm.roleGrant')}</button>
    ),
    rowActions: (row, { can }) => can('grant') && <button type="button" className="link" onClick={() => setGrant([String(row.id)])}>{t('adm.roleGrant')}</button>,
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }), [t]);
  const seed = usePageSeed('tree');
  return (
    <>
      <CrudTable cfg={cfg} firstPage={seed?.rows} dicts={seed?.dicts} />
      {grant && <GrantDialog roleIds={grant} onClose={() => setGrant(null)} />}
    </>
  );
}

type GrantTrees = { menu: any[]; dataScope: any[]; apiScope: any[] };
const KINDS = [
  { key: 'menu', label: 'adm.grantMenu', save: 'menuIds' },
  { key: 'dataScope', label: 'adm.grantData', save: 'dataScopeIds' },
  { key: 'apiScope', label: 'adm.grantApi', save: 'apiScopeIds' },
] as const;

/** The role grant dialog: 菜单权限 / 数据权限 / 接口权限 as checkable trees. */
export function GrantDialog({ roleIds, onClose }: { roleIds: string[]; onClose: () => void }) {
  const { t } = useTranslation();
  const toast = useToast();
  const [trees, setTrees] = useState<GrantTrees | null>(null);
  const [checked, setChecked] = useState<Record<string, Set<string>>>({ menu: new Set(), dataScope: new Set(), apiScope: new Set() });
  const [failed, setFailed] = useState<string | null>(null);
  useAfterHydration(() => {
    Promise.all([get<any>(SYS + '/menu/grant-tree'), get<any>(SYS + '/menu/role-tree-keys', { roleIds: roleIds.join(',') })])
      .then(([tr, keys]) => {
        setTrees({ menu: tr?.menu ?? [], dataScope: tr?.dataScope ?? [], apiScope: tr?.apiScope ?? [] });
        const ids = (x: any) => new Set<string>((Array.isArray(x) ? x : []).map(String));
        setChecked({ menu: ids(keys?.menu), dataScope: ids(keys?.dataScope), apiScope: ids(keys?.apiScope) });
      })
      .catch((e) => setFailed(e instanceof ApiError ? e.message : 'err.unknown'));
  }, [roleIds.join(',')]);
  const save = async () => {
    if (!trees) return;
    const body: Record<string, unknown> = { roleIds };
    for (const k of KINDS) body[k.save] = grantIds(checked[k.key], index(trees[k.key]));
    try {
      await post(SYS + '/role/grant', body);
      toast(t('adm.granted'));
      onClose();
    } catch (e) {
      toast(e instanceof ApiError ? t(e.message) : t('err.unknown'), 'error');
    }
  };
  return (
    <Dialog open onOpenChange={(o) => { if (!o) onClose(); }} title={t('adm.roleGrant')} width={560}
      footer={<><button type="button" className="btn" onClick={onClose}>{t('common.cancel')}</button><button type="button" className="btn btn-primary" disabled={!trees} onClick={save}>{t('common.ok')}</button></>}>
      {failed ? <p className="form-err" role="alert">{t(failed)}</p> : !trees ? <p className="muted">{t('common.loading')}</p> : (
        <Tabs.Root defaultValue="menu">
          <Tabs.List className="tab-list">
            {KINDS.map((k) => <Tabs.Trigger key={k.key} value={k.key}>{t(k.label)}</Tabs.Trigger>)}
          </Tabs.List>
          {KINDS.map((k) => (
            <Tabs.Content key={k.key} value={k.key} className="grant-pane">
              {trees[k.key].length === 0 ? <p className="muted">{t('common.empty')}</p>
                : <CheckTree tree={trees[k.key]} checked={checked[k.key]} onChange={(s) => setChecked((c) => ({ ...c, [k.key]: s }))} label={t(k.label)} />}
            </Tabs.Content>
          ))}
        </Tabs.Root>
      )}
    </Dialog>
  );
}

// ------------------------------------------------------------------ menus

const CATEGORY = [{ value: 1, label: ['菜单', 'Menu'] as const }, { value: 2, label: ['按钮', 'Button'] as const }];
const OPEN = [{ value: 1, label: ['否', 'No'] as const }, { value: 2, label: ['是', 'Yes'] as const }];

export const menuFields: FormField[] = [
  { name: 'name', label: ['菜单名称', 'Name'], required: true, message: ['请输入菜单名称', 'Please enter the menu name'] },
  { name: 'path', label: ['路由地址', 'Path'] },
  { name: 'parentId', label: ['上级菜单', 'Parent'], type: 'tree', tree: SYS + '/menu/tree', hint: ['请选择上级菜单', 'Choose the parent menu'] },
  { name: 'source', label: ['菜单图标', 'Icon'] },
  { name: 'code', label: ['菜单编号', 'Code'], required: true, message: ['请输入菜单编号', 'Please enter the menu code'] },
  { name: 'category', label: ['菜单类型', 'Category'], type: 'radio', options: CATEGORY, required: true, message: ['请选择菜单类型', 'Please choose the category'], default: '1' },
  { name: 'alias', label: ['菜单别名', 'Alias'], required: true, message: ['请输入菜单别名', 'Please enter the alias'] },
  { name: 'action', label: ['按钮功能', 'Button position'], type: 'select', dict: 'button_func', default: '0' },
  { name: 'sort', label: ['菜单排序', 'Sort'], type: 'number', required: true, message: ['请输入菜单排序', 'Please enter the sort order'], default: '1' },
  { name: 'isOpen', label: ['新窗口', 'New window'], type: 'radio', options: OPEN, default: '1' },
  { name: 'nameEn', label: ['英文名称', 'English name'] },
  { name: 'remark', label: ['菜单备注', 'Remark'], type: 'textarea', span: 24 },
];

export function MenuPage() {
  const cfg: CrudConfig = useMemo(() => ({
    api: SYS + '/menu', listUrl: SYS + '/menu/list', paged: false, perm: 'menu', title: ['菜单管理', 'Menus'],
    columns: [
      { name: 'name', label: ['菜单名称', 'Name'] },
      { name: 'path', label: ['路由地址', 'Path'] },
      { name: 'source', label: ['菜单图标', 'Icon'], width: 90 },
      { name: 'code', label: ['菜单编号', 'Code'] },
      { name: 'alias', label: ['菜单别名', 'Alias'], width: 90 },
      { name: 'category', label: ['菜单类型', 'Category'], options: CATEGORY, width: 90 },
      { name: 'sort', label: ['菜单排序', 'Sort'], width: 80 },
    ],
    search: [{ name: 'code', label: ['菜单编号', 'Code'] }, { name: 'name', label: ['菜单名称', 'Name'] }, { name: 'alias', label: ['菜单别名', 'Alias'] }],
    fields: menuFields, actionWidth: 220, dialogWidth: 880, addChild: true,
    addDefaults: (p) => (p ? { parentId: String(p.id), _parentIdLabel: p.name, category: '2' } : {}),
    extraBody: (f) => ({ parentId: f.parentId || 0 }),
  }), []);
  const seed = usePageSeed('tree');
  return <CrudTable cfg={cfg} firstPage={seed?.rows} dicts={seed?.dicts} />;
}

// ------------------------------------------------------------------ departments

export function DeptPage() {
  const cfg: CrudConfig = useMemo(() => ({
    api: SYS + '/dept', listUrl: SYS + '/dept/list', paged: false, perm: 'dept', title: ['机构管理', 'Departments'],
    columns: [
      { name: 'deptName', label: ['机构名称', 'Name'] },
      { name: 'fullName', label: ['机构全称', 'Full name'] },
      { name: 'deptCategory', label: ['机构类型', 'Category'], dict: 'org_category', width: 120 },
      { name: 'sort', label: ['排序', 'Sort'], width: 80 },
    ],
    search: [{ name: 'deptName', label: ['机构名称', 'Name'] }, { name: 'fullName', label: ['机构全称', 'Full name'] }],
    fields: [
      { name: 'deptName', label: ['机构名称', 'Name'], required: true, message: ['请输入机构名称', 'Please enter the name'] },
      { name: 'fullName', label: ['机构全称', 'Full name'], required: true, message: ['请输入机构全称', 'Please enter the full name'] },
      { name: 'parentId', label: ['上级机构', 'Parent'], type: 'tree', tree: SYS + '/dept/tree', hint: ['请选择上级机构', 'Choose the parent'] },
      { name: 'deptCategory', label: ['机构类型', 'Category'], type: 'select', dict: 'org_category', required: true, message: ['请选择机构类型', 'Please choose the category'] },
      { name: 'sort', label: ['排序', 'Sort'], type: 'number', required: true, message: ['请输入排序', 'Please enter the sort order'], default: '1' },
      { name: 'remark', label: ['备注', 'Remark'], type: 'textarea', span: 24 },
    ],
    actionWidth: 220, dialogWidth: 880, addChild: true, expandAll: true,
    addDefaults: (p) => (p ? { parentId: String(p.id), _parentIdLabel: p.deptName } : {}),
    extraBody: (f) => ({ parentId: f.parentId || 0 }),
  }), []);
  const seed = usePageSeed('tree');
  return <CrudTable cfg={cfg} firstPage={seed?.rows} dicts={seed?.dicts} />;
}

// ------------------------------------------------------------------ tenants

export const tenantFields: FormField[] = [
  { name: 'tenantId', label: ['租户ID', 'Tenant id'], required: true, message: ['请输入租户ID', 'Please enter the tenant id'], disabledOn: ['edit'] },
  { name: 'tenantName', label: ['租户名称', 'Tenant name'], required: true, message: ['请输入租户名称', 'Please enter the tenant name'] },
  { name: 'password', label: ['管理员密码', 'Admin password'], type: 'password', required: true, message: ['请输入管理员密码', 'Please enter the first admin password'], only: ['add'] },
  { name: 'password2', label: ['确认密码', 'Confirm password'], type: 'password', required: true, message: ['请输入确认密码', 'Please confirm the password'], only: ['add'], validate: passwordsMatch() },
  { name: 'domain', label: ['域名地址', 'Domain'] },
  { name: 'linkman', label: ['联系人', 'Contact'] },
  { name: 'contactNumber', label: ['联系电话', 'Phone'] },
  { name: 'accountNumber', label: ['账号额度', 'Account quota'], type: 'number', default: '-1' },
  { name: 'expireTime', label: ['过期时间', 'Expires'], type: 'date' },
  { name: 'nameEn', label: ['英文名称', 'English name'] },
  { name: 'address', label: ['联系地址', 'Address'], span: 24 },
  { name: 'backgroundUrl', label: ['系统背景', 'Background'], span: 24 },
];

export function TenantPage() {
  const cfg: CrudConfig = useMemo(() => ({
    api: SYS + '/tenant', listUrl: SYS + '/tenant/list', paged: true, perm: 'tenant', title: ['租户管理', 'Tenants'],
    columns: [
      { name: 'tenantId', label: ['租户ID', 'Tenant id'], width: 100 },
      { name: 'tenantName', label: ['租户名称', 'Tenant name'] },
      { name: 'linkman', label: ['联系人', 'Contact'] },
      { name: 'contactNumber', label: ['联系电话', 'Phone'] },
      { name: 'domain', label: ['域名地址', 'Domain'] },
      { name: 'accountNumber', label: ['账号额度', 'Account quota'], width: 90 },
      { name: 'expireTime', label: ['过期时间', 'Expires'] },
    ],
    search: [{ name: 'tenantId', label: ['租户ID', 'Tenant id'] }, { name: 'tenantName', label: ['租户名称', 'Tenant name'] }, { name: 'linkman', label: ['联系人', 'Contact'] }],
    fields: tenantFields, actionWidth: 160, dialogWidth: 880,
  }), []);
  const seed = usePageSeed('paged');
  return <CrudTable cfg={cfg} firstPage={seed?.data} dicts={seed?.dicts} />;
}
