#!/usr/bin/env python3
"""Lays a server's ZZ_TRACE timeline beside a `bench load` BENCH_TIMELINE (issue 57: where a tail comes from).

Usage: bench/trace.py TRACE TIMELINE [SLOWEST]
Prints, for the span of the load: the writer's batches (busy share, longest), the write-ahead log's syncs (p50,
p99, longest), checkpoints' holds, the data file's syncs and search index commits of each store; the data
writer's durable batches by size (what an item costs in operations and what a batch costs besides: the log's append
and sync and redb's commit, so what rate the writer could keep up with batches of that size); then, for the
SLOWEST (3) requests, every event longer than 1 ms from 20 ms before each was due until it was answered.
"""
import sys

trace, timeline = sys.argv[1], sys.argv[2]
slowest = int(sys.argv[3]) if len(sys.argv) > 3 else 3
lines = open(timeline).read().split('\n')
if not lines[0].startswith('# '):
    sys.exit('the timeline has no "# START" line: a bench binary from before trace.py')
began = int(lines[0][2:]) * 1000
reqs = [(began + int(a) * 1000, int(l)) for a, l in (x.split() for x in lines[1:] if x)]
t0, t1 = reqs[0][0], max(s + l for s, l in reqs)
events = []
for line in open(trace):
    p = line.split()
    kind, start, dur, thread = p[0], int(p[1]), int(p[2]), p[-1]
    events.append((start, dur, kind, thread, ' '.join(p[3:-1])))
events.sort()
span = [e for e in events if t0 <= e[0] <= t1]
secs = (t1 - t0) / 1e6


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(len(xs) * p))] / 1e3 if xs else 0.0


print(f'{len(reqs)} requests over {secs:.1f} s; latency p50 {pct([l for _, l in reqs], .5):.2f} p99 '
      f'{pct([l for _, l in reqs], .99):.2f} max {pct([l for _, l in reqs], 1):.2f} ms')
for thread in sorted({e[3] for e in span}):
    mine = [e for e in span if e[3] == thread]
    for kind in ('batch', 'sync', 'checkpoint', 'fsync', 'pages', 'index'):
        d = [e[1] for e in mine if e[2] == kind]
        if d:
            print(f'  {thread:16} {kind:10} n={len(d):6} busy {sum(d) / 1e4 / secs:5.1f}% p50 {pct(d, .5):7.2f} '
                  f'p99 {pct(d, .99):7.2f} max {pct(d, 1):7.2f} ms')
# A batch line: "batch START DUR ITEMS OPS_US durable|lazy @thread" (DUR: operations, the log's append and sync,
# redb's commit).
sizes = [(1, 1), (2, 2), (3, 3), (4, 4), (5, 8), (9, 16), (17, 32), (33, 64), (65, 10**9)]
batches = [(int(m.split()[0]), int(m.split()[1]), d) for _, d, k, t, m in span
           if k == 'batch' and t == '@zz-writer' and m.endswith('durable')]
if batches:
    items = sum(n for n, _, _ in batches)
    print(f'\n  the data writer: durable batches by size ({len(batches)} batches, {items} items; per item: the median '
          'batch operations / size; besides: its append, sync and commit; rate: items a second at that size)')
    for lo, hi in sizes:
        b = [(n, ops, d) for n, ops, d in batches if lo <= n <= hi]
        if not b:
            continue
        n_med = sorted(n for n, _, _ in b)[len(b) // 2]
        per_item = pct([ops / n for n, ops, _ in b], .5)
        besides = pct([d - ops for _, ops, d in b], .5)
        label = f'{lo}' if lo == hi else (f'{lo}-{hi}' if hi < 10**9 else f'{lo}+')
        print(f'  {label:>6} items: {len(b):6} batches, {100 * sum(n for n, _, _ in b) / items:5.1f}% of items; '
              f'per item {per_item * 1e3:5.0f} us, besides {besides * 1e3:5.0f} us; '
              f'rate {1e6 / (per_item * 1e3 + besides * 1e3 / n_med):7.0f}/s')
for sent, lat in sorted(reqs, key=lambda r: -r[1])[:slowest]:
    print(f'\nrequest due at {(sent - t0) / 1e3:.1f} ms took {lat / 1e3:.1f} ms; meanwhile:')
    for start, dur, kind, thread, more in events:
        if sent - 20_000 <= start <= sent + lat and dur >= 1000:
            print(f'  {(start - t0) / 1e3:9.1f} ms  {dur / 1e3:7.2f} ms  {kind:10} {thread:16} {more}')
