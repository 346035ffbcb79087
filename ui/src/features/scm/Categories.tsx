// 产品分类 /productCategory/index as a tree per product type (`productCategory/tree`): expand and collapse, add a top
// category or a sub-category, edit, remove (a category with products or sub-categories is refused, and the
// server's message says which). Writes go through `productCategory/save`, `update`, `remove`.
import { useCallback, useEffect, useMemo, useState } from 'react';
import { useApp } from '../../app';
import { get, post, errText } from '../../lib/api';
import { useToast } from '../../components/ui/toast';
import { Dialog, Confirm } from '../../components/ui/dialog';
import { useL } from '../../lib/words';

type Node = { id: string; categoryName: string; sort?: number; remark?: string; parentId: string; productType: number; children: Node[] };
const C = '/api/blade-scm/productCategory';

export function CategoryTree() {
  const { props } = useApp();
  const { L } = useL();
  const toast = useToast();
  const perms = useMemo(() => new Set(props.permissions), [props.permissions]);
  const [types, setTypes] = useState<{ dictKey: string; dictValue: string }[]>([]);
  const [type, setType] = useState('');
  const [tree, setTree] = useState<Node[] | null>(null);
  const [open, setOpen] = useState<Set<string>>(new Set());
  const [form, setForm] = useState<Partial<Node> | null>(null);
  const [doomed, setDoomed] = useState<Node | null>(null);
  useEffect(() => {
    get('/api/blade-system/dict/dictionary', { code: 'product_type' }).then((d) => { setTypes(d ?? []); setType((d ?? [])[0]?.dictKey ?? ''); }).catch(() => setTypes([]));
  }, []);
  const load = useCallback(async () => {
    if (!type) return;
    try { setTree(await get(`${C}/tree`, { productType: type })); } catch (e) { toast(errText(e), 'error'); }
  }, [type, toast]);
  useEffect(() => { void load(); }, [load]);
  const toggle = (id: string) => setOpen((o) => { const n = new Set(o); if (n.has(id)) n.delete(id); else n.add(id); return n; });
  const save = async () => {
    if (!form) return;
    if (!String(form.categoryName ?? '').trim()) return toast(L('请填写分类名称', 'Enter the name'), 'warning');
    try {
      const body = { id: form.id, parentId: form.parentId ?? '0', productType: Number(type), categoryName: form.categoryName, sort: form.sort ?? 1, remark: form.remark ?? '' };
      await post(`${C}/${form.id ? 'update' : 'save'}`, body);
      toast(L('已保存', 'Saved'));
      if (form.parentId && form.parentId !== '0') setOpen((o) => new Set(o).add(form.parentId!));
      setForm(null);
      await load();
    } catch (e) {
      toast(errText(e), 'error');
    }
  };
  const remove = async (n: Node) => {
    try { await post(`${C}/remove`, undefined, { ids: n.id }); toast(L('已删除', 'Removed')); await load(); } catch (e) { toast(errText(e), 'error'); }
  };
  const row = (n: Node, depth: number) => {
    const has = n.children?.length > 0;
    const expanded = open.has(n.id);
    return (
      <li key={n.id} role="treeitem" aria-expanded={has ? expanded : undefined} aria-level={depth + 1} aria-label={n.categoryName}>
        <div className="tree-row" style={{ paddingLeft: depth * 20 }}>
          <button type="button" className="tree-toggle" aria-label={expanded ? L('收起', 'Collapse') : L('展开', 'Expand')} disabled={!has} onClick={() => toggle(n.id)}>{has ? (expanded ? '▾' : '▸') : '·'}</button>
          <span className="tree-name">{n.categoryName}</span>
          {has && <span className="muted small">{L(`${n.children.length} 个子分类`, `${n.children.length} sub-categories`)}</span>}
          <span className="row-actions">
            {perms.has('product_category_add') && <button type="button" className="link" onClick={() => setForm({ parentId: n.id, sort: (n.children?.length ?? 0) + 1 })}>{L('新增子分类', 'Add a sub-category')}</button>}
            {perms.has('product_category_edit') && <button type="button" className="link" onClick={() => setForm({ ...n })}>{L('编辑', 'Edit')}</button>}
            {perms.has('product_category_delete') && <button type="button" className="link danger" onClick={() => setDoomed(n)}>{L('删除', 'Remove')}</button>}
          </span>
        </div>
        {has && expanded && <ul role="group">{n.children.map((c) => row(c, depth + 1))}</ul>}
      </li>
    );
  };
  return (
    <section className="detail-page" aria-label={L('产品分类', 'Product categories')}>
      <div className="card">
        <div className="card-head">
          <div className="tabs" role="tablist">{types.map((x) => (
            <button key={x.dictKey} type="button" role="tab" aria-selected={type === x.dictKey} className={'btn' + (type === x.dictKey ? ' btn-primary' : '')} onClick={() => { setType(x.dictKey); setOpen(new Set()); }}>{x.dictValue}</button>
          ))}</div>
          {perms.has('product_category_add') && <button type="button" className="btn btn-primary" onClick={() => setForm({ parentId: '0', sort: (tree?.length ?? 0) + 1 })}>{L('新增顶级分类', 'Add a top category')}</button>}
        </div>
        {tree === null ? <p className="muted">{L('加载中…', 'Loading…')}</p> : tree.length === 0 ? <p className="empty">{L('该类型还没有分类', 'No categories of this type yet')}</p> : (
          <ul className="tree" role="tree" aria-label={L('产品分类', 'Product categories')}>{tree.map((n) => row(n, 0))}</ul>
        )}
      </div>
      {form && (
        <Dialog open onOpenChange={(o) => { if (!o) setForm(null); }} title={form.id ? L('编辑分类', 'Edit the category') : L('新增分类', 'New category')} width={460}
          footer={<><button type="button" className="btn" onClick={() => setForm(null)}>{L('取消', 'Cancel')}</button><button type="button" className="btn btn-primary" onClick={save}>{L('保存', 'Save')}</button></>}>
          <div className="flow-form">
            <label className="wide">{L('分类名称', 'Name')} *<input value={form.categoryName ?? ''} maxLength={50} onChange={(e) => setForm({ ...form, categoryName: e.target.value })} /></label>
            <label>{L('排序', 'Sort')}<input type="number" min={0} max={9999} value={form.sort ?? 1} onChange={(e) => setForm({ ...form, sort: Number(e.target.value) })} /></label>
            <label>{L('备注', 'Remark')}<input value={form.remark ?? ''} maxLength={255} onChange={(e) => setForm({ ...form, remark: e.target.value })} /></label>
          </div>
        </Dialog>
      )}
      <Confirm open={!!doomed} onOpenChange={(o) => { if (!o) setDoomed(null); }} text={L(`删除分类「${doomed?.categoryName ?? ''}」?`, `Remove the category ${doomed?.categoryName ?? ''}?`)}
        onConfirm={() => { const n = doomed; setDoomed(null); if (n) void remove(n); }} />
    </section>
  );
}
