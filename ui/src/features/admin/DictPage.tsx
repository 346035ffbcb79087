// Dictionary screens (SPEC §2, §3, §5): /system/dict (platform-wide, /api/blade-system/dict) and
// /system/dictbiz (per tenant, /api/blade-system/dict-biz). A parent dictionary table (rows with
// parentId 0) and, for the chosen dictionary, its child entries as a tree table. Both: search bar,
// borders, row index, selection, a view button, dialogs 880 wide not closed by an outside click,
// action columns 150 (parent) and 220 (child). Sealed entries cannot be edited or removed.
import { useState } from 'react';
import { useTranslation } from '../../i18n/react';
import { useProps } from '../../app';
import type { FormField } from '../../lib/admin';
import { CrudTable, type Column, type CrudConfig } from './CrudTable';
import { usePageSeed } from './widgets';

const YES_NO = [{ value: 0, label: ['否', 'No'] as const }, { value: 1, label: ['是', 'Yes'] as const }];

export function dictFields(api: string, child: boolean): FormField[] {
  const f: FormField[] = [
    { name: 'code', label: ['字典编号', 'Code'], required: true, message: ['请输入字典编号', 'Please enter the dictionary code'], span: 24, disabledOn: child ? ['add', 'edit'] : undefined },
    { name: 'dictValue', label: ['字典名称', 'Name'], required: true, message: ['请输入字典名称', 'Please enter the dictionary name'] },
  ];
  if (child) {
    f.push(
      { name: 'parentId', label: ['上级字典', 'Parent'], type: 'tree', tree: api + '/tree?code=DICT', hint: ['请选择上级字典', 'Choose the parent dictionary'], disabledOn: ['add', 'edit'] },
      { name: 'dictKey', label: ['字典键值', 'Key'], required: true, message: ['请输入字典键值', 'Please enter the key value'] },
    );
  }
  f.push(
    { name: 'sort', label: ['字典排序', 'Sort'], type: 'number', required: true, message: ['请输入字典排序', 'Please enter the sort order'] },
    { name: 'isSealed', label: ['封存', 'Sealed'], type: 'switch', required: true, message: ['请选择封存', 'Please choose whether it is sealed'], default: 0 },
    { name: 'remark', label: ['字典备注', 'Remark'], type: 'textarea', span: 24 },
  );
  return f;
}

const sealedCol: Column = { name: 'isSealed', label: ['封存', 'Sealed'], options: YES_NO, width: 80 };

export function DictPage({ biz }: { biz: boolean }) {
  const { t } = useTranslation();
  const { locale } = useProps();
  const api = biz ? '/api/blade-system/dict-biz' : '/api/blade-system/dict';
  const perm = biz ? 'dictbiz' : 'dict';
  const [parent, setParent] = useState<any | null>(null);
  const seed = usePageSeed('dict');

  const parentCfg: CrudConfig = {
    api, listUrl: api + '/parent-list', paged: true, perm,
    title: biz ? ['业务字典', 'Business dictionary'] : ['系统字典', 'System dictionary'],
    columns: [
      { name: 'code', label: ['字典编号', 'Code'], render: (r) => <button type="button" className="link" title={t('adm.dictConfig')} onClick={() => setParent(r)}>{r.code}</button> },
      { name: 'dictValue', label: ['字典名称', 'Name'] },
      sealedCol,
    ],
    search: [{ name: 'code', label: ['字典编号', 'Code'] }, { name: 'dictValue', label: ['字典名称', 'Name'] }],
    fields: dictFields(api, false),
    actionWidth: 150, dialogWidth: 880, sealed: true,
    extraBody: () => ({ parentId: 0, dictKey: '-1' }),
    onRowClick: (r) => setParent(r),
    activeRow: parent ? String(parent.id) : null,
    className: 'dict-parent',
  };
  const childCfg: CrudConfig = {
    api, listUrl: api + '/child-list', paged: false, params: { parentId: parent?.id ?? '' }, perm,
    title: (locale === 'en' ? 'Entries' : '字典配置') + (parent ? ' · ' + parent.dictValue : ''),
    columns: [
      { name: 'code', label: ['字典编号', 'Code'] },
      { name: 'dictValue', label: ['字典名称', 'Name'] },
      { name: 'dictKey', label: ['字典键值', 'Key'] },
      sealedCol,
    ],
    search: [{ name: 'code', label: ['字典编号', 'Code'] }, { name: 'dictValue', label: ['字典名称', 'Name'] }],
    fields: dictFields(api, true),
    actionWidth: 220, dialogWidth: 880, sealed: true, addChild: true, expandAll: true,
    addDefaults: (row) => ({ code: parent?.code, parentId: String(row?.id ?? parent?.id ?? ''), _parentIdLabel: row?.dictValue ?? parent?.dictValue }),
    className: 'dict-child',
  };

  return (
    <div className="dict-screen">
      <CrudTable cfg={parentCfg} firstPage={seed?.parents} dicts={seed?.dicts} />
      {parent ? <CrudTable key={parent.id} cfg={childCfg} />
        : <section className="card muted dict-hint">{t('adm.dictChoose')}</section>}
    </div>
  );
}
