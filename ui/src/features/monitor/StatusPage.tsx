// System status (platform administrator): the data file's and the logs' file's size and free space, their
// write-ahead logs, a storage failure (writes stopped), the server's own counters and requests per route minute by
// minute. Figures come from GET /api/blade-system/status (the same as Prometheus text at /api/metrics);
// `zhizhuang compact --dir DIR` (server stopped) returns the free space to the disk.
import { useCallback, useEffect, useState } from 'react';
import { useProps } from '../../app';
import { get, ApiError } from '../../lib/api';

type Status = {
  version: string; dataFile: string; fileBytes: number; allocatedBytes: number; storedBytes: number; freeBytes: number;
  uptimeSeconds: number; repairedMs: number | null; logsWritten: number; logsDropped: number;
  walksStarted: number; walksTimedOut: number; walksCancelled: number; walkSlots: number; walkDeadlineMs: number;
  index: { ready: boolean; seq: number; storeSeq: number; docs: number; diskBytes: number; rebuilds: number; lastRebuildMs: number } | null;
  walBytes: number; storageFailure: string | null; logsFile: string; logsFileBytes: number; logsAllocatedBytes: number;
  logsWalBytes: number; logsFailure: string | null; logMaxMb: number; logRetentionDays: number; apiLog: string;
  routes: { route: string; total: number; errors: number; minutes: { at: number; count: number; p50Ms: number; p99Ms: number }[] }[];
};

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
  return [
    [L('搜索索引', 'Search index'), ix.ready ? `${ix.docs} ${L('条', 'documents')}，${bytes(ix.diskBytes)}` : L('正在建立…', 'being built…'), `${ix.diskBytes}`],
    [L('索引落后', 'Index behind the store'), lag === 0 ? L('无', 'none') : `${lag} ${L('项变更', 'changes')}`],
    [L('重建次数', 'Rebuilds'), ix.rebuilds === 0 ? '0' : `${ix.rebuilds}（${L('上次', 'last')} ${ix.lastRebuildMs} ms）`],
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
    ...(st.storageFailure ? [[L('存储故障', 'Storage failure'), `${L('已停止写入', 'writes stopped')}：${st.storageFailure}`] as [string, string]] : []),
    [L('数据文件', 'Data file'), st.dataFile],
    [L('文件大小', 'File size'), bytes(st.fileBytes), `${st.fileBytes}`],
    [L('已用空间', 'In use'), bytes(st.allocatedBytes), `${st.allocatedBytes}`],
    [L('其中数据', 'Of which data'), bytes(st.storedBytes), `${st.storedBytes}`],
    [L('可用空间', 'Free inside the file'), `${bytes(st.freeBytes)}（${freePct}%）`, `${st.freeBytes}`],
    [L('待检查点日志', 'Write-ahead log'), bytes(st.walBytes), `${st.walBytes}`],
    [L('日志文件', 'Logs file'), st.logsFile],
    [L('日志占用', 'Logs in use'), `${bytes(st.logsAllocatedBytes)} / ${st.logMaxMb} MiB（${L('保留', 'kept')} ${st.logRetentionDays} ${L('天', 'days')}）`, `${st.logsAllocatedBytes}`],
    [L('日志文件大小', 'Logs file size'), bytes(st.logsFileBytes), `${st.logsFileBytes}`],
    [L('接口日志记录', 'API log records'), st.apiLog === 'all' ? L('全部请求', 'every request') : L('修改及失败的请求（读取按接口计数）', 'changes and refused or failed requests (reads counted per route)')],
    [L('运行时长', 'Uptime'), duration(st.uptimeSeconds, en)],
    [L('版本', 'Version'), st.version],
    [L('上次启动修复', 'Repair at last start'), st.repairedMs == null ? L('无（正常关闭）', 'none (clean shutdown)') : `${st.repairedMs} ms`],
    [L('已写日志', 'Log entries written'), `${st.logsWritten}`],
    [L('丢弃日志', 'Log entries shed'), `${st.logsDropped}`],
    [L('逐条查询', 'Record walks'), `${st.walksStarted}`],
    [L('超时 / 客户端取消', 'Timed out / client gone'), `${st.walksTimedOut} / ${st.walksCancelled}`],
    [L('空闲查询槽 / 时限', 'Free walk slots / deadline'), `${st.walkSlots} / ${st.walkDeadlineMs} ms`],
    ...indexRows(st.index, L),
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
