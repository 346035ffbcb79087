// 流程管理: models and their designer, deployed versions (suspend, activate, delete, BPMN upload), and running
// instances (流程跟踪). The designer edits the definition as steps and connections, checks it on the server as
// it changes (each problem shown beside its step and drawn red on the diagram), and draws it as it is edited.
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useApp } from '../../app';
import { get, post, ApiError, headers } from '../../lib/api';
import { useToast } from '../../components/ui/toast';
import { Dialog, useAsk } from '../../components/ui/dialog';
import { Pager } from '../../components/ui/pager';
import { Table } from '../../components/ui/record';
import { useL } from '../../lib/words';
import { Diagram, type Definition, type FlowNode } from './Diagram';
import { DiagramDialog, F, kindOf } from './Work';
import { usePage } from './usePage';

type Row = Record<string, any>;
const msg = (e: unknown) => (e instanceof ApiError ? e.message : String(e));
const CATEGORIES: [string, string, string][] = [['1', '请假流程', 'Leave'], ['2', '施工审批', 'Construction approval']];

const EMPTY: Definition = {
  variables: [],
  nodes: [
    { id: 'start', type: 'start', name: '发起' },
    { id: 'approve', type: 'task', name: '审批', assign: { kind: 'starter' }, mode: 'single' },
    { id: 'end', type: 'end', name: '结束' },
  ],
  flows: [{ id: 'f1', from: 'start', to: 'approve' }, { id: 'f2', from: 'approve', to: 'end' }],
};

function nextId(prefix: string, taken: string[]) {
  let i = 1;
  while (taken.includes(`${prefix}${i}`)) i++;
  return `${prefix}${i}`;
}

/** The designer: steps, connections, variables; the diagram and the server's checks as it changes. */
function Designer({ model, onSaved, onClose }: { model: Row | null; onSaved: () => void; onClose: () => void }) {
  const { L } = useL();
  const toast = useToast();
  const [head, setHead] = useState({ modelKey: model?.modelKey ?? '', name: model?.name ?? '', category: String(model?.category ?? '1'), description: model?.description ?? '' });
  const [def, setDef] = useState<Definition>(() => (model?.definition?.nodes ? model.definition : structuredClone(EMPTY)));
  const [problems, setProblems] = useState<Row[]>([]);
  const [sel, setSel] = useState<string | null>(null);
  const [users, setUsers] = useState<Row[]>([]);
  const [roles, setRoles] = useState<Row[]>([]);
  useEffect(() => {
    get(`${F}/work/users`).then(setUsers, () => setUsers([]));
    get('/api/blade-system/role/list', { size: 200 }).then((d) => setRoles(Array.isArray(d) ? d : d?.records ?? []), () => setRoles([]));
  }, []);
  // Checked on the server as it changes (debounced).
  useEffect(() => {
    const t = setTimeout(() => { post(`${F}/model/check`, { definition: def }).then((d) => setProblems(d.problems ?? []), () => undefined); }, 300);
    return () => clearTimeout(t);
  }, [def]);
  const byKey = useMemo(() => {
    const m: Record<string, string> = {};
    for (const p of problems) {
      const k = p.node ?? p.flow ?? p.var;
      if (k && !m[k]) m[k] = p.msg;
    }
    return m;
  }, [problems]);
  const ids = def.nodes.map((n) => n.id);
  const setNode = (id: string, patch: Partial<FlowNode>) => setDef({ ...def, nodes: def.nodes.map((n) => (n.id === id ? { ...n, ...patch } : n)) });
  const insertAfter = (id: string, type: 'task' | 'exclusive' | 'parallel') => {
    const nid = nextId(type === 'task' ? 'task' : 'gw', ids);
    const outs = def.flows.filter((f) => f.from === id);
    const node: FlowNode = type === 'task' ? { id: nid, type, name: L('审批', 'Approve'), assign: { kind: 'leader' }, mode: 'single' } : { id: nid, type, name: type === 'exclusive' ? L('条件', 'Condition') : L('并行', 'Parallel') };
    const fid = nextId('f', def.flows.map((f) => f.id));
    let flows = def.flows;
    if (outs.length === 1) {
      flows = flows.map((f) => (f.id === outs[0].id ? { ...f, to: nid } : f));
      flows = [...flows, { id: fid, from: nid, to: outs[0].to }];
    } else {
      flows = [...flows, { id: fid, from: id, to: nid }];
    }
    setDef({ ...def, nodes: [...def.nodes, node], flows });
    setSel(nid);
  };
  const removeNode = (id: string) => {
    // Reconnect a step with one way in and one way out.
    const ins = def.flows.filter((f) => f.to === id);
    const outs = def.flows.filter((f) => f.from === id);
    let flows = def.flows.filter((f) => f.from !== id && f.to !== id);
    if (ins.length === 1 && outs.length === 1) flows = [...flows, { ...ins[0], to: outs[0].to }];
    setDef({ ...def, nodes: def.nodes.filter((n) => n.id !== id), flows });
    setSel(null);
  };
  const save = async () => {
    try {
      await post(`${F}/model/submit`, { id: model?.id, ...head, category: Number(head.category), definition: def });
      toast(L('已保存', 'Saved'));
      onSaved();
    } catch (e) {
      toast(msg(e), 'error');
    }
  };
  const node = def.nodes.find((n) => n.id === sel) ?? null;
  const vars = def.variables ?? [];
  return (
    <Dialog open onOpenChange={(o) => { if (!o) onClose(); }} title={model ? L('设计流程', 'Design') : L('新建模型', 'New model')} width={1100}
      footer={<><button type="button" className="btn" onClick={onClose}>{L('取消', 'Cancel')}</button><button type="button" className="btn btn-primary" onClick={save}>{L('保存', 'Save')}</button></>}>
      <div className="flow-designer">
        <div className="flow-head">
          <label>{L('模型标识', 'Key')}<input aria-label={L('模型标识', 'Key')} value={head.modelKey} disabled={!!model} onChange={(e) => setHead({ ...head, modelKey: e.target.value })} /></label>
          <label>{L('模型名称', 'Name')}<input aria-label={L('模型名称', 'Name')} value={head.name} onChange={(e) => setHead({ ...head, name: e.target.value })} /></label>
          <label>{L('流程分类', 'Category')}<select aria-label={L('流程分类', 'Category')} value={head.category} onChange={(e) => setHead({ ...head, category: e.target.value })}>{CATEGORIES.map(([k, zh, en]) => <option key={k} value={k}>{L(zh, en)}</option>)}</select></label>
        </div>
        <div className="flow-canvas"><Diagram def={def} problems={byKey} selected={sel} onSelect={setSel} label={L('流程图', 'Diagram')} /></div>
        <p className={problems.length ? 'form-err' : 'muted'} role="status">{problems.length ? L(`${problems.length} 处问题,点红色的节点查看`, `${problems.length} problem(s): click a red step`) : L('检查通过,可以部署', 'Checks pass: ready to deploy')}</p>
        <div className="flow-edit">
          <div className="card">
            <h3>{L('步骤', 'Step')}{node ? `:${node.name || node.id}` : ''}</h3>
            {!node && <p className="muted">{L('点击流程图中的步骤编辑它', 'Click a step in the diagram to edit it')}</p>}
            {node && (
              <div className="flow-node-form">
                {byKey[node.id] && <div className="form-err" role="alert">{byKey[node.id]}</div>}
                <label>{L('名称', 'Name')}<input aria-label={L('步骤名称', 'Step name')} value={node.name ?? ''} onChange={(e) => setNode(node.id, { name: e.target.value })} /></label>
                {node.type === 'task' && (
                  <>
                    <label>{L('办理人', 'Who')}<select aria-label={L('办理人类型', 'Assignee kind')} value={node.assign?.kind ?? 'leader'} onChange={(e) => setNode(node.id, { assign: { kind: e.target.value, ...(e.target.value === 'user' ? { users: [] } : e.target.value === 'role' ? { role: '' } : e.target.value === 'var' ? { var: vars.find((v) => v.type === 'user')?.name ?? '' } : {}) } })}>
                      <option value="leader">{L('发起人的部门负责人', "Starter's department leader")}</option>
                      <option value="role">{L('角色', 'A role')}</option>
                      <option value="user">{L('指定人员', 'Named people')}</option>
                      <option value="starter">{L('发起人自己', 'The starter')}</option>
                      <option value="var">{L('流程变量中的人员', 'A user variable')}</option>
                    </select></label>
                    {node.assign?.kind === 'role' && <label>{L('角色', 'Role')}<select aria-label={L('角色', 'Role')} value={node.assign.role ?? ''} onChange={(e) => setNode(node.id, { assign: { kind: 'role', role: e.target.value } })}><option value="">—</option>{roles.map((r) => <option key={r.id} value={r.roleAlias}>{r.roleName}</option>)}</select></label>}
                    {node.assign?.kind === 'user' && (
                      <label>{L('人员', 'People')}<select aria-label={L('添加人员', 'Add a person')} value="" onChange={(e) => { if (e.target.value) setNode(node.id, { assign: { kind: 'user', users: [...new Set([...(node.assign.users ?? []), e.target.value])] } }); }}>
                        <option value="">{L('添加…', 'Add…')}</option>{users.map((u) => <option key={u.id} value={u.id}>{u.realName}</option>)}
                      </select>
                      <span className="chips">{(node.assign.users ?? []).map((u: string) => <button type="button" key={u} className="chip" onClick={() => setNode(node.id, { assign: { kind: 'user', users: node.assign.users.filter((x: string) => x !== u) } })}>{users.find((x) => x.id === u)?.realName ?? u} ×</button>)}</span></label>
                    )}
                    {node.assign?.kind === 'var' && <label>{L('变量', 'Variable')}<select aria-label={L('人员变量', 'User variable')} value={node.assign.var ?? ''} onChange={(e) => setNode(node.id, { assign: { kind: 'var', var: e.target.value } })}><option value="">—</option>{vars.filter((v) => v.type === 'user').map((v) => <option key={v.name} value={v.name}>{v.label || v.name}</option>)}</select></label>}
                    <label>{L('审批方式', 'Mode')}<select aria-label={L('审批方式', 'Mode')} value={node.mode ?? 'single'} onChange={(e) => setNode(node.id, { mode: e.target.value })}>
                      <option value="single">{L('单人审批', 'One person')}</option>
                      <option value="claim">{L('候选人签收', 'Candidates claim')}</option>
                      <option value="all">{L('会签(全部同意)', 'Everyone must agree')}</option>
                      <option value="any">{L('或签(一人决定)', 'Anyone decides')}</option>
                      <option value="quorum">{L('票签(n人同意)', 'n must agree')}</option>
                    </select></label>
                    {node.mode === 'quorum' && <label>{L('通过人数', 'How many')}<input aria-label={L('通过人数', 'How many')} type="number" min={1} value={node.quorum ?? 1} onChange={(e) => setNode(node.id, { quorum: Number(e.target.value) })} /></label>}
                    <label>{L('驳回到', 'On reject')}<select aria-label={L('驳回到', 'On reject')} value={node.rejectTo ?? ''} onChange={(e) => setNode(node.id, { rejectTo: e.target.value || undefined })}><option value="">{L('结束(未通过)', 'End (rejected)')}</option>{def.nodes.filter((n) => n.type === 'task' && n.id !== node.id).map((n) => <option key={n.id} value={n.id}>{n.name || n.id}</option>)}</select></label>
                    <label>{L('时限(小时)', 'Due in (hours)')}<input aria-label={L('时限(小时)', 'Due in hours')} type="number" min={0} value={node.dueHours ?? ''} onChange={(e) => setNode(node.id, { dueHours: e.target.value ? Number(e.target.value) : undefined })} /></label>
                  </>
                )}
                {node.type === 'exclusive' && (
                  <label>{L('默认连线', 'Default')}<select aria-label={L('默认连线', 'Default flow')} value={node.default ?? ''} onChange={(e) => setNode(node.id, { default: e.target.value || undefined })}><option value="">—</option>{def.flows.filter((f) => f.from === node.id).map((f) => <option key={f.id} value={f.id}>{f.name || `→ ${def.nodes.find((n) => n.id === f.to)?.name ?? f.to}`}</option>)}</select></label>
                )}
                <h4>{L('出去的连线', 'Leaving by')}</h4>
                {def.flows.filter((f) => f.from === node.id).map((f) => (
                  <div key={f.id} className="flow-edge-form">
                    <span>→</span>
                    <select aria-label={L('连到', 'To')} value={f.to} onChange={(e) => setDef({ ...def, flows: def.flows.map((x) => (x.id === f.id ? { ...x, to: e.target.value } : x)) })}>{def.nodes.filter((n) => n.type !== 'start' && n.id !== node.id).map((n) => <option key={n.id} value={n.id}>{n.name || n.id}</option>)}</select>
                    <input aria-label={L('条件', 'Condition')} placeholder={L('条件,如 days > 3', 'condition, e.g. days > 3')} value={f.condition ?? ''} onChange={(e) => setDef({ ...def, flows: def.flows.map((x) => (x.id === f.id ? { ...x, condition: e.target.value || undefined } : x)) })} />
                    <input aria-label={L('连线名称', 'Label')} placeholder={L('名称', 'label')} value={f.name ?? ''} onChange={(e) => setDef({ ...def, flows: def.flows.map((x) => (x.id === f.id ? { ...x, name: e.target.value || undefined } : x)) })} />
                    <button type="button" className="link danger" onClick={() => setDef({ ...def, flows: def.flows.filter((x) => x.id !== f.id) })}>{L('删除', 'Remove')}</button>
                    {byKey[f.id] && <div className="form-err">{byKey[f.id]}</div>}
                  </div>
                ))}
                <div className="flow-actions">
                  {node.type !== 'end' && <button type="button" className="btn" onClick={() => setDef({ ...def, flows: [...def.flows, { id: nextId('f', def.flows.map((f) => f.id)), from: node.id, to: def.nodes.find((n) => n.type === 'end')?.id ?? node.id }] })}>{L('添加连线', 'Add a connection')}</button>}
                  {node.type !== 'end' && <button type="button" className="btn" onClick={() => insertAfter(node.id, 'task')}>{L('其后插入审批步骤', 'Insert a step after')}</button>}
                  {node.type !== 'end' && <button type="button" className="btn" onClick={() => insertAfter(node.id, 'exclusive')}>{L('其后插入条件分支', 'Insert a condition after')}</button>}
                  {node.type !== 'start' && <button type="button" className="btn btn-danger" onClick={() => removeNode(node.id)}>{L('删除步骤', 'Remove the step')}</button>}
                </div>
              </div>
            )}
          </div>
          <div className="card">
            <h3>{L('流程变量', 'Variables')}</h3>
            <p className="muted">{L('条件与办理人只能用这里声明的变量;发起和审批时传入的变量按类型检查。', 'Conditions and assignees use only these; values sent are checked against their type.')}</p>
            {vars.map((v, i) => (
              <div key={i} className="flow-var">
                <input aria-label={L('变量名', 'Name')} value={v.name} onChange={(e) => setDef({ ...def, variables: vars.map((x, j) => (j === i ? { ...x, name: e.target.value } : x)) })} />
                <input aria-label={L('显示名', 'Label')} placeholder={L('显示名', 'Label')} value={v.label ?? ''} onChange={(e) => setDef({ ...def, variables: vars.map((x, j) => (j === i ? { ...x, label: e.target.value } : x)) })} />
                <select aria-label={L('类型', 'Type')} value={v.type} onChange={(e) => setDef({ ...def, variables: vars.map((x, j) => (j === i ? { ...x, type: e.target.value } : x)) })}>
                  <option value="number">{L('数字', 'number')}</option><option value="text">{L('文本', 'text')}</option><option value="bool">{L('是否', 'yes/no')}</option><option value="date">{L('日期', 'date')}</option><option value="user">{L('人员', 'user')}</option>
                </select>
                <label><input type="checkbox" checked={!!v.required} onChange={(e) => setDef({ ...def, variables: vars.map((x, j) => (j === i ? { ...x, required: e.target.checked } : x)) })} />{L('必填', 'Required')}</label>
                <button type="button" className="link danger" onClick={() => setDef({ ...def, variables: vars.filter((_, j) => j !== i) })}>{L('删除', 'Remove')}</button>
                {byKey[v.name] && <div className="form-err">{byKey[v.name]}</div>}
              </div>
            ))}
            <button type="button" className="btn" onClick={() => setDef({ ...def, variables: [...vars, { name: nextId('var', vars.map((v) => v.name)), type: 'number', label: '' }] })}>{L('添加变量', 'Add a variable')}</button>
          </div>
        </div>
      </div>
    </Dialog>
  );
}

export function ModelPage() {
  const { L, st } = useL();
  const toast = useToast();
  const { props } = useApp();
  const perms = useMemo(() => new Set(props.permissions), [props.permissions]);
  const { page, setPage, data, err, load } = usePage(`${F}/model/list`);
  const [editing, setEditing] = useState<Row | null | undefined>(undefined);
  const [deploy, setDeploy] = useState<Row | null>(null);
  const [tenants, setTenants] = useState('');
  const cats = Object.fromEntries(CATEGORIES.map(([k, zh, en]) => [k, [zh, en] as [string, string]]));
  const open = async (r: Row) => setEditing(await get(`${F}/model/detail`, { id: r.id }));
  return (
    <section className="card" aria-label={L('模型设计', 'Models')}>
      <div className="card-head"><h3>{L('流程模型', 'Process models')}</h3>{perms.has('flow_model_add') && <button type="button" className="btn btn-primary" onClick={() => setEditing(null)}>{L('新建', 'New')}</button>}</div>
      {err && <div className="form-err" role="alert">{err}</div>}
      <Table label={L('流程模型', 'Process models')} empty={data ? L('暂无数据', 'No data') : L('加载中…', 'Loading…')} rows={data?.records ?? []} cols={[
        [L('模型标识', 'Key'), (r) => r.modelKey],
        [L('模型名称', 'Name'), (r) => r.name],
        [L('流程分类', 'Category'), (r) => st(cats, r.category)],
        [L('已部署版本', 'Deployed'), (r) => (r.version ? <span className="tag">v{r.version}</span> : L('未部署', 'Not deployed'))],
        [L('更新时间', 'Updated'), (r) => r.updateTime],
        [L('操作', 'Actions'), (r) => <span className="row-actions">
          {perms.has('flow_model_edit') && <button type="button" className="link" onClick={() => open(r)}>{L('设计', 'Design')}</button>}
          {perms.has('flow_model_deploy') && <button type="button" className="link" onClick={() => { setDeploy(r); setTenants(''); }}>{L('部署', 'Deploy')}</button>}
          {perms.has('flow_model_delete') && <button type="button" className="link danger" onClick={() => post(`${F}/model/remove`, undefined, { ids: r.id }).then(() => { toast(L('已删除', 'Removed')); return load(); }, (e) => toast(msg(e), 'error'))}>{L('删除', 'Remove')}</button>}
        </span>],
      ]} />
      {data && <Pager total={data.total} current={page.current} pages={data.pages} size={page.size} go={(o) => setPage({ ...page, ...o })} />}
      {editing !== undefined && <Designer model={editing} onClose={() => setEditing(undefined)} onSaved={() => { setEditing(undefined); void load(); }} />}
      <Dialog open={!!deploy} onOpenChange={(o) => { if (!o) setDeploy(null); }} title={L('部署模型', 'Deploy')} width={480}
        footer={<><button type="button" className="btn" onClick={() => setDeploy(null)}>{L('取消', 'Cancel')}</button><button type="button" className="btn btn-primary" onClick={() => post(`${F}/model/deploy`, undefined, { modelId: deploy?.id, tenantIds: tenants }).then((d) => { toast(L(`已部署 v${d.deployed?.[0]?.version ?? ''}`, `Deployed v${d.deployed?.[0]?.version ?? ''}`)); setDeploy(null); return load(); }, (e) => toast(msg(e), 'error'))}>{L('部署', 'Deploy')}</button></>}>
        <p>{L('部署为新版本;运行中的流程仍按原版本执行。', 'Deploys a new version; running instances stay on theirs.')}</p>
        <label>{L('租户(逗号分隔,空为本租户)', 'Tenants (comma separated; empty: this one)')}<input aria-label={L('租户', 'Tenants')} value={tenants} onChange={(e) => setTenants(e.target.value)} placeholder="157270,741487" /></label>
      </Dialog>
    </section>
  );
}

export function ManagerPage() {
  const { L } = useL();
  const toast = useToast();
  const { props } = useApp();
  const perms = useMemo(() => new Set(props.permissions), [props.permissions]);
  const [tenant, setTenant] = useState('');
  const { page, setPage, data, err, load } = usePage(`${F}/manager/list`, { tenantId: tenant || undefined });
  const [pic, setPic] = useState<string | null>(null);
  const [upload, setUpload] = useState(false);
  const fileRef = useRef<HTMLInputElement>(null);
  const [cat, setCat] = useState('1');
  const [targets, setTargets] = useState('');
  const [asking, ask] = useAsk();
  const q = tenant ? { tenantId: tenant } : {};
  const act = (url: string, params: Record<string, unknown>, ok: string) => post(url, undefined, { ...params, ...q }).then(() => { toast(ok); return load(); }, (e) => toast(msg(e), 'error'));
  const send = async () => {
    const files = fileRef.current?.files;
    if (!files?.length) return toast(L('请选择 BPMN 文件', 'Choose BPMN files'), 'warning');
    const fd = new FormData();
    fd.append('category', cat);
    fd.append('tenantIds', targets);
    for (const f of Array.from(files)) fd.append('files', f);
    const h = headers();
    const res = await fetch(`${F}/manager/deploy-upload`, { method: 'POST', headers: h, body: fd });
    const body = await res.json().catch(() => ({}));
    if (res.status === 200 && body.success) {
      toast(L('部署成功', 'Deployed'));
      setUpload(false);
      void load();
    } else toast(body.msg ?? L('部署失败', 'Deploy failed'), 'error');
  };
  return (
    <section className="card" aria-label={L('流程管理', 'Deployed processes')}>
      {asking}
      <div className="card-head">
        <h3>{L('流程管理', 'Deployed processes')}</h3>
        <span className="row-actions">
          <input aria-label={L('租户ID', 'Tenant')} placeholder={L('租户ID(空为本租户)', 'Tenant (empty: this one)')} value={tenant} onChange={(e) => setTenant(e.target.value.trim())} />
          {perms.has('flow_manager_upload') && <button type="button" className="btn btn-primary" onClick={() => setUpload(true)}>{L('上传部署', 'Upload BPMN')}</button>}
        </span>
      </div>
      {err && <div className="form-err" role="alert">{err}</div>}
      <Table label={L('流程管理', 'Deployed processes')} empty={data ? L('暂无数据', 'No data') : L('加载中…', 'Loading…')} rows={data?.records ?? []} cols={[
        [L('租户', 'Tenant'), (r) => r.tenantId],
        [L('流程分类', 'Category'), (r) => r.categoryName],
        [L('流程标识', 'Key'), (r) => r.key],
        [L('流程名称', 'Name'), (r) => r.name],
        [L('版本', 'Version'), (r) => <span className="tag">v{r.version}</span>],
        [L('状态', 'State'), (r) => (r.suspensionState === 1 ? L('激活', 'Active') : L('挂起', 'Suspended'))],
        [L('部署时间', 'Deployed'), (r) => r.deploymentTime],
        [L('操作', 'Actions'), (r) => <span className="row-actions">
          {perms.has('flow_manager_state') && (r.suspensionState === 1
            ? <button type="button" className="link" onClick={() => act(`${F}/manager/change-state`, { state: 'suspend', processId: r.id }, L('已挂起', 'Suspended'))}>{L('挂起', 'Suspend')}</button>
            : <button type="button" className="link" onClick={() => act(`${F}/manager/change-state`, { state: 'active', processId: r.id }, L('已激活', 'Activated'))}>{L('激活', 'Activate')}</button>)}
          <button type="button" className="link" onClick={() => setPic(r.id)}>{L('流程图', 'Diagram')}</button>
          {perms.has('flow_manager_delete') && <button type="button" className="link danger" onClick={() => void ask({ text: L('删除该版本?运行中的流程将被终止', 'Delete this version? Its running instances end') }).then((v) => { if (v !== null) void act(`${F}/manager/delete-deployment`, { deploymentIds: r.id }, L('已删除', 'Deleted')); })}>{L('删除', 'Delete')}</button>}
        </span>],
      ]} />
      {data && <Pager total={data.total} current={page.current} pages={data.pages} size={page.size} go={(o) => setPage({ ...page, ...o })} />}
      <DiagramDialog open={!!pic} onOpenChange={(o) => { if (!o) setPic(null); }} processId={pic ?? undefined} />
      <Dialog open={upload} onOpenChange={setUpload} title={L('上传部署', 'Upload BPMN')} width={520}
        footer={<><button type="button" className="btn" onClick={() => setUpload(false)}>{L('取消', 'Cancel')}</button><button type="button" className="btn btn-primary" onClick={() => void send()}>{L('部署', 'Deploy')}</button></>}>
        <p className="muted">{L('BPMN 2.0 文件:开始/结束事件、用户任务(办理人、候选人、候选组、会签)、排他网关、并行网关、连线条件。其他元素会被拒绝。', 'BPMN 2.0: start/end events, user tasks (assignee, candidates, groups, multi-instance), exclusive and parallel gateways, flow conditions. Anything else is refused.')}</p>
        <label>{L('流程分类', 'Category')}<select aria-label={L('流程分类', 'Category')} value={cat} onChange={(e) => setCat(e.target.value)}>{CATEGORIES.map(([k, zh, en]) => <option key={k} value={k}>{L(zh, en)}</option>)}</select></label>
        <label>{L('租户', 'Tenants')}<input aria-label={L('租户', 'Tenants')} value={targets} onChange={(e) => setTargets(e.target.value)} placeholder="157270,741487" /></label>
        <label>{L('文件', 'Files')}<input ref={fileRef} type="file" multiple accept=".xml,.bpmn,.bpmn20.xml" aria-label={L('文件', 'Files')} /></label>
      </Dialog>
    </section>
  );
}

export function FollowPage() {
  const { L } = useL();
  const toast = useToast();
  const { navigate, props } = useApp();
  const perms = useMemo(() => new Set(props.permissions), [props.permissions]);
  const { page, setPage, data, err, load } = usePage(`${F}/follow/list`);
  const [pic, setPic] = useState<string | null>(null);
  const [hand, setHand] = useState<{ instance: string; tasks: Row[] } | null>(null);
  const [users, setUsers] = useState<Row[]>([]);
  const [form, setForm] = useState({ taskId: '', userId: '', reason: '' });
  const openHand = async (r: Row) => {
    try {
      const d = await get(`${F}/process/diagram`, { processInstanceId: r.processInstanceId });
      if (!users.length) setUsers(await get(`${F}/work/users`));
      setForm({ taskId: d.tasks?.[0]?.taskId ?? '', userId: '', reason: '' });
      setHand({ instance: r.processInstanceId, tasks: d.tasks ?? [] });
    } catch (e) {
      toast(msg(e), 'error');
    }
  };
  const reassign = () => post(`${F}/follow/reassign`, undefined, form).then(() => { toast(L('已转办', 'Reassigned')); setHand(null); return load(); }, (e) => toast(msg(e), 'error'));
  const remove = (r: Row) => {
    const reason = window.prompt(L('删除原因', 'Why delete it?'));
    if (!reason) return;
    post(`${F}/follow/delete-process-instance`, undefined, { processInstanceId: r.processInstanceId, deleteReason: reason }).then(() => { toast(L('已删除', 'Deleted')); return load(); }, (e) => toast(msg(e), 'error'));
  };
  return (
    <section className="card" aria-label={L('流程跟踪', 'Running processes')}>
      <div className="card-head"><h3>{L('运行中的流程', 'Running processes')}</h3></div>
      {err && <div className="form-err" role="alert">{err}</div>}
      <Table label={L('流程跟踪', 'Running processes')} empty={data ? L('暂无数据', 'No data') : L('加载中…', 'Loading…')} rows={data?.records ?? []} cols={[
        [L('流程名称', 'Process'), (r) => r.processDefinitionName],
        [L('版本', 'Version'), (r) => <span className="tag">v{r.processDefinitionVersion}</span>],
        [L('发起人', 'Started by'), (r) => r.startUserName],
        [L('发起时间', 'Started'), (r) => r.startTime],
        [L('当前步骤', 'Now at'), (r) => r.taskName],
        [L('操作', 'Actions'), (r) => <span className="row-actions">
          <button type="button" className="link" onClick={() => navigate(`/work/process/${kindOf(r.category)}/detail/${r.processInstanceId}/${r.businessId || 0}`)}>{L('详情', 'Details')}</button>
          <button type="button" className="link" onClick={() => setPic(r.processInstanceId)}>{L('流程图', 'Diagram')}</button>
          {perms.has('flow_follow_delete') && <button type="button" className="link" onClick={() => void openHand(r)}>{L('转办', 'Reassign')}</button>}
          {perms.has('flow_follow_delete') && <button type="button" className="link danger" onClick={() => remove(r)}>{L('删除', 'Delete')}</button>}
        </span>],
      ]} />
      {data && <Pager total={data.total} current={page.current} pages={data.pages} size={page.size} go={(o) => setPage({ ...page, ...o })} />}
      <DiagramDialog open={!!pic} onOpenChange={(o) => { if (!o) setPic(null); }} instanceId={pic ?? undefined} />
      <Dialog open={!!hand} onOpenChange={(o) => { if (!o) setHand(null); }} title={L('转办任务', 'Reassign a task')} width={520}
        footer={<><button type="button" className="btn" onClick={() => setHand(null)}>{L('取消', 'Cancel')}</button><button type="button" className="btn btn-primary" onClick={() => void reassign()}>{L('转办', 'Reassign')}</button></>}>
        <div className="flow-form">
          <label className="wide">{L('任务', 'Task')}<select aria-label={L('任务', 'Task')} value={form.taskId} onChange={(e) => setForm({ ...form, taskId: e.target.value })}>{hand?.tasks.map((t) => <option key={t.taskId} value={t.taskId}>{t.taskName} · {t.claimable ? L('待签收', 'to claim') : t.assigneeName}</option>)}</select></label>
          <label className="wide">{L('转办给', 'To')}<select aria-label={L('转办给', 'To')} value={form.userId} onChange={(e) => setForm({ ...form, userId: e.target.value })}><option value="">—</option>{users.map((u) => <option key={u.id} value={u.id}>{u.realName}{u.deptName ? `(${u.deptName})` : ''}</option>)}</select></label>
          <label className="wide">{L('原因', 'Reason')}<input aria-label={L('原因', 'Reason')} value={form.reason} maxLength={255} onChange={(e) => setForm({ ...form, reason: e.target.value })} /></label>
        </div>
      </Dialog>
    </section>
  );
}
