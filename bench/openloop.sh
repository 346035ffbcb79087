#!/usr/bin/env bash
# Writes as users meet them (issue 57 item 1): durable parameter creates on the 1,000,000-parameter file sent in an
# open loop — at a fixed rate, each request timed from when it was due, so a stall shows as every request that
# arrived during it waiting (`bench load --rate R --open`) — at 25%, 50% and 75% of the closed-loop capacity
# measured first (64 connections back to back), beside hello-world at the same rates. The disk's own durable-append
# latency (`bench fsync`, 200 bytes + fdatasync on the data directory's file system) and the status screen's
# checkpoint figures after each rate show where a tail comes from. The floor of a lone durable create: hello-world
# made durable (`bench hello --durable`: each request a 200-byte append and an fdatasync by one writer thread, then
# the answer; no store, no JSON, no log), on the same file system, one connection.
# Usage: bench/openloop.sh BASE.redb [WORK_DIR] [SECS]
set -euo pipefail
BASE=${1:?data file with 1M parameters (bench gen)}
WORK=${2:-/tmp/zzopen}
SECS=${3:-30}
T=${BENCH_T:-${CARGO_TARGET_DIR:-$HOME/.cache/zz-target}/release}
ADDR=127.0.0.1:18094
source "$(dirname "$0")/common.sh"
mkdir -p "$WORK/data"
stop
"$T/bench" fsync --dir "$WORK/data"
hello
"$T/bench" hello 127.0.0.1:18098 --durable "$WORK" & DURABLE=$!
sleep 0.5
"$T/bench" load --addr 127.0.0.1:18098 --method POST --path / --body x --conns 1 --secs 10 | sed 's/^load/hello-world made durable (200 B + fdatasync), c=1/'
kill $DURABLE; rm -f "$WORK/.bench-hello-durable"
serve_fresh "$BASE"
create() { "$T/bench" load --addr $ADDR --method POST --path /api/blade-system/param/submit --body "{\"paramName\":\"开环$1{n}\",\"paramKey\":\"$1.{n}\",\"paramValue\":\"v\"}" --token "$TOK" "${@:2}"; }
line=$(create cap --conns 64 --secs 10)
echo "${line/#load/creates, 64 connections (closed loop)}"
cap=$(echo "$line" | sed -E 's/^load: ([0-9]+) req.*/\1/')
echo "== closed-loop capacity: $cap creates/s (64 connections) =="
create lone --conns 1 --secs 10 | sed 's/^load/lone create, c=1 (closed loop)/'
# 系统状态 is the platform's: its admin (same password) reads the data file's checkpoint figures.
PTOK=$(ptoken)
checkpoints() {
  curl -s -H "Blade-Auth: bearer $PTOK" -H 'Tenant-Id: 000000' "http://$ADDR/api/blade-system/status" | python3 -c "
import sys, json
d = json.load(sys.stdin).get('data') or {}
print('  checkpoints so far:', json.dumps(d.get('checkpoints'), ensure_ascii=False)[:500])"
}
for pct in 25 50 75; do
  rate=$((cap * pct / 100))
  cpu_by_thread "creates at $pct% ($rate/s, open loop)" create "r$pct" --conns 64 --secs "$SECS" --rate "$rate" --open
  checkpoints
  "$T/bench" load --addr 127.0.0.1:18099 --path / --conns 64 --secs 10 --rate "$rate" --open | sed "s/^load/  hello-world at $rate\/s (open loop)/"
done
stop
kill $HELLO
