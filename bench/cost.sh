#!/usr/bin/env bash
# Project cost benchmark (issue 10) against the real release binary, beside a hello-world baseline from the same
# run: one project with 100,000 cost sources — 90,000 warehouse issues (stock moves, bin → project, through the
# stock ledger) and 10,000 day-work rows over its 20 constructs (`bench gen-cost`) — beside 50 other projects with
# 1,000 issues each. Then the three calls the cost page makes (getInformationDetails and getCostComparison in
# parallel, getMaterialDetailList page 1), each on 1 connection and each request a new question (`_t={n}`), and
# verify's recomputation of the totals from the rows.
# Usage: bench/cost.sh [WORK_DIR] [ISSUES] [DAYS]
set -euo pipefail
WORK=${1:-/tmp/zzcost}
NI=${2:-90000}
ND=${3:-10000}
T=${BENCH_T:-${CARGO_TARGET_DIR:-$HOME/.cache/zz-target}/release}
ADDR=127.0.0.1:18097
source "$(dirname "$0")/common.sh"
stop
if [ ! -f "$WORK/project" ]; then
  rm -rf "$WORK" && mkdir -p "$WORK/data"
  start; stop
  /usr/bin/time -f "generated in %e s" "$T/bench" gen-cost --file "$WORK/data/zhizhuang.redb" --issues "$NI" --days "$ND" > "$WORK/project"
fi
P=$(cat "$WORK/project")
hello
start
TOK=$(token)
wait_index "$TOK"
C=/api/blade-biz/bim/projectcost
curl -s -H "Blade-Auth: bearer $TOK" "http://$ADDR$C/getInformationDetails?projectId=$P" |
  python3 -c "import sys,json;d=json.load(sys.stdin)['data'];print('project',d['projectName'],'revenue',d['revenue'],'material',d['material'],'labour',d['labour'],'cost',d['cost'],'rate',d['grossProfitRate'])"
curl -s -H "Blade-Auth: bearer $TOK" "http://$ADDR$C/getMaterialDetailList?projectId=$P&current=1&size=10" |
  python3 -c "import sys,json;d=json.load(sys.stdin)['data'];print('material moves',d['total'],'rows',len(d['records']))"
for call in "getInformationDetails?projectId=$P" "getCostComparison?projectId=$P" "getMaterialDetailList?projectId=$P&current=1&size=10"; do
  "$T/bench" load --addr $ADDR --path "$C/$call&_t={n}" --token "$TOK" --conns 1 --secs 8 | sed "s/^load/${call%%\?*}, c=1/"
done
"$T/bench" load --addr $ADDR --path "$C/getInformationDetails?projectId=$P&_t={n}" --token "$TOK" --conns 64 --secs 8 | sed 's/^load/getInformationDetails, c=64/'
stop
/usr/bin/time -f "verify in %e s"  "$T/zhizhuang" verify "$WORK/data/zhizhuang.redb" | grep -E 'stock ledger|project cost|contract ledgers|problem' | head -8
kill $HELLO
