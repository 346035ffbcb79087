#!/usr/bin/env bash
# The API log's creation-date range (issue 29 item 1, append-only resources) against the real release binary,
# beside a hello-world baseline of the same run: a file of 1,000,000 parameters (`bench gen`, see bench/README.md)
# takes creates on 64 connections for SECS seconds (each a durable create and an API log entry in the logs'
# file), then the 接口日志 list is asked by 创建时间 as its search form asks (one connection, a cache-busting `_t`):
# a range holding every entry at a deep page, an empty range on either side, and the range beside an exact filter.
# Usage: bench/logs.sh BASE.redb [WORK_DIR] [SECS]
set -euo pipefail
BASE=${1:?data file with 1M parameters}
WORK=${2:-/tmp/zzlogs-bench}
SECS=${3:-10}
T=${BENCH_T:-${CARGO_TARGET_DIR:-$HOME/.cache/zz-target}/release}
ADDR=127.0.0.1:18094
source "$(dirname "$0")/common.sh"
mkdir -p "$WORK/data"
stop
hello
serve_fresh "$BASE"
"$T/bench" load --addr $ADDR --method POST --path /api/blade-system/param/submit --body '{"paramName":"日志{n}","paramKey":"log.{n}","paramValue":"v"}' --token "$TOK" --conns 64 --secs "$SECS" | sed 's/^load/creates writing the API log, 64 connections/'
P=/api/blade-log/api/list
TOTAL=$(list_total)
FROM=$(date -u -d yesterday +%F); TOMORROW=$(date -u -d tomorrow +%F)
echo "API log entries: $TOTAL"
page "createTime from yesterday (every entry), page $((TOTAL / 40))" "createTime_datege=$FROM&current=$((TOTAL / 40))&size=20"
page "createTime from yesterday, first page" "createTime_datege=$FROM&current=1&size=20"
page "createTime from tomorrow (none)" "createTime_datege=$TOMORROW&current=1&size=20"
page "createTime before yesterday (none)" "createTime_datelt=$FROM&current=1&size=20"
page "method=POST and createTime from yesterday, page 100" "method_equal=POST&createTime_datege=$FROM&current=100&size=20"
stop
kill $HELLO
