#!/usr/bin/env bash
# The write-ahead logs' largest size under each kind of traffic (issue 27 item 3): reads only, durable creates
# only, and both at once, on a file of 1,000,000 parameters. Both logs are sampled every 50 ms: the data file's
# (zhizhuang.redb-wal) and the logs' file's (zhizhuang-logs.redb-wal, written by the api and sign-in logs). Each
# must stay within its checkpoint bounds (1 s / 32 MiB) and never pass 64 MiB. Beside it, the hello-world baseline.
# Usage: bench/wal.sh BASE.redb [WORK_DIR]
set -euo pipefail
BASE=${1:?data file with 1M parameters}
WORK=${2:-/tmp/zzwal}
T=${BENCH_T:-${CARGO_TARGET_DIR:-$HOME/.cache/zz-target}/release}
ADDR=127.0.0.1:18098
source "$(dirname "$0")/common.sh"
mkdir -p "$WORK/data"
stop
hello; kill $HELLO
cp "$BASE" "$WORK/data/zhizhuang.redb"
rm -rf "$WORK/data/index" "$WORK/data/zhizhuang.redb-wal"* "$WORK/data/zhizhuang-logs.redb"*
sync
start
TOK=$(token)
wait_index "$TOK"
size() { stat -c %s "$1" 2>/dev/null || echo 0; }
# Samples both logs until the file `$WORK/stop` appears; prints the largest sizes.
sample() {
  local a=0 b=0 x y
  rm -f "$WORK/stop"
  while [ ! -f "$WORK/stop" ]; do
    x=$(size "$WORK/data/zhizhuang.redb-wal"); y=$(size "$WORK/data/zhizhuang-logs.redb-wal")
    [ "$x" -gt "$a" ] && a=$x; [ "$y" -gt "$b" ] && b=$y
    sleep 0.05
  done
  echo "  largest data log $a bytes, logs' log $b bytes"
}
run() {
  local name=$1; shift
  sample > "$WORK/sample.txt" & local S=$!
  "$@" | sed "s|^load|$name|"
  touch "$WORK/stop"; wait $S; cat "$WORK/sample.txt"
}
H="--token $TOK"
run "reads only (param/list, c=16, 20 s)" "$T/bench" load --addr $ADDR --path /api/blade-system/param/list $H --conns 16 --secs 20
run "refused reads only (menu/list as a tenant admin: 403, each recorded in the api log; c=16, 20 s)" "$T/bench" load --addr $ADDR --path /api/blade-system/menu/list $H --conns 16 --secs 20
run "durable creates only (c=64, 20 s)" "$T/bench" load --addr $ADDR --method POST --path /api/blade-system/param/submit --body '{"paramName":"日志{n}","paramKey":"wal.{n}","paramValue":"v"}' $H --conns 64 --secs 20
both() {
  "$T/bench" load --addr $ADDR --path /api/blade-system/param/list $H --conns 16 --secs 20 | sed 's|^load|  of which reads (param/list, c=16)|' & local R=$!
  "$T/bench" load --addr $ADDR --method POST --path /api/blade-system/param/submit --body '{"paramName":"混合{n}","paramKey":"mix.{n}","paramValue":"v"}' $H --conns 16 --secs 20 | sed 's|^load|  of which creates (c=16)|'
  wait $R
}
run "reads and creates at once (20 s)" both
stop
