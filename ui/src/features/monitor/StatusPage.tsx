// System status (platform administrator): the data file's and the logs' file's size and free space, their
// write-ahead logs, a storage failure (writes stopped), the server's own counters, the off-site replica (shipping or
// following, its lag, the bucket's state; set here from the next start) and requests per route minute by minute. Figures come from GET /api/blade-system/status (the same as Prometheus text at /api/metrics);
// `zhizhuang compact --dir DIR` (server stopped) returns the free space to the disk.
import { useCallback, useEffect, useState } from 'react';
import { useProps } from '../../app';
import { get, post, ApiError } from '../../lib/api';

type Status = {
  version: string; dataFile: string; fileBytes: number; allocatedBytes: number; storedBytes: number; freeBytes: number; spaceAgeSeconds?: number;
  cache?: { capacityBytes: number; usedBytes: number; readHits: number; readMisses: number };
  /** Records of the data file read unpacked from memory (hits) or unpacked again (misses). */
  unpackedCache?: { bytes: number; room: number; hits: number; misses: number };
  checkpoints?: Checkpoints;
  ranks?: Ranks;
  uptimeSeconds: number; repairedMs: number | null; logsWritten: number; logsDropped: number;
  logsWriter?: { running: boolean; restarts: number; lastFailure: { at: string; reason: string } | null };
  upgradeCopies?: { name: string; bytes: number; at: string }[];
  walksStarted: number; walksTimedOut: number; walksCancelled: number; walkSlots: number; walkDeadlineMs: number;
  index: {
    ready: boolean; seq: number; storeSeq: number; docs: number; diskBytes: number; rebuilds: number; lastRebuildMs: number;
    /** The change log holds the changes after this one (those the index holds go 30 s later). */
    logPruned?: number;
    fragments?: { fields: number; bytes: number; budget: number; answers: number; lastBuildMs: number };
  } | null;
  walBytes: number; storageFailure: string | null; logsFile: string; logsFileBytes: number; logsAllocatedBytes: number;
  logsWalBytes: number; logsFailure: string | null; logMaxMb: number; logRetentionDays: number; apiLog: string;
  routes: { route: string; total: number; errors: number; minutes: { at: number; count: number; p50Ms: number; p99Ms: number }[] }[];
  readOnly: string | null;
  format?: { data: number; logs: number | null; writtenBy: string; deferred?: string[] } | null;
  auditPrunedBySize?: { count: number; last: number; lastAt: string } | null;
  secretKey?: { id: string; source: string; otherKey: number };
  replica: Replica | null;
  replicaConfig: { url: string; endpoint: string; region: string; accessKey: string; hasSecret: boolean } | null;
};

type Bilingual = { zh: string; en: string } | null;
/** Shipping to a bucket (`serve --replicate`) or following one (`serve --follow`): GET /api/blade-system/status's `replica`. */
export type Replica =
  | { role: 'primary'; target: string; generation: string; shippedSeq: number; shippedAt: number | null; durableSeq: number; lagMs: number; reachable: boolean;
      lastOk: number | null; problem: Bilingual; localBytes: number; segmentsSent: number; bytesSent: number; snapshots: { seq: number; at: number }[];
      snapshotting: boolean; fenced: string | null; broken: boolean; orphaned?: number; renewed?: number | null; noConditionalWrites?: boolean }
  | { role: 'standby'; target: string; generation: string; appliedSeq: number; appliedAt: number | null; lagMs: number; reachable: boolean;
      problem: Bilingual; primary: { generation: string; host: string; url: string; since: number } | null; segmentsApplied: number; stopped: Bilingual };

const when = (ms: number | null | undefined, en: boolean) => (ms ? new Date(ms).toLocaleString(en ? 'en-GB' : 'zh-CN', { hour12: false }) : '—');

/** The replica's rows: where it ships or follows, how far behind, whether the bucket answers, what went wrong. */
export function replicaRows(r: Replica | null, L: (zh: string, en: string) => string, en: boolean): [string, string, string?][] {
  if (!r) return [[L('异地备份', 'Off-site replica'), L('未配置（数据只在本机磁盘上；可在下方设置）', 'not configured (the data lives on this disk only; set it below)')]];
  const problem = r.problem ? [[L('对象存储问题', 'Bucket problem'), en ? r.problem.en : r.problem.zh] as [string, string]] : [];
  if (r.role === 'primary') {
    return [
      ...(r.fenced ? [[L('已被接替', 'Replaced'), `${L('另一台服务器已成为主服务器，本机停止写入和备份', 'another server became the primary; this one stopped writing and shipping')}：${r.fenced}`] as [string, string]] : []),
      ...(r.orphaned ? [[L('未备份的修改', 'Changes never shipped'), L(`本机在被接替前确认的 ${r.orphaned} 条修改没有到达备份空间，已保留在本机备份目录；运行 zhizhuang fenced --dir <数据目录> 列出它们，以便在新的主服务器上核对补录`,
        `${r.orphaned} changes acknowledged here before another server took over never reached the replica; they are kept in this machine's ship directory: run zhizhuang fenced --dir <DIR> to list them and reconcile them on the new primary`)] as [string, string]] : []),
      ...(r.noConditionalWrites ? [[L('无法防止双主', 'No fencing'), L('该对象存储不支持条件写入（If-None-Match/If-Match），无法保证只有一台主服务器：请改用 AWS S3、MinIO、SeaweedFS 4.48+ 或 Ceph RGW',
        'this object store ignores conditional writes (If-None-Match / If-Match), so it cannot keep two servers from both taking writes: use AWS S3, MinIO, SeaweedFS 4.48+ or Ceph RGW')] as [string, string]] : []),
      ...(r.broken ? [[L('备份中断', 'Stream broken'), L('对象存储长时间不可达，本地积压已丢弃；恢复连接后将重新发送完整快照', 'the bucket was unreachable too long and the local backlog was dropped; a full snapshot is sent when it answers')] as [string, string]] : []),
      [L('异地备份', 'Off-site replica'), `${L('主服务器', 'primary')} → ${r.target}（${L('第', 'generation ')}${r.generation}${L(' 代', '')}）`],
      [L('对象存储', 'Bucket'), r.reachable ? L('可访问', 'reachable') : L('不可访问，变更暂存本机', 'unreachable; changes wait on this disk')],
      ...(r.renewed ? [[L('主服务器租约', 'Primary lease'), `${L('续约于', 'renewed at')} ${when(r.renewed, en)}`] as [string, string]] : []),
      ...problem,
      [L('已备份到', 'Shipped up to'), `#${r.shippedSeq} / #${r.durableSeq}（${when(r.shippedAt, en)}）`],
      [L('备份延迟', 'Lag'), r.lagMs === 0 ? L('无', 'none') : `${(r.lagMs / 1000).toFixed(1)} s`],
      [L('本机待发送', 'Waiting on disk'), bytes(r.localBytes), `${r.localBytes}`],
      [L('已发送', 'Sent'), `${r.segmentsSent} ${L('段', 'segments')}，${bytes(r.bytesSent)}`],
      [L('快照', 'Snapshots'), r.snapshots.length === 0 ? (r.snapshotting ? L('正在生成第一个快照…', 'the first snapshot is being made…') : '—')
        : `${r.snapshots.length} ${L('个，最新', ', newest')} ${when(r.snapshots[r.snapshots.length - 1].at, en)}${r.snapshotting ? L('（正在生成新快照）', ' (a new one is being made)') : ''}`],
    ];
  }
  return [
    ...(r.stopped ? [[L('已停止跟随', 'Stopped following'), en ? r.stopped.en : r.stopped.zh] as [string, string]] : []),
    [L('异地备份', 'Off-site replica'), `${L('只读备用服务器', 'read-only standby')} ← ${r.target}`],
    [L('主服务器', 'Primary'), r.primary ? `${r.primary.url || r.primary.host}（${L('自', 'since')} ${when(r.primary.since, en)}）` : '—'],
    [L('对象存储', 'Bucket'), r.reachable ? L('可访问', 'reachable') : L('不可访问', 'unreachable')],
    ...problem,
    [L('已同步到', 'Applied up to'), `#${r.appliedSeq}（${L('主服务器提交于', 'committed on the primary at')} ${when(r.appliedAt, en)}）`],
    [L('落后主服务器', 'Behind the primary'), r.lagMs === 0 ? L('已同步', 'caught up') : `${(r.lagMs / 1000).toFixed(1)} s`],
  ];
}

/** The replica a platform administrator sets here: used from the server's next start. */
function ReplicaForm({ cfg, L, onSaved }: { cfg: Status['replicaConfig']; L: (zh: string, en: string) => string; onSaved: () => void }) {
  const [v, setV] = useState({ url: cfg?.url ?? '', endpoint: cfg?.endpoint ?? '', region: cfg?.region ?? '', accessKey: '', secretKey: '' });
  const [msg, setMsg] = useState<{ ok: boolean; text: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const set = (k: keyof typeof v) => (e: { target: { value: string } }) => setV({ ...v, [k]: e.target.value });
  const save = async (clear: boolean) => {
    setBusy(true);
    setMsg(null);
    try {
      await post('/api/blade-system/status/replica', clear ? { url: '' } : v);
      setMsg({ ok: true, text: clear ? L('已清除，重启服务后停止异地备份', 'Cleared: shipping stops at the next restart') : L('连接成功并已保存，重启服务后开始异地备份', 'Connected and saved: shipping starts at the next restart') });
      onSaved();
    } catch (e) {
      setMsg({ ok: false, text: e instanceof ApiError ? e.message : String(e) });
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="replica-form" aria-label={L('异地备份设置', 'Off-site replica settings')} onSubmit={(e) => { e.preventDefault(); void save(false); }}>
      <h3>{L('异地备份设置', 'Off-site replica settings')}</h3>
      <p className="hint">{L('每次修改在 1 秒内备份到对象存储（MinIO、阿里云 OSS 等兼容 S3 的存储），可恢复到任意时刻。密钥只保存在本机数据目录，不会返回页面。', 'Every change reaches the bucket (MinIO, Aliyun OSS or any S3-compatible store) within a second and can be restored to any moment. The keys stay in the data directory and are never shown again.')}</p>
      <label><span>{L('备份地址', 'Replica')}</span><input required placeholder="s3://bucket/company" value={v.url} onChange={set('url')} /></label>
      <label><span>{L('资源地址', 'Endpoint')}</span><input placeholder="https://oss-cn-hangzhou.aliyuncs.com" value={v.endpoint} onChange={set('endpoint')} /></label>
      <label><span>{L('地域', 'Region')}</span><input placeholder="us-east-1" value={v.region} onChange={set('region')} /></label>
      <label><span>accessKey</span><input autoComplete="off" placeholder={cfg?.accessKey || ''} value={v.accessKey} onChange={set('accessKey')} /></label>
      <label><span>secretKey</span><input type="password" autoComplete="new-password" placeholder={cfg?.hasSecret ? L('已保存（留空不变）', 'saved (blank keeps it)') : ''} value={v.secretKey} onChange={set('secretKey')} /></label>
      <div className="toolbar">
        <button type="submit" className="btn btn-primary" disabled={busy}>{L('测试连接并保存', 'Test and save')}</button>
        {cfg && <button type="button" className="btn" disabled={busy} onClick={() => void save(true)}>{L('清除', 'Clear')}</button>}
      </div>
      {msg && <div className={msg.ok ? 'form-ok' : 'form-err'} role={msg.ok ? 'status' : 'alert'}>{msg.text}</div>}
    </form>
  );
}

/** 1536 → "1.5 KiB"; exact bytes stay in the title attribute. */
export function bytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) { v /= 1024; i++; }
  return i === 0 ? `${n} B` : `${v.toFixed(v >= 100 ? 0 : 1)} ${units[i]}`;
}

export function duration(s: number, en: boolean): string {
  const d = Math.floor(s / 86400), h = Math.floor((s % 86400) / 3600), m = Math.floor((s % 3600) / 60);
  return en ? `${d}d ${h}h ${m}m` : `${d}天 ${h}小时 ${m}分`;
}

/** The search index's rows: documents and size, how far it is behind the store, rebuilds. */
export function indexRows(ix: Status['index'], L: (zh: string, en: string) => string): [string, string, string?][] {
  if (!ix) return [[L('搜索索引', 'Search index'), L('未启用（文本条件逐条比对）', 'off (text filters walk the records)')]];
  const lag = Math.max(0, ix.storeSeq - ix.seq);
  const fr = ix.fragments ?? { fields: 0, bytes: 0, budget: 0, answers: 0, lastBuildMs: 0 };
  return [
    [L('搜索索引', 'Search index'), ix.ready ? `${ix.docs} ${L('条', 'documents')}，${bytes(ix.diskBytes)}` : L('正在建立…', 'being built…'), `${ix.diskBytes}`],
    [L('索引落后', 'Index behind the store'), lag === 0 ? L('无', 'none') : `${lag} ${L('项变更', 'changes')}`],
    ...(ix.logPruned === undefined ? [] : [[
      L('变更日志', 'Change log'),
      ix.storeSeq <= ix.logPruned ? L('已清空', 'empty') : `${ix.storeSeq - ix.logPruned} ${L('项（索引收录后清理）', 'entries (pruned once indexed)')}`,
    ] as [string, string]]),
    [L('重建次数', 'Rebuilds'), ix.rebuilds === 0 ? '0' : `${ix.rebuilds}（${L('上次', 'last')} ${ix.lastRebuildMs} ms）`],
    [
      L('内存片段索引', 'Fragments in memory'),
      `${fr.fields} ${L('个字段', 'fields')}，${bytes(fr.bytes)} / ${bytes(fr.budget)}，${L('已回答', 'answered')} ${fr.answers} ${L('次包含查询', 'contains filters')}` +
        (fr.lastBuildMs ? `（${L('上次建立', 'last built in')} ${fr.lastBuildMs} ms）` : ''),
      `${fr.bytes}`,
    ],
  ];
}

export function StatusPage() {
  const props = useProps();
  const en = props.locale === 'en';
  const L = (zh: string, e: string) => (en ? e : zh);
  const [st, setSt] = useState<Status | null>(null);
  const [err, setErr] = useState<string | null>(null);
  const load = useCallback(async () => {
    try { setSt(await get<Status>('/api/blade-system/status')); setErr(null); } catch (e) { setErr(e instanceof ApiError ? e.message : String(e)); }
  }, []);
  useEffect(() => { void load(); }, [load]);
  const freePct = st && st.fileBytes > 0 ? Math.round((st.freeBytes / st.fileBytes) * 100) : 0;
  const rows: [string, string, string?][] = st ? [
    ...(st.storageFailure ? [[L('存储故障', 'Storage failure'), `${L('已停止写入', 'writes stopped')}：${st.storageFailure}`] as [string, string],
      [L('处理办法', 'What to do'), L('已确认的写入都在磁盘上，不会丢失。请检查磁盘空间和磁盘健康（df -h、dmesg），腾出空间或更换磁盘后重启服务（systemctl restart zhizhuang）；重启前系统只能查询。',
        'Every acknowledged write is on disk. Check the disk\'s free space and health (df -h, dmesg), free space or replace the disk, then restart the service (systemctl restart zhizhuang); until then the server only reads.')] as [string, string]] : []),
    ...(st.logsWriter && !st.logsWriter.running ? [[L('日志写入已停止', 'Log writer stopped'), (st.logsWriter.lastFailure?.reason ?? '') + L(
      '。接口、登录和错误日志暂不写入；写操作的接口日志暂存在数据文件中，重启后补写。请重启服务（systemctl restart zhizhuang）并把服务日志中的原因告知维护人员。',
      '. API, sign-in and error logs are not written for now; the api-log entries of writes wait in the data file and are written after a restart. Restart the service (systemctl restart zhizhuang) and pass the reason in the service log to support.')] as [string, string]] : []),
    [L('数据文件', 'Data file'), st.dataFile],
    [L('文件大小', 'File size'), bytes(st.fileBytes), `${st.fileBytes}`],
    [L('已用空间', 'In use'), bytes(st.allocatedBytes) + spaceAge(st.spaceAgeSeconds, L), `${st.allocatedBytes}`],
    [L('其中数据', 'Of which data'), bytes(st.storedBytes), `${st.storedBytes}`],
    [L('可用空间', 'Free inside the file'), `${bytes(st.freeBytes)}（${freePct}%）`, `${st.freeBytes}`],
    [L('待检查点日志', 'Write-ahead log'), bytes(st.walBytes), `${st.walBytes}`],
    ...(st.cache ? [[L('页面缓存', 'Page cache'), cacheText(st.cache, bytes, L), `${st.cache.capacityBytes}`] as [string, string, string]] : []),
    ...(st.unpackedCache ? [[
      L('解压记录缓存', 'Unpacked records'),
      cacheText({ capacityBytes: st.unpackedCache.room, usedBytes: st.unpackedCache.bytes, readHits: st.unpackedCache.hits, readMisses: st.unpackedCache.misses }, bytes, L),
      `${st.unpackedCache.room}`,
    ] as [string, string, string]] : []),
    ...(st.checkpoints ? [[L('检查点', 'Checkpoints'), checkpointText(st.checkpoints, L), `${st.checkpoints.count}`] as [string, string, string]] : []),
    ...(st.ranks ? [[L('深页缓存', 'Deep-page memory'), ranksText(st.ranks, bytes, L), `${st.ranks.marksBytes + st.ranks.setBytes}`] as [string, string, string]] : []),
    [L('日志文件', 'Logs file'), st.logsFile],
    [L('日志占用', 'Logs in use'), `${bytes(st.logsAllocatedBytes)} / ${st.logMaxMb} MiB（${L('保留', 'kept')} ${st.logRetentionDays} ${L('天', 'days')}）`, `${st.logsAllocatedBytes}`],
    [L('日志文件大小', 'Logs file size'), bytes(st.logsFileBytes), `${st.logsFileBytes}`],
    [L('接口日志记录', 'API log records'), st.apiLog === 'all' ? L('全部请求', 'every request') : L('修改及失败的请求（读取按接口计数）', 'changes and refused or failed requests (reads counted per route)')],
    [L('运行时长', 'Uptime'), duration(st.uptimeSeconds, en)],
    [L('版本', 'Version'), st.version],
    ...(st.format ? [[L('文件格式', 'File format'), L(`数据文件 ${st.format.data}、日志文件 ${st.format.logs ?? '—'}（最近写入：${st.format.writtenBy || '—'}）`,
      `data file ${st.format.data}, logs file ${st.format.logs ?? '—'} (last written by ${st.format.writtenBy || '—'})`)] as [string, string]] : []),
    ...(st.format?.deferred?.length ? [[L('格式升级', 'Format upgrade'), L(`等待中：磁盘空间不足以先保留副本（${st.format.deferred.join('；')}）；腾出空间后重启即升级，当前格式照常使用`,
      `waiting: no room on the disk for the copy kept first (${st.format.deferred.join('; ')}); free space and restart to upgrade, the current format works as before`)] as [string, string]] : []),
    ...(st.upgradeCopies?.length ? [[L('升级前副本', 'Copies kept by upgrades'), st.upgradeCopies.map((c) => `${c.name}（${bytes(c.bytes)}，${c.at}）`).join('；')
      + L('。确认升级无误后可删除以腾出磁盘空间（数据目录中）。', '. Once the upgrade is confirmed they can be deleted from the data directory to free the disk.'),
      `${st.upgradeCopies.reduce((n, c) => n + c.bytes, 0)}`] as [string, string, string]] : []),
    [L('上次启动修复', 'Repair at last start'), st.repairedMs == null ? L('无（正常关闭）', 'none (clean shutdown)') : `${st.repairedMs} ms`],
    [L('已写日志', 'Log entries written'), `${st.logsWritten}`],
    ...(st.logsWriter ? [[L('日志写入', 'Log writer'), !st.logsWriter.running ? L('已停止', 'stopped')
      : st.logsWriter.restarts === 0 ? L('运行中', 'running')
      : L(`运行中（曾失败 ${st.logsWriter.restarts} 次并自动重启，最近一次 ${st.logsWriter.lastFailure?.at ?? ''}：${st.logsWriter.lastFailure?.reason ?? ''}；该批日志可能缺失）`,
        `running (failed ${st.logsWriter.restarts} times and started again, last at ${st.logsWriter.lastFailure?.at ?? ''}: ${st.logsWriter.lastFailure?.reason ?? ''}; that batch's entries may be missing)`), `${st.logsWriter.restarts}`] as [string, string, string]] : []),
    [L('丢弃日志', 'Log entries shed'), `${st.logsDropped}`],
    ...(st.auditPrunedBySize ? [[L('因容量删除的审计日志', 'Audit entries removed by the size cap'),
      L(`共 ${st.auditPrunedBySize.count} 条（最近一次 ${st.auditPrunedBySize.lastAt} 删除 ${st.auditPrunedBySize.last} 条）；请调大 --log-max-mb`,
        `${st.auditPrunedBySize.count} in all (last ${st.auditPrunedBySize.last} at ${st.auditPrunedBySize.lastAt}); raise --log-max-mb`)] as [string, string]] : []),
    ...(st.secretKey ? [[L('密钥文件', 'Secret key'), `${st.secretKey.source}（${st.secretKey.id}）` + (st.secretKey.otherKey > 0
      ? L(`；${st.secretKey.otherKey} 项密钥由另一把密钥加密，无法使用：请放回原 secret.key 或重新填写`, `; ${st.secretKey.otherKey} secrets were sealed with another key and cannot be used: put the original secret.key back or enter them again`)
      : '')] as [string, string]] : []),
    [L('逐条查询', 'Record walks'), `${st.walksStarted}`],
    [L('超时 / 客户端取消', 'Timed out / client gone'), `${st.walksTimedOut} / ${st.walksCancelled}`],
    [L('空闲查询槽 / 时限', 'Free walk slots / deadline'), `${st.walkSlots} / ${st.walkDeadlineMs} ms`],
    ...indexRows(st.index, L),
  ] : [];
  const replica: [string, string, string?][] = st ? [
    ...(st.readOnly && !st.replica ? [[L('只读', 'Read only'), st.readOnly] as [string, string]] : []),
    ...replicaRows(st.replica, L, en),
  ] : [];
  return (
    <section className="status-page" aria-label={L('系统状态', 'System status')}>
      <div className="toolbar"><button type="button" className="btn" onClick={() => void load()}>{L('刷新', 'Refresh')}</button></div>
      {err && <div className="form-err" role="alert">{err}</div>}
      {!st && !err && <p>{L('加载中…', 'Loading…')}</p>}
      {st && (
        <table className="kv">
          <tbody>
            {rows.map(([k, v, title]) => (<tr key={k}><th scope="row">{k}</th><td title={title}>{v}</td></tr>))}
          </tbody>
        </table>
      )}
      {st && (
        <table className="kv" aria-label={L('异地备份', 'Off-site replica')}>
          <tbody>
            {replica.map(([k, v, title]) => (<tr key={k}><th scope="row">{k}</th><td title={title}>{v}</td></tr>))}
          </tbody>
        </table>
      )}
      {st && st.replica?.role !== 'standby' && <ReplicaForm cfg={st.replicaConfig} L={L} onSaved={() => void load()} />}
      {st && st.routes.length > 0 && (
        <table className="grid route-figures" aria-label={L('接口请求（每分钟）', 'Requests per route (by minute)')}>
          <thead>
            <tr><th>{L('接口', 'Route')}</th><th>{L('总数', 'Total')}</th><th>{L('失败', 'Failed')}</th><th>{L('上一分钟', 'Last minute')}</th><th>p50</th><th>p99</th></tr>
          </thead>
          <tbody>
            {st.routes.slice(0, 20).map((r) => {
              const last = r.minutes[r.minutes.length - 1];
              return (
                <tr key={r.route}>
                  <td className="route">{r.route}</td><td>{r.total}</td><td>{r.errors}</td>
                  <td>{last ? last.count : '—'}</td><td>{last ? `${last.p50Ms} ms` : '—'}</td><td>{last ? `${last.p99Ms} ms` : '—'}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      {st && freePct >= 25 && (
        <p className="hint">{L('可用空间较多：停止服务后运行 zhizhuang compact --dir 数据目录 可归还磁盘空间。', 'Much free space: stop the server and run zhizhuang compact --dir DIR to return it to the disk.')}</p>
      )}
    </section>
  );
}

/** The pages in use are counted at most every ten minutes (counting pauses writes): say how old the figure is. */
export function spaceAge(sec: number | undefined, L: (zh: string, en: string) => string): string {
  if (!sec || sec < 60) return '';
  const m = Math.floor(sec / 60);
  return L(`（${m} 分钟前统计）`, ` (counted ${m} min ago)`);
}

type Checkpoints = { count: number; lastWriterMs: number; maxWriterMs: number; lastDiskMs: number; postponed?: number };

/** The write-ahead log's checkpoints: how long the last held the writer (writes wait meanwhile) and took to reach the
 * disk (from its start), the longest hold, how many since the start, and how many were put off because the disk
 * had not yet taken the one before (often: the disk is slow for the writes it gets). */
export function checkpointText(c: Checkpoints, L: (zh: string, en: string) => string): string {
  if (c.count === 0) return L('尚无', 'none yet');
  const ms = (v: number) => `${v < 10 ? v.toFixed(1) : Math.round(v)} ms`;
  const [w, d, m] = [ms(c.lastWriterMs), ms(c.lastDiskMs), ms(c.maxWriterMs)];
  const p = c.postponed ? L(`，${c.postponed} 次因上次未落盘而推迟`, `, ${c.postponed} put off until the one before was on disk`) : '';
  return L(`上次占用写入 ${w}，落盘 ${d}（最长占用 ${m}，共 ${c.count} 次${p}）`, `last held writes ${w}, on disk after ${d} (longest hold ${m}, ${c.count} in all${p})`);
}

type Ranks = { lists: number; sorted: number; filteredSorted: number; marksBytes: number; sets: number; setBytes: number; setMaxBytes: number };

/** What deep pages keep in memory between requests: rank marks (of lists, sort indexes and filtered sorts) and the id
 * sets lists with several exact filters intersect, against the sets' bound. */
export function ranksText(r: Ranks, bytes: (n: number) => string, L: (zh: string, en: string) => string): string {
  const marks = L(`标记 ${bytes(r.marksBytes)}（列表 ${r.lists}、排序 ${r.sorted}、筛选排序 ${r.filteredSorted}）`, `marks ${bytes(r.marksBytes)} (${r.lists} lists, ${r.sorted} sorts, ${r.filteredSorted} filtered sorts)`);
  const sets = L(`编号集合 ${bytes(r.setBytes)} / ${bytes(r.setMaxBytes)}（${r.sets} 个）`, `id sets ${bytes(r.setBytes)} / ${bytes(r.setMaxBytes)} (${r.sets})`);
  return L(`${marks}，${sets}`, `${marks}, ${sets}`);
}

/** The data file's page cache: held of its size, and the share of page reads it answered since the start. */
export function cacheText(c: { capacityBytes: number; usedBytes: number; readHits: number; readMisses: number }, bytes: (n: number) => string, L: (zh: string, en: string) => string): string {
  const reads = c.readHits + c.readMisses;
  const rate = reads > 0 ? `${((c.readHits / reads) * 100).toFixed(1)}%` : '—';
  return `${bytes(c.usedBytes)} / ${bytes(c.capacityBytes)}（${L('命中率', 'hit rate')} ${rate}）`;
}
