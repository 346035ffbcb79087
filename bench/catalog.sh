#!/usr/bin/env bash
# Catalogue benchmark (issue 10) against the real release binary, beside a hello-world baseline from the same run:
# 100,000 products in tenant 157270 (`bench gen-products`), then the product picker as it is typed into —
# `POST /api/blade-scm/product/list` with the spec's picker paging (page 1, size 999) and a name fragment, each
# request a different fragment (no cached answer) — on 1 connection, and the plain first page on 64.
# Usage: bench/catalog.sh [WORK_DIR] [COUNT]
set -euo pipefail
WORK=${1:-/tmp/zzcatalog}
N=${2:-100000}
T=${BENCH_T:-${CARGO_TARGET_DIR:-$HOME/.cache/zz-target}/release}
ADDR=127.0.0.1:18095
source "$(dirname "$0")/common.sh"
stop
if [ ! -f "$WORK/done" ]; then
  rm -rf "$WORK" && mkdir -p "$WORK/data"
  start; stop
  /usr/bin/time -f "generated in %e s" "$T/bench" gen-products --file "$WORK/data/zhizhuang.redb" --count "$N"
  touch "$WORK/done"
fi
# Fragments a person types into the picker: a material, a kind, a size, a code part.
python3 - "$WORK/picker.jsonl" <<'PY'
import json, sys
mats = ["仿古", "大理石", "木纹", "实木", "岩板", "釉面", "抛光", "哑光", "防滑", "柔光", "水磨石", "微水泥"]
kinds = ["地砖", "墙砖", "地板", "台面", "踢脚线", "吊顶板", "石膏线", "门套", "窗台板", "马赛克"]
with open(sys.argv[1], "w") as f:
    for i in range(20000):
        frag = [f"{mats[i % 12]}{kinds[i // 12 % 10]}", f"#{i * 7 % 100000}", f"{kinds[i % 10]} {['600×600','800×800'][i % 2]}"][i % 3]
        f.write(json.dumps({"page": 1, "size": 999, "productName": frag}, ensure_ascii=False) + "\n")
PY
hello
start
TOK=$(token)
wait_index "$TOK"
P=/api/blade-scm/product
for frag in 仿古地砖 '#4242' '地板 800×800'; do
  curl -s -X POST -H "Blade-Auth: bearer $TOK" -H 'Content-Type: application/json' "http://$ADDR$P/list" -d "{\"page\":1,\"size\":999,\"productName\":\"$frag\"}" |
    python3 -c "import sys,json;d=json.load(sys.stdin)['data'];print('picker \"$frag\": rows',len(d['records']),'total',d['total'])"
done
"$T/bench" load --addr $ADDR --method POST --path "$P/list?_t={n}" --bodies "$WORK/picker.jsonl" --token "$TOK" --conns 1 --secs 10 | sed 's/^load/product picker, a different fragment each time, c=1/'
"$T/bench" load --addr $ADDR --method POST --path "$P/list?_t={n}" --body '{"page":1,"size":999}' --token "$TOK" --conns 1 --secs 10 | sed 's/^load/product list page of 999 without a filter, uncached, c=1/'
"$T/bench" load --addr $ADDR --method POST --path "$P/list" --body '{"page":1,"size":10}' --token "$TOK" --conns 64 --secs 10 | sed 's/^load/product list first page, c=64/'
stop
kill $HELLO
