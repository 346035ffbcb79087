#!/usr/bin/env bash
# The write-ahead logs' largest size under each kind of traffic (issue 27 item 3): reads only, durable creates
# only, and both at once, on a file of 1,000,000 parameters. Both logs are sampled every 50 ms: the data file's
# (zhizhuang.redb-wal) and the logs' file's (zhizhuang-logs.redb-wal, written by the api and sign-in logs). Each
# must stay within its checkpoint bounds (1 s / 32 MiB) and never pass 64 MiB. Beside it, the hello-world baseline.
# A log file is reused after a checkpoint (store/src/wal.rs): its size on disk is the largest log it has held, so
# the log itself is measured by walking its records up to the end marker (`logged`), and the file's size beside it.
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
# Samples both logs until the file `$WORK/stop` appears; prints the largest logs (bytes up to the end marker after
# the last record: header 24 bytes, each record 8 + its length) and the largest files.
sample() {
  rm -f "$WORK/stop"
  python3 - "$WORK" <<'PY'
import os, struct, sys, time
work = sys.argv[1]
def logged(path):
    try:
        with open(path, 'rb') as f:
            end = os.fstat(f.fileno()).st_size
            at = 24
            while at + 8 <= end:
                f.seek(at)
                h = f.read(8)
                if h == bytes(8):
                    break
                at += 8 + struct.unpack('<I', h[:4])[0]
            return min(at, end)
    except FileNotFoundError:
        return 0
names = [os.path.join(work, 'data', n) for n in ('zhizhuang.redb-wal', 'zhizhuang-logs.redb-wal')]
most, size = [0, 0], [0, 0]
while not os.path.exists(os.path.join(work, 'stop')):
    for i, p in enumerate(names):
        # Twice, a millisecond apart: a walk made just as a checkpoint renames a reused file into place reads the
        # log that file held before, until its header is rewritten.
        first = logged(p)
        time.sleep(0.001)
        most[i] = max(most[i], min(first, logged(p)))
        size[i] = max(size[i], os.path.getsize(p) if os.path.exists(p) else 0)
    time.sleep(0.05)
print(f"  largest data log {most[0]} bytes (file {size[0]}), logs' log {most[1]} bytes (file {size[1]})")
PY
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
