#!/usr/bin/env bash
# Bytes per record (issue 27 item 7): a fresh data directory, 1,000,000 parameters written by `bench gen` (the
# store's own insert path: record, index entries, unique key, counters), then `zhizhuang compact` and `zhizhuang
# verify`, whose table lines give rows, pages and bytes of keys and values per table.
# Usage: bench/size.sh [WORK_DIR] [COUNT]
set -euo pipefail
WORK=${1:-/tmp/zzsize}
COUNT=${2:-1000000}
T=${BENCH_T:-${CARGO_TARGET_DIR:-$HOME/.cache/zz-target}/release}
ADDR=127.0.0.1:18095
source "$(dirname "$0")/common.sh"
rm -rf "$WORK" && mkdir -p "$WORK"
# Seeded by a first start (menus, dictionaries, tenants), then stopped.
start; stop
"$T/bench" gen --file "$WORK/data/zhizhuang.redb" --count "$COUNT" --value-bytes 30
# `bench gen` writes without a server, so nothing prunes its change log (the search index's feed, 33 B a record):
# a server's writes prune it as they commit, an idle server 30 s after its index holds the changes. Served once,
# as every real file is, until the status screen says the log is empty (`SIZE_UNSERVED=1`: measured as written).
if [ -z "${SIZE_UNSERVED:-}" ]; then
  start; TOK=$(token); wait_index "$TOK"; PTOK=$(ptoken)
  for _ in $(seq 1 600); do
    curl -s -H "Blade-Auth: bearer $PTOK" -H 'Tenant-Id: 000000' "http://$ADDR/api/blade-system/status" |
      python3 -c "import sys,json;i=json.load(sys.stdin)['data']['index'];sys.exit(0 if i['logPruned']>=i['storeSeq'] else 1)" && break
    sleep 1
  done
  stop
fi
"$T/zhizhuang" compact --dir "$WORK/data" | sed -n 1,2p
"$T/zhizhuang" verify "$WORK/data/zhizhuang.redb" | grep -E "^file|table (RECORDS|INDEX|UNIQUE|CHANGES|COUNTERS)"
ls -l "$WORK/data/zhizhuang.redb" | awk -v n="$COUNT" '{printf "data file %d bytes: %.0f bytes per parameter\n", $5, $5 / n}'
