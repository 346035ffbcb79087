#!/usr/bin/env bash
# Warehouse benchmark (issue 11) against the real release binary, beside a hello-world baseline from the same run:
# 100,000 goods and 1,000,000 moves in tenant 157270 (written through the ledger by `bench gen-stock`), then
#  - the stock of one goods across its bins (stockdata list by goodsId), 1 connection, cached and uncached;
#  - the stockdata list, 20 rows with the total, 64 connections, cached and uncached;
#  - the stockdata list by a keyword found through the goods (a code, the hot goods' name), 1 connection, uncached;
#  - durable picks (down/save, one unit each) on 64 connections spread over 1,000 released lines, then the same
#    picks in an open loop at half the rate those reached (issue 57 item 1: p99 ≤ 20 ms);
#  - durable picks on 64 connections all on one hot line and bin holding exactly HOT units: the picks that
#    succeed must be exactly HOT, the rest refused, and verify must find balances equal to the moves.
# Usage: bench/wms.sh [WORK_DIR] [GOODS] [MOVES] [HOT]
set -euo pipefail
WORK=${1:-/tmp/zzwms}
NG=${2:-100000}
NM=${3:-1000000}
HOT=${4:-20000}
T=${BENCH_T:-${CARGO_TARGET_DIR:-$HOME/.cache/zz-target}/release}
ADDR=127.0.0.1:18093
source "$(dirname "$0")/common.sh"
stop
if [ ! -f "$WORK/ids" ]; then
  rm -rf "$WORK" && mkdir -p "$WORK/data"
  start; stop
  /usr/bin/time -f "generated in %e s" "$T/bench" gen-stock --file "$WORK/data/zhizhuang.redb" --out "$WORK" --goods "$NG" --moves "$NM" --hot "$HOT" > "$WORK/ids"
  cp "$WORK/data/zhizhuang.redb" "$WORK/pristine.redb"
else
  # Every run picks from the same state.
  cp "$WORK/pristine.redb" "$WORK/data/zhizhuang.redb"
  rm -rf "$WORK/data/index" "$WORK/data/zhizhuang.redb-wal"* "$WORK/data/zhizhuang-logs.redb"*
fi
read -r GOODS HOTGOODS < "$WORK/ids"
hello
start
TOK=$(token)
wait_index "$TOK"
W=/api/blade-api/wms
curl -s -H "Blade-Auth: bearer $TOK" "http://$ADDR$W/stockdata/list?goodsId=$GOODS" |
  python3 -c "import sys,json;d=json.load(sys.stdin)['data'];print('one goods: rows',len(d['records']),'total',d['total'])"
"$T/bench" load --addr $ADDR --path "$W/stockdata/list?goodsId=$GOODS" --token "$TOK" --conns 1 --secs 10 | sed 's/^load/stock of one goods across bins, cached, c=1/'
"$T/bench" load --addr $ADDR --path "$W/stockdata/list?goodsId=$GOODS&_t={n}" --token "$TOK" --conns 1 --secs 10 | sed 's/^load/stock of one goods across bins, uncached, c=1/'
curl -s -H "Blade-Auth: bearer $TOK" "http://$ADDR$W/stockdata/list?size=20" |
  python3 -c "import sys,json;d=json.load(sys.stdin)['data'];print('stockdata: rows',len(d['records']),'total',d['total'])"
"$T/bench" load --addr $ADDR --path "$W/stockdata/list?size=20" --token "$TOK" --conns 64 --secs 10 | sed 's/^load/stockdata list 20 rows + total, cached, c=64/'
"$T/bench" load --addr $ADDR --path "$W/stockdata/list?size=20&_t={n}" --token "$TOK" --conns 64 --secs 10 | sed 's/^load/stockdata list 20 rows + total, uncached, c=64/'
# A keyword found through the goods (库存数据 › a goods' code or name): the rows naming the goods it finds.
for kw in SPB0000042 %E7%83%AD%E7%82%B9%E5%95%86%E5%93%81; do
  "$T/bench" load --addr $ADDR --path "$W/stockdata/list?keyword=$kw&size=20&_t={n}" --token "$TOK" --conns 1 --secs 5 | sed "s/^load/stockdata by a goods keyword ($kw), uncached, c=1/"
done
picks=$(cpu_per_ok "durable picks over 1,000 goods, c=64 (each ok = one move)" "$T/bench" load --addr $ADDR --method POST --path "$W/down/save" --bodies "$WORK/spread.jsonl" --token "$TOK" --conns 64 --secs 10)
echo "$picks"
# The same picks as clerks send them (issue 57 item 1): an open loop at half that capacity, each pick timed from
# when it was due, beside hello-world at the same rate.
rate=$(( $(echo "$picks" | head -1 | sed -E 's/.*: ([0-9]+) req\/s.*/\1/') / 2 ))
cpu_by_thread "spread picks at 50% ($rate/s, open loop)" "$T/bench" load --addr $ADDR --method POST --path "$W/down/save" --bodies "$WORK/spread.jsonl" --token "$TOK" --conns 64 --secs 20 --rate "$rate" --open
"$T/bench" load --addr 127.0.0.1:18099 --path / --conns 64 --secs 10 --rate "$rate" --open | sed "s/^load/  hello-world at $rate\/s (open loop)/"
"$T/bench" load --addr $ADDR --method POST --path "$W/down/save" --bodies "$WORK/hot.jsonl" --token "$TOK" --conns 64 --secs 10 | sed 's/^load/durable picks on one hot bin, c=64 (errors = refused when empty)/'
curl -s -H "Blade-Auth: bearer $TOK" "http://$ADDR$W/stockdata/list?goodsId=$HOTGOODS" |
  python3 -c "import sys,json;r=json.load(sys.stdin)['data']['records'];print('hot bin after:',[(x['locationName'],x['qty'],x['reserved'],x['available']) for x in r])"
stop
kill $HELLO
"$T/zhizhuang" verify "$WORK/data/zhizhuang.redb" | grep -E "OK|DAMAGED|stock ledger|problem"
