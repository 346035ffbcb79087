#!/usr/bin/env bash
# Approvals benchmark (issue 12) against the real release binary, beside a hello-world baseline from the same run:
# 2,000 people, 100,000 running instances (30,000 waiting on the admin) and 1,000,000 finished tasks in tenant
# 157270 (written by `bench gen-flow`: running ones through the engine), then
#  - the to-do list of one user (bench1, about 35 open tasks), 1 connection;
#  - durable completions (complete-task, flag ok) on 64 connections, each open task of the admin exactly once;
#  - durable starts (work/start-process of a one-step process, typed variables) on 64 connections;
# and `zhizhuang verify` (every instance agrees with its tasks and history) afterwards.
# Usage: bench/flow.sh [WORK_DIR] [RUNNING] [FINISHED]
set -euo pipefail
WORK=${1:-/tmp/zzflow}
NR=${2:-100000}
NF=${3:-1000000}
T=${BENCH_T:-${CARGO_TARGET_DIR:-$HOME/.cache/zz-target}/release}
ADDR=127.0.0.1:18094
source "$(dirname "$0")/common.sh"
stop
if [ ! -f "$WORK/pid" ]; then
  rm -rf "$WORK" && mkdir -p "$WORK/data"
  start; stop
  /usr/bin/time -f "generated in %e s" "$T/bench" gen-flow --file "$WORK/data/zhizhuang.redb" --out "$WORK" --running "$NR" --finished "$NF" > "$WORK/pid"
  cp "$WORK/data/zhizhuang.redb" "$WORK/pristine.redb"
else
  # Every run completes from the same state.
  cp "$WORK/pristine.redb" "$WORK/data/zhizhuang.redb"
  rm -rf "$WORK/data/index" "$WORK/data/zhizhuang.redb-wal"* "$WORK/data/zhizhuang-logs.redb"*
fi
hello
start
TOK=$(token)
wait_index "$TOK"
MD5=$(printf '%s' 'Bench#2026' | md5sum | cut -d' ' -f1)
TOK1=$(curl -s -X POST -H 'Authorization: Basic c2FiZXI6c2FiZXJfc2VjcmV0' -H 'Tenant-Id: 157270' \
  "http://$ADDR/api/blade-auth/oauth/token?tenantId=157270&username=bench1&password=$MD5&grant_type=password&scope=all" |
  python3 -c "import sys,json;print(json.load(sys.stdin)['access_token'])")
F=/api/blade-flow
curl -s -H "Blade-Auth: bearer $TOK1" "http://$ADDR$F/work/todo-list?size=10" |
  python3 -c "import sys,json;d=json.load(sys.stdin)['data'];print('bench1 to-do: rows',len(d['records']),'total',d['total'])"
curl -s -H "Blade-Auth: bearer $TOK1" "http://$ADDR$F/work/done-list?size=10" |
  python3 -c "import sys,json;d=json.load(sys.stdin)['data'];print('bench1 done: total',d['total'])"
"$T/bench" load --addr $ADDR --path "$F/work/todo-list?size=10" --token "$TOK1" --conns 1 --secs 10 | sed 's/^load/to-do list of one user (10 rows + total), c=1/'
"$T/bench" load --addr $ADDR --path "$F/work/todo-list?size=10" --token "$TOK1" --conns 64 --secs 10 | sed 's/^load/to-do list of one user, c=64/'
"$T/bench" load --addr $ADDR --path "$F/work/done-list?size=10" --token "$TOK1" --conns 1 --secs 10 | sed 's/^load/done list of one user (10 rows + total), c=1/'
# Each task once (a second completion of a done task is an idempotent replay, not a completion).
"$T/bench" load --addr $ADDR --method POST --path "$F/work/complete-task" --bodies "$WORK/complete.jsonl" --once --token "$TOK" --conns 64 --secs 120 | sed "s/^load/durable completions, c=64 (each of $(wc -l < "$WORK/complete.jsonl") tasks once)/"
"$T/bench" load --addr $ADDR --method POST --path "$F/work/start-process" --bodies "$WORK/start.jsonl" --token "$TOK" --conns 64 --secs 10 | sed 's/^load/durable starts, c=64/'
stop
kill $HELLO
"$T/zhizhuang" verify "$WORK/data/zhizhuang.redb" | grep -E "OK|DAMAGED|approvals|problem" | head -5
