import { describe, expect, test } from 'bun:test';
import { bytes, cacheText, checkpointText, duration, indexRows, ranksText, replicaRows, spaceAge } from './StatusPage';

test('bytes are shown in binary units', () => {
  expect(bytes(512)).toBe('512 B');
  expect(bytes(1536)).toBe('1.5 KiB');
  expect(bytes(2155876352)).toBe('2.0 GiB');
  expect(bytes(300 * 1024 * 1024)).toBe('300 MiB');
});

test('uptime reads as days, hours and minutes', () => {
  expect(duration(90061, false)).toBe('1天 1小时 1分');
  expect(duration(90061, true)).toBe('1d 1h 1m');
});

test('the search index rows say how far it is behind', () => {
  const zh = (z: string) => z;
  expect(indexRows(null, zh)[0][1]).toContain('未启用');
  const rows = indexRows({
    ready: true, seq: 90, storeSeq: 100, docs: 1000, diskBytes: 2048, rebuilds: 1, lastRebuildMs: 900,
    fragments: { fields: 2, bytes: 3 * 1024 * 1024, budget: 512 * 1024 * 1024, answers: 41, lastBuildMs: 2300 },
  }, zh);
  expect(rows.map((r) => r[1])).toEqual(['1000 条，2.0 KiB', '10 项变更', '1（上次 900 ms）', '2 个字段，3.0 MiB / 512 MiB，已回答 41 次包含查询（上次建立 2300 ms）']);
  const logged = indexRows({ ready: true, seq: 100, storeSeq: 100, logPruned: 40, docs: 1, diskBytes: 1, rebuilds: 0, lastRebuildMs: 0 }, zh);
  expect(logged[2]).toEqual(['变更日志', '60 项（索引收录后清理）']);
  expect(indexRows({ ready: true, seq: 100, storeSeq: 100, logPruned: 100, docs: 1, diskBytes: 1, rebuilds: 0, lastRebuildMs: 0 }, zh)[2][1]).toBe('已清空');
  expect(indexRows({ ready: false, seq: 0, storeSeq: 5, docs: 0, diskBytes: 0, rebuilds: 0, lastRebuildMs: 0 }, zh)[0][1]).toBe('正在建立…');
});

describe('replicaRows', () => {
  const L = (zh: string, _en: string) => zh;
  test('a primary says where it ships, how far behind, and what is wrong with the bucket', () => {
    const rows = replicaRows({
      role: 'primary', target: 's3://b/p@http://x', generation: 'g1', shippedSeq: 90, shippedAt: 1_700_000_000_000, durableSeq: 120, lagMs: 65_000,
      reachable: false, lastOk: null, problem: { zh: '无法连接对象存储地址', en: 'unreachable' }, localBytes: 2048, segmentsSent: 5, bytesSent: 4096,
      snapshots: [{ seq: 1, at: 1_700_000_000_000 }], snapshotting: false, fenced: null, broken: false,
    }, L, false);
    const text = rows.map((r) => r.join(' ')).join('\n');
    expect(text).toContain('主服务器 → s3://b/p@http://x');
    expect(text).toContain('不可访问，变更暂存本机');
    expect(text).toContain('无法连接对象存储地址');
    expect(text).toContain('#90 / #120');
    expect(text).toContain('65.0 s');
    expect(text).toContain('2.0 KiB');
  });
  test('a replaced primary says so first', () => {
    const rows = replicaRows({
      role: 'primary', target: 't', generation: 'g', shippedSeq: 1, shippedAt: null, durableSeq: 1, lagMs: 0, reachable: true, lastOk: 1, problem: null,
      localBytes: 0, segmentsSent: 0, bytesSent: 0, snapshots: [], snapshotting: true, fenced: 'g2 (host2, http://new)', broken: false,
    }, L, false);
    expect(rows[0][0]).toBe('已被接替');
    expect(rows.map((r) => r[1]).join('\n')).toContain('正在生成第一个快照');
  });
  test('a standby names its primary and says when it is caught up', () => {
    const rows = replicaRows({
      role: 'standby', target: 't', generation: 'g', appliedSeq: 7, appliedAt: 1_700_000_000_000, lagMs: 0, reachable: true, problem: null,
      primary: { generation: 'g', host: 'h', url: 'http://primary', since: 1_700_000_000_000 }, segmentsApplied: 3, stopped: null,
    }, L, false);
    const text = rows.map((r) => r.join(' ')).join('\n');
    expect(text).toContain('只读备用服务器 ← t');
    expect(text).toContain('http://primary');
    expect(text).toContain('已同步');
  });
  test('without a replica it says the data lives on this disk only', () => {
    expect(replicaRows(null, L, false)[0][1]).toContain('数据只在本机磁盘上');
  });
});

describe('cacheText and spaceAge', () => {
  const zh = (a: string) => a;
  test('the page cache says what it holds and its hit rate', () => {
    expect(cacheText({ capacityBytes: 1 << 30, usedBytes: 512 << 20, readHits: 990, readMisses: 10 }, bytes, zh)).toBe(`${bytes(512 << 20)} / ${bytes(1 << 30)}（命中率 99.0%）`);
    expect(cacheText({ capacityBytes: 64 << 20, usedBytes: 0, readHits: 0, readMisses: 0 }, bytes, zh)).toContain('命中率 —');
  });
  test('an old space figure says how old', () => {
    expect(spaceAge(30, zh)).toBe('');
    expect(spaceAge(300, zh)).toBe('（5 分钟前统计）');
  });
});

describe('checkpointText', () => {
  const zh = (z: string) => z;
  const en = (_: string, e: string) => e;
  test('the last checkpoint: how long it held writes and reached the disk, the longest hold, how many', () => {
    const c = { count: 123, lastWriterMs: 38.4, maxWriterMs: 45.2, lastDiskMs: 151.7 };
    expect(checkpointText(c, zh)).toBe('上次占用写入 38 ms，落盘 152 ms（最长占用 45 ms，共 123 次）');
    expect(checkpointText(c, en)).toBe('last held writes 38 ms, on disk after 152 ms (longest hold 45 ms, 123 in all)');
    expect(checkpointText({ ...c, lastWriterMs: 2.25 }, zh)).toContain('上次占用写入 2.3 ms');
  });
  test('checkpoints put off while the disk had not taken the one before', () => {
    const c = { count: 40, lastWriterMs: 12, maxWriterMs: 30, lastDiskMs: 900, postponed: 3 };
    expect(checkpointText(c, zh)).toBe('上次占用写入 12 ms，落盘 900 ms（最长占用 30 ms，共 40 次，3 次因上次未落盘而推迟）');
    expect(checkpointText(c, en)).toBe('last held writes 12 ms, on disk after 900 ms (longest hold 30 ms, 40 in all, 3 put off until the one before was on disk)');
    expect(checkpointText({ ...c, postponed: 0 }, zh)).not.toContain('推迟');
  });
  test('none yet', () => {
    expect(checkpointText({ count: 0, lastWriterMs: 0, maxWriterMs: 0, lastDiskMs: 0 }, zh)).toBe('尚无');
  });
});

describe('ranksText', () => {
  test('the marks and id sets deep pages keep, against the sets\' bound', () => {
    const r = { lists: 3, sorted: 2, filteredSorted: 1, marksBytes: 1536, sets: 2, setBytes: 8 * 1024 * 1024, setMaxBytes: 64 * 1024 * 1024 };
    expect(ranksText(r, bytes, (z) => z)).toBe('标记 1.5 KiB（列表 3、排序 2、筛选排序 1），编号集合 8.0 MiB / 64.0 MiB（2 个）');
    expect(ranksText(r, bytes, (_, e) => e)).toBe('marks 1.5 KiB (3 lists, 2 sorts, 1 filtered sorts), id sets 8.0 MiB / 64.0 MiB (2)');
  });
});
