#!/usr/bin/env bash
# Contract ledger benchmark (issue 10) against the real release binary, beside a hello-world baseline from the same
# run: one signed contract whose ledger is grown through the API (`save`, change entries of 0.01, 4 connections,
# durable writes) to at least 10,000 entries, then its `detail` (balances and the schedule) and the first page of
# `ledgerList` (20 entries with who posted them and their reversals), each request a new question (`_t={n}`).
# Usage: bench/ledger.sh [WORK_DIR] [SECONDS_OF_POSTING]
set -euo pipefail
WORK=${1:-/tmp/zzledger}
SECS=${2:-15}
T=${BENCH_T:-${CARGO_TARGET_DIR:-$HOME/.cache/zz-target}/release}
ADDR=127.0.0.1:18096
source "$(dirname "$0")/common.sh"
stop
rm -rf "$WORK" && mkdir -p "$WORK/data"
hello
start
TOK=$(token)
call() { curl -s -X POST -H "Blade-Auth: bearer $TOK" -H 'Content-Type: application/json' "http://$ADDR$1" -d "$2"; }
C=$(call /api/blade-scm/contract/add '{"contractName":"台账压测合同","partyName":"压测业主","contractAmount":"1000000"}' | python3 -c "import sys,json;print(json.load(sys.stdin)['data']['id'])")
call /api/blade-scm/contract/update "{\"id\":\"$C\",\"contractStatus\":1,\"signDate\":\"2026-01-05\"}" > /dev/null
for n in 定金 首期款 中期款 尾款; do
  call /api/blade-scm/contractledger/save "{\"contractId\":\"$C\",\"entryType\":3,\"amount\":\"250000\",\"node\":\"$n\",\"dueDate\":\"2026-06-01\"}" > /dev/null
done
"$T/bench" load --addr $ADDR --method POST --path /api/blade-scm/contractledger/save --body "{\"contractId\":\"$C\",\"entryType\":2,\"amount\":\"0.01\",\"remark\":\"压测\"}" --token "$TOK" --conns 4 --secs "$SECS" | sed 's/^load/posting change entries (durable), c=4/'
L=$(curl -s -H "Blade-Auth: bearer $TOK" "http://$ADDR/api/blade-scm/contractledger/detail?contractId=$C" | python3 -c "import sys,json;d=json.load(sys.stdin)['data'];print(d['id']);import sys as s;print('ledger entries',d['entries'],'total',d['contractAmount'],file=s.stderr)")
"$T/bench" load --addr $ADDR --path "/api/blade-scm/contractledger/detail?id=$L&_t={n}" --token "$TOK" --conns 1 --secs 8 | sed 's/^load/ledger detail (balances + schedule), c=1/'
"$T/bench" load --addr $ADDR --method POST --path "/api/blade-scm/contractledger/ledgerList?_t={n}" --body "{\"ledgerId\":\"$L\",\"page\":1,\"size\":20}" --token "$TOK" --conns 1 --secs 8 | sed 's/^load/ledger entries page 1 (20), c=1/'
"$T/bench" load --addr $ADDR --method POST --path "/api/blade-scm/contractledger/ledgerList?_t={n}" --body "{\"ledgerId\":\"$L\",\"page\":1,\"size\":20}" --token "$TOK" --conns 64 --secs 8 | sed 's/^load/ledger entries page 1 (20), c=64/'
stop
kill $HELLO
