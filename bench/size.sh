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
"$T/zhizhuang" compact --dir "$WORK/data" | sed -n 1,2p
"$T/zhizhuang" verify "$WORK/data/zhizhuang.redb" | grep -E "^file|table (RECORDS|INDEX|UNIQUE|CHANGES|COUNTERS)"
ls -l "$WORK/data/zhizhuang.redb" | awk -v n="$COUNT" '{printf "data file %d bytes: %.0f bytes per parameter\n", $5, $5 / n}'
