#!/usr/bin/env bash
# What an api-log entry of a write costs the logs' file (issue 57 item 3), against the real release binary: from an
# empty directory, creates on 8 connections for SECS seconds (each a durable create and its api-log entry), then
# `zhizhuang verify` of the logs' file (rows, bytes per row, pages in use), `zhizhuang compact`, and verify again.
# Bytes per entry = "in use" (live) or the file (after compact) ÷ the log_api records.
# Usage: bench/logsize.sh [WORK_DIR] [SECS]
set -euo pipefail
WORK=${1:-/tmp/zzlogsize-bench}
SECS=${2:-10}
T=${BENCH_T:-${CARGO_TARGET_DIR:-$HOME/.cache/zz-target}/release}
ADDR=127.0.0.1:18096
source "$(dirname "$0")/common.sh"
mkdir -p "$WORK/data"
stop
rm -rf "${WORK:?}/data/"*
start --api-log writes
TOK=$(token)
"$T/bench" load --addr $ADDR --method POST --path /api/blade-system/param/submit --body "{\"paramName\":\"日志{n}\",\"paramKey\":\"logsize.$RANDOM.{n}\",\"paramValue\":\"v\"}" --token "$TOK" --conns 8 --secs "$SECS" | sed 's/^load/creates, 8 connections/'
stop
echo "== the logs' file, live"
"$T/zhizhuang" verify "$WORK/data/zhizhuang-logs.redb" 2>&1 | grep -E "schema|^file|RECORDS|INDEX|resource log_api"
"$T/zhizhuang" compact --dir "$WORK/data" > /dev/null
echo "== after compact"
"$T/zhizhuang" verify "$WORK/data/zhizhuang-logs.redb" 2>&1 | grep -E "^file|RECORDS|INDEX|resource log_api"
