#!/usr/bin/env bash
# Durable writes (issue 13 item 7) against the real release binary, beside a hello-world baseline from the same
# run: parameter creates on a file of 1,000,000 parameters (made by `bench gen`, see bench/README.md), one
# connection creating one after another and 64 at once — with the write-ahead log (the default) and with
# ZZ_WAL=0 (a durable redb commit per group), each from a fresh copy of the file. Prints the disk writes of each
# 64-connection run (from /proc/diskstats).
# Usage: bench/write.sh BASE.redb [WORK_DIR]
set -euo pipefail
BASE=${1:?data file with 1M parameters}
WORK=${2:-/tmp/zzwrite}
T=${BENCH_T:-${CARGO_TARGET_DIR:-$HOME/.cache/zz-target}/release}
ADDR=127.0.0.1:18096
source "$(dirname "$0")/common.sh"
# The first whole disk in /proc/diskstats (vda, sda, nvme0n1): its write ops and sectors.
DISK=$(awk '$3 ~ /^(vd|sd|xvd)[a-z]+$/ || $3 ~ /^nvme[0-9]+n[0-9]+$/ {print $3; exit}' /proc/diskstats)
writes() { awk -v d="$DISK" '$3==d {print $8, $10}' /proc/diskstats; }
mkdir -p "$WORK/data"
stop
hello
for wal in 1 0; do
  cp "$BASE" "$WORK/data/zhizhuang.redb"
  rm -rf "$WORK/data/index" "$WORK/data/zhizhuang.redb-wal"* "$WORK/data/zhizhuang-logs.redb"*
  sync
  ZZ_WAL=$wal start --api-log writes
  TOK=$(token)
  wait_index "$TOK"
  name=$([ $wal = 1 ] && echo "write-ahead log" || echo "ZZ_WAL=0")
  "$T/bench" load --addr $ADDR --method POST --path /api/blade-system/param/submit --body '{"paramName":"单连接{n}","paramKey":"c1.{n}","paramValue":"v"}' --token "$TOK" --conns 1 --secs 10 | sed "s/^load/creates, one connection ($name)/"
  read -r w0 s0 < <(writes)
  cpu_per_ok "creates, 64 connections ($name)" "$T/bench" load --addr $ADDR --method POST --path /api/blade-system/param/submit --body '{"paramName":"并发{n}","paramKey":"c64.{n}","paramValue":"v"}' --token "$TOK" --conns 64 --secs 10
  read -r w1 s1 < <(writes)
  echo "  disk writes during the 64-connection run: $((w1 - w0)) ops, $(((s1 - s0) / 2048)) MiB"
  stop
done
kill $HELLO
"$T/zhizhuang" verify "$WORK/data/zhizhuang.redb" | grep -E "OK|DAMAGED|write-ahead"
