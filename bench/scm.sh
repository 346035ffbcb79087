#!/usr/bin/env bash
# Projects benchmark (issue 9) against the real release binary, beside a hello-world baseline from the same run:
# 100,000 projects (a contract each) and 1,000,000 constructs in tenant 157270; the project list filtered by
# company and start-date range, 6 rows with the total, 64 connections.
# Usage: bench/scm.sh [WORK_DIR] [PROJECTS] [CONSTRUCTS]
set -euo pipefail
WORK=${1:-/tmp/zzscm}
NP=${2:-100000}
NC=${3:-1000000}
T=${BENCH_T:-${CARGO_TARGET_DIR:-$HOME/.cache/zz-target}/release}
ADDR=127.0.0.1:18091
source "$(dirname "$0")/common.sh"
if [ ! -f "$WORK/company" ]; then
  rm -rf "$WORK" && mkdir -p "$WORK/data"
  start; stop
  /usr/bin/time -f "generated in %e s" "$T/bench" gen-projects --file "$WORK/data/zhizhuang.redb" --projects "$NP" --constructs "$NC" > "$WORK/company"
fi
COMPANY=$(cat "$WORK/company")
hello
start
TOK=$(token)
wait_index "$TOK"
BODY="{\"projectCompanyId\":\"$COMPANY\",\"startTime\":\"2025-03-01\",\"endTime\":\"2025-06-30\"}"
curl -s -X POST -H "Blade-Auth: bearer $TOK" -H 'Content-Type: application/json' -d "$BODY" "http://$ADDR/api/blade-scm/project/list" |
  python3 -c "import sys,json;d=json.load(sys.stdin)['data'];print('rows',len(d['records']),'total',d['total'],'size',d['size'])"
"$T/bench" load --addr $ADDR --method POST --path /api/blade-scm/project/list --body "$BODY" --token "$TOK" --conns 64 --secs 10 | sed 's/^load/project list, company + start range, 6 rows + total, same query, c=64/'
# `_t` (a cache buster clients send) makes every request a new question: answered from the store each time.
"$T/bench" load --addr $ADDR --method POST --path "/api/blade-scm/project/list?_t={n}" --body "$BODY" --token "$TOK" --conns 64 --secs 10 | sed 's/^load/project list, same filter, uncached (_t={n}), c=64/'
# 施工单 page /construct/info/{code}, server-rendered with its data (construct, crew, day work, measures) among
# 1,000,000 constructs: the whole HTML document as a browser asks for it (cookie), c=1 and c=2 (two QuickJS runtimes).
CODE=$(curl -s -X POST -H "Blade-Auth: bearer $TOK" -H 'Content-Type: application/json' -d '{"size":1,"modelStatus":3}' "http://$ADDR/api/blade-scm/construct/list" |
  python3 -c "import sys,json;print(json.load(sys.stdin)['data']['records'][0]['constructCode'])")
curl -s -b "saber-access-token=$TOK" "http://$ADDR/construct/info/$CODE" | python3 -c "import sys;h=sys.stdin.read();print('construct page', '$CODE', len(h), 'bytes, rendered with data:', '\"kind\":\"construct\"' in h and 'aria-busy' not in h)"
for c in 1 2; do
  "$T/bench" load --addr $ADDR --path "/construct/info/$CODE" --cookie "$TOK" --conns $c --secs 10 | sed "s/^load/construct page (SSR with data), c=$c/"
done
stop
kill $HELLO
