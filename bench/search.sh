#!/usr/bin/env bash
# Search benchmarks (issue 8) against the real release binary, beside a hello-world baseline from the same run.
# Needs a data file with 1,000,000 parameters in tenant 157270 (admin password Bench#2026), made by
#   bench gen --file BASE --count 1000000   (after a first `zhizhuang serve --dir` seeded it; see bench/README.md)
# Usage: bench/search.sh BASE.redb [WORK_DIR]
set -euo pipefail
BASE=${1:?data file with 1M parameters}
WORK=${2:-/tmp/zzsearch}
T=${BENCH_T:-${CARGO_TARGET_DIR:-$HOME/.cache/zz-target}/release}
ADDR=127.0.0.1:18090
mkdir -p "$WORK/data"
rm -rf "$WORK/data/index"
cp "$BASE" "$WORK/data/zhizhuang.redb"; rm -rf "$WORK/data/zhizhuang.redb-wal"* "$WORK/data/zhizhuang-logs.redb"*

echo "== reindex (offline, 1 thread) =="
/usr/bin/time -f "reindex: %e s wall, max RSS %M KiB" "$T/zhizhuang" reindex --dir "$WORK/data"
du -b "$WORK/data/zhizhuang.redb" "$WORK/data/index" | awk '{printf "%s %.1f MiB\n", $2, $1/1048576}'

source "$(dirname "$0")/common.sh"
rss() { grep -E 'VmRSS|RssAnon|RssFile' /proc/"$(pgrep -f "zhizhuang serve --http $ADDR")"/status | awk '{printf "%s %s KiB  ", $1, $2}'; }
total() { curl -s -H "Blade-Auth: bearer $TOK" "http://$ADDR$1" | python3 -c "import sys,json;print(json.load(sys.stdin)['data']['total'])"; }

"$T/bench" hello 127.0.0.1:18099 & HELLO=$!
sleep 0.5
echo "== hello-world baseline =="
"$T/bench" load --addr 127.0.0.1:18099 --path / --conns 64 --secs 10

ONEPCT="/api/blade-system/param/list?paramKey=y.12&size=20"
ONEROW="/api/blade-system/param/list?paramKey=key.123457&size=20"
SEARCH="/api/blade-search/search?q=y.12&size=20"

echo "== without the index (--no-search-index): totals by walking, RSS =="
start --no-search-index --api-log writes --walk-deadline-ms 600000
TOK=$(token)
echo "walk totals: 1% filter $(total "$ONEPCT"), one-row filter $(total "$ONEROW")"
"$T/bench" load --addr $ADDR --path "/api/blade-system/param/list?paramKey_equal=bench.key.{n6}&_t={n}" --token "$TOK" --conns 64 --secs 10 | sed 's/^load/(no index) exact-key list, c=64/'
"$T/bench" load --addr $ADDR --method POST --path /api/blade-system/param/submit --body '{"paramName":"无索引{n}","paramKey":"noix.{n}","paramValue":"v"}' --token "$TOK" --conns 64 --secs 20 | sed 's/^load/(no index) creates, c=64/'
echo "RSS without index after the same lists and creates: $(rss)"
stop

echo "== with the index =="
start --api-log writes
TOK=$(token)
for _ in $(seq 1 600); do curl -s -H "Blade-Auth: bearer $TOK" "http://$ADDR/api/blade-search/search?q=x" | grep -q '"code":200' && break; sleep 0.2; done
echo "index totals: 1% filter $(total "$ONEPCT"), one-row filter $(total "$ONEROW")"
# The same query again and again (answers kept until the resource changes), then a different needle of the
# same selectivity on every request (each one searched in the index and read from the store).
"$T/bench" load --addr $ADDR --path "$ONEPCT" --token "$TOK" --conns 64 --secs 10 | sed 's/^load/contains ~1%, 20 rows + total, same query, c=64/'
"$T/bench" load --addr $ADDR --path "/api/blade-system/param/list?paramKey=y.{nn}&size=20&_t={n}" --token "$TOK" --conns 64 --secs 10 | sed 's/^load/contains ~1.1%, a different needle each time (uncached), c=64/'
"$T/bench" load --addr $ADDR --path "/api/blade-system/param/list?paramKey=y.{nn}&size=20&_t={n}" --token "$TOK" --conns 1 --secs 5 | sed 's/^load/contains ~1.1%, a different needle each time (uncached), c=1/'
"$T/bench" load --addr $ADDR --path "$ONEROW" --token "$TOK" --conns 64 --secs 10 | sed 's/^load/contains one row, same query, c=64/'
"$T/bench" load --addr $ADDR --path "/api/blade-system/param/list?paramKey=key.{n6}&size=20&_t={n}" --token "$TOK" --conns 64 --secs 10 | sed 's/^load/contains one row, a different key each time (uncached), c=64/'
"$T/bench" load --addr $ADDR --path "/api/blade-system/param/list?paramKey=key.{n6}&size=20&_t={n}" --token "$TOK" --conns 1 --secs 5 | sed 's/^load/contains one row, a different key each time (uncached), c=1/'
"$T/bench" load --addr $ADDR --path "$SEARCH" --token "$TOK" --conns 16 --secs 10 | sed 's/^load/search box top 20 (1.1% of records match), c=16/'
"$T/bench" load --addr $ADDR --path "/api/blade-search/search?q=key.{n6}&size=20" --token "$TOK" --conns 16 --secs 10 | sed 's/^load/search box top 20, a different key each time (uncached), c=16/'
echo "RSS with index after the loads: $(rss)"
"$T/bench" findable --addr $ADDR --token "$TOK" --conns 64 --secs 20
echo "RSS with index after the creates: $(rss)"
stop
kill $HELLO
du -b "$WORK/data/zhizhuang.redb" "$WORK/data/index" | awk '{printf "%s %.1f MiB\n", $2, $1/1048576}'
