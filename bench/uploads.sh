#!/usr/bin/env bash
# Concurrent uploads against the real release binary (issue 52 item 4): N clients (40) each send a 10 MB .txt to
# `put-file` at once, as one clerk; the server's peak resident memory (VmHWM, reset through clear_refs just before)
# is read afterwards: its growth over the resident size before is what the burst cost. Uploads beyond the few
# received at once wait for a place, then answer 429 (counted). Then the same burst again (nothing stayed).
# Beside it, the hello-world baseline of the same run.
# Usage: [N=40] [MB=10] bench/uploads.sh [WORK_DIR]
set -euo pipefail
WORK=${1:-/tmp/zzuploads}
T=${BENCH_T:-${CARGO_TARGET_DIR:-$HOME/.cache/zz-target}/release}
ADDR=127.0.0.1:18095
N=${N:-40}
MB=${MB:-10}
source "$(dirname "$0")/common.sh"
rm -rf "$WORK" && mkdir -p "$WORK/data"
# $MB MB of text in bytes (the limit counts bytes; a Chinese character is three).
python3 -c "import sys; sys.stdout.buffer.write(('上传测试 upload test line 0123456789\n' * 400000).encode()[:$MB * 1000000 - 4096])" > "$WORK/file.txt"
hello
kill $HELLO 2>/dev/null || true
start
PID() { pgrep -f "zhizhuang serve --http $ADDR" | head -1; }
rss() { awk '/VmRSS/ {print $2}' /proc/$(PID)/status; }
hwm() { awk '/VmHWM/ {print $2}' /proc/$(PID)/status; }
TOK=$(token)
burst() {
  echo 5 > /proc/$(PID)/clear_refs
  local base; base=$(rss)
  local started; started=$(date +%s.%N)
  local pids=()
  for i in $(seq 1 "$N"); do
    curl -s -o "$WORK/out.$i" -w '%{http_code}\n' -H "Blade-Auth: bearer $1" -F "file=@$WORK/file.txt;filename=f$i.txt" \
      "http://$ADDR/api/blade-resource/oss/endpoint/put-file" > "$WORK/code.$i" &
    pids+=($!)
  done
  # The uploads only: the server is a child of this script too.
  wait "${pids[@]}"
  local ended; ended=$(date +%s.%N)
  local ok; ok=$(cat "$WORK"/code.* | grep -c '^200$' || true)
  local busy; busy=$(cat "$WORK"/code.* | grep -c '^429$' || true)
  printf '%-34s %3d sent  %3d stored  %3d told 429  %6.1f s  rss before %4d MB  peak +%4d MB  after %4d MB\n' "$2" "$N" "$ok" "$busy" \
    "$(echo "$ended - $started" | bc)" $(( base / 1024 )) $(( ($(hwm) - base) / 1024 )) $(( $(rss) / 1024 ))
  rm -f "$WORK"/code.* "$WORK"/out.*
}
echo "== $N concurrent uploads of $MB MB (one clerk) =="
burst "$TOK" "one tenant"
burst "$TOK" "one tenant, again"
stop
