// 复盘详情 /replay/detail/{replayCode}: a project post-mortem — its conclusion and its items (what happened, cause,
// action, owner, due date), overdue open items marked, items added, closed, reopened and removed here.
import { useCallback, useEffect, useMemo, useState, type FormEvent } from 'react';
import { useApp } from '../../app';
import { post, errText } from '../../lib/api';
import { useToast } from '../../components/ui/toast';
import { RefPicker } from '../crud/FormDialog';
import type { Field } from '../../types';
import { Facts, Table } from '../../components/ui/record';
import { useL } from '../../lib/words';
import { byCode } from './ProjectDetail';

type Row = Record<string, any>;
const B = '/api/blade-scm/replay';
const USER: Field = { name: 'ownerId', kind: 'long', label: '', labelEn: '', required: false, filter: false, sort: false, search: false, list: false, form: true, refers: { resource: 'user', list: 'GET /api/blade-user/page', title: 'realName', staff: true } };

export function ReplayDetail({ code }: { code: string }) {
  const { props, navigate } = useApp();
  const { L } = useL();
  const toast = useToast();
  const perms = useMemo(() => new Set(props.permissions), [props.permissions]);
  const [d, setD] = useState<Row | null | undefined>(undefined);
  const [f, setF] = useState<Row>({ happened: '', cause: '', action: '', dueDate: '' });
  const load = useCallback(async () => {
    try {
      const r = await byCode('replay', 'replayCode', code);
      setD(r ? await post(`${B}/detail/${r.id}`) : null);
    } catch (e) {
      toast(errText(e), 'error');
    }
  }, [code, toast]);
  useEffect(() => { void load(); }, [load]);
  const act = async (fn: () => Promise<unknown>, done: string) => {
    try { await fn(); toast(done); await load(); } catch (e) { toast(errText(e), 'error'); }
  };
  if (d === undefined) return <section className="detail-page" aria-busy="true"><p className="muted">{L('加载中…', 'Loading…')}</p></section>;
  if (d === null) return <section className="detail-page"><p className="empty">{L(`复盘 ${code} 不存在或无权查看`, `Replay ${code} does not exist or is not yours to see`)}</p></section>;
  const canEdit = perms.has('replay_edit');
  const today = new Date(Date.now() + 8 * 3600_000).toISOString().slice(0, 10);
  const add = (e: FormEvent) => {
    e.preventDefault();
    if (!f.happened.trim()) return toast(L('请填写发生了什么', 'Say what happened'), 'warning');
    void act(() => post(`${B}/item/add`, { replayId: d.id, ...f }), L('已添加', 'Added')).then(() => setF({ happened: '', cause: '', action: '', dueDate: '' }));
  };
  return (
    <section className="detail-page" aria-label={L('复盘', 'Replay')}>
      <div className="card">
        <h2>{d.replayName} <span className="tag">{L(`未关闭 ${d.openItems ?? 0} / ${d.itemCount ?? 0}`, `${d.openItems ?? 0} of ${d.itemCount ?? 0} open`)}</span></h2>
        <Facts rows={[
          [L('复盘编号', 'Code'), d.replayCode],
          [L('所属项目', 'Project'), <a className="link" href="#" onClick={(e) => { e.preventDefault(); void post(`/api/blade-scm/project/detail/${d.projectId}`).then((p) => p && navigate(`/project/detail/${p.projectCode}`)).catch(() => {}); }}>{d.projectName}</a>],
          [L('复盘日期', 'Held on'), d.replayDate], [L('主持人', 'Chaired by'), d.hostName],
        ]} />
        {d.summary && <p className="wide">{d.summary}</p>}
      </div>
      <div className="card">
        <h3>{L('问题与改进', 'Items')}</h3>
        {canEdit && (
          <form className="flow-form" onSubmit={add} aria-label={L('添加问题', 'Add an item')}>
            <label>{L('发生了什么', 'What happened')} *<input value={f.happened} maxLength={500} onChange={(e) => setF({ ...f, happened: e.target.value })} /></label>
            <label>{L('原因', 'Cause')}<input value={f.cause} maxLength={500} onChange={(e) => setF({ ...f, cause: e.target.value })} /></label>
            <label>{L('改进措施', 'Action')}<input value={f.action} maxLength={500} onChange={(e) => setF({ ...f, action: e.target.value })} /></label>
            <label>{L('责任人', 'Owner')}<RefPicker id="r-owner" field={USER} value={String(f.ownerId ?? '')} label={f.ownerName ?? ''} onChange={(id, t) => setF({ ...f, ownerId: id, ownerName: t })} /></label>
            <label>{L('完成期限', 'Due')}<input type="date" value={f.dueDate} onChange={(e) => setF({ ...f, dueDate: e.target.value })} /></label>
            <div className="flow-actions"><button type="submit" className="btn btn-primary">{L('添加', 'Add')}</button></div>
          </form>
        )}
        <Table label={L('问题与改进', 'Items')} empty={L('暂无问题', 'No items')} rows={d.items ?? []} cols={[
          [L('发生了什么', 'What happened'), (r) => r.happened], [L('原因', 'Cause'), (r) => r.cause], [L('改进措施', 'Action'), (r) => r.action],
          [L('责任人', 'Owner'), (r) => r.ownerName],
          [L('完成期限', 'Due'), (r) => <span className={Number(r.itemStatus) !== 2 && r.dueDate && r.dueDate < today ? 'overdue' : ''}>{r.dueDate}</span>],
          [L('状态', 'Status'), (r) => r.itemStatusName],
          [L('操作', 'Action'), (r) => canEdit ? (
            <span className="row-actions">
              <button type="button" className="link" onClick={() => act(() => post(`${B}/item/update`, { id: r.id, itemStatus: Number(r.itemStatus) === 2 ? 1 : 2 }), L('已更新', 'Updated'))}>{Number(r.itemStatus) === 2 ? L('重新打开', 'Reopen') : L('关闭', 'Close')}</button>
              {perms.has('replay_delete') && <button type="button" className="link danger" onClick={() => act(() => post(`${B}/item/delete/${r.id}/${d.id}/1`), L('已删除', 'Removed'))}>{L('删除', 'Remove')}</button>}
            </span>
          ) : null],
        ]} />
      </div>
    </section>
  );
}
