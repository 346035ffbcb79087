import { describe, expect, test } from 'bun:test';
import { buildTree, visibleRows, treeOptions, index, toggleCheck, checkState, grantIds, fieldMessage, formErrors, submitBody, passwordsMatch, oneTimePasswords, defaults, type FormField } from './admin';

const tree = [{ id: 1, title: '系统管理', children: [{ id: 2, title: '参数管理', children: [{ id: 3, title: '新增' }, { id: 4, title: '删除' }] }, { id: 5, title: '用户管理' }] }];

describe('trees', () => {
  test('a flat list is nested by parentId; orphans are roots', () => {
    const f = buildTree([{ id: '1', parentId: '0' }, { id: '2', parentId: '1' }, { id: '3', parentId: '9' }]);
    expect(f.map((n) => n.id)).toEqual(['1', '3']);
    expect(f[0].children!.map((n) => n.id)).toEqual(['2']);
  });
  test('a list with children is kept, ids as strings', () => {
    const f = buildTree(tree);
    expect(f[0].id).toBe('1');
    expect(f[0].children![0].children![1].id).toBe('4');
  });
  test('visible rows follow the expanded set', () => {
    const f = buildTree(tree);
    expect(visibleRows(f, new Set()).map((r) => r.node.id)).toEqual(['1']);
    expect(visibleRows(f, new Set(['1'])).map((r) => [r.node.id, r.depth])).toEqual([['1', 0], ['2', 1], ['5', 1]]);
  });
  test('tree options are depth first and indented', () => {
    expect(treeOptions(tree).map((o) => `${o.depth}${o.label}`)).toEqual(['0系统管理', '1参数管理', '2新增', '2删除', '1用户管理']);
  });
});

describe('checkable grant tree', () => {
  const ix = index(tree);
  test('checking a menu checks its buttons; parents follow when all children are on', () => {
    let s = toggleCheck(new Set(), '2', true, ix);
    expect([...s].sort()).toEqual(['2', '3', '4']);
    expect(checkState('1', s, ix)).toBe('some');
    s = toggleCheck(s, '5', true, ix);
    expect(checkState('1', s, ix)).toBe('on');
    s = toggleCheck(s, '3', false, ix);
    expect(checkState('1', s, ix)).toBe('some');
    expect(checkState('2', s, ix)).toBe('some');
    expect(s.has('1') || s.has('2')).toBe(false);
  });
  test('the saved ids include every ancestor of a checked node', () => {
    expect(grantIds(new Set(['3']), ix).sort()).toEqual(['1', '2', '3']);
    expect(grantIds(new Set(['99']), ix)).toEqual([]);
  });
});

describe('forms', () => {
  const code: FormField = { name: 'code', label: '字典编号', required: true, message: ['请输入字典编号', 'Please enter the code'] };
  const sealed: FormField = { name: 'isSealed', label: '封存', type: 'switch', required: true, message: '请选择封存', default: 0 };
  const sort: FormField = { name: 'sort', label: '字典排序', type: 'number', required: true, message: '请输入字典排序' };
  test('spec messages on empty required fields', () => {
    expect(fieldMessage(code, {}, 'zh')).toBe('请输入字典编号');
    expect(fieldMessage(code, { code: '  ' }, 'en')).toBe('Please enter the code');
    expect(fieldMessage(sealed, {}, 'zh')).toBe('请选择封存');
    expect(fieldMessage(sealed, defaults([sealed]), 'zh')).toBeNull();
    expect(fieldMessage(sort, { sort: 'x' }, 'zh')).toBe('输入内容需为纯数字');
  });
  test('password confirmation only on add', () => {
    const pw: FormField = { name: 'password', label: '密码', type: 'password', required: true, only: ['add'] };
    const pw2: FormField = { name: 'password2', label: '确认密码', type: 'password', required: true, only: ['add'], validate: passwordsMatch() };
    expect(formErrors([pw, pw2], { password: 'a', password2: 'b' }, 'add', 'zh')).toEqual({ password2: '两次密码输入不一致' });
    expect(formErrors([pw, pw2], {}, 'edit', 'zh')).toEqual({});
    expect(submitBody([pw, pw2], { id: '7', password: 'a' }, 'edit')).toEqual({ id: '7' });
  });
  test('submit body: numbers as numbers, switch defaults to 0, extras kept', () => {
    expect(submitBody([code, sealed, sort], { code: 'x', sort: '3' }, 'add', { parentId: 0 })).toEqual({ parentId: 0, code: 'x', isSealed: 0, sort: 3 });
  });
});

describe('one-time passwords', () => {
  const acc = { '11': 'zhang', '12': 'li' };
  test('every answer shape gives account and password', () => {
    expect(oneTimePasswords('Xy9!', { '11': 'zhang' })).toEqual([{ account: 'zhang', password: 'Xy9!' }]);
    expect(oneTimePasswords(['a', 'b'], acc)).toEqual([{ account: 'zhang', password: 'a' }, { account: 'li', password: 'b' }]);
    expect(oneTimePasswords([{ userId: '12', password: 'p' }], acc)).toEqual([{ account: 'li', password: 'p' }]);
    expect(oneTimePasswords({ '11': 'p1' }, acc)).toEqual([{ account: 'zhang', password: 'p1' }]);
    expect(oneTimePasswords(null)).toEqual([]);
  });
});
