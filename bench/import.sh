#!/usr/bin/env bash
# Building import benchmark (issue 9): an .xlsx of ROWS rooms uploaded to the real release binary, the task polled
# every 0.1 s until it ends; reports the time end to end (upload to done) and the longest wait between two changes
# of the reported progress. Beside it, the hello-world baseline of the same run.
# Usage: bench/import.sh [WORK_DIR] [ROWS]
set -euo pipefail
WORK=${1:-/tmp/zzimport}
ROWS=${2:-100000}
T=${BENCH_T:-${CARGO_TARGET_DIR:-$HOME/.cache/zz-target}/release}
ADDR=127.0.0.1:18093
source "$(dirname "$0")/common.sh"
rm -rf "$WORK" && mkdir -p "$WORK/data"
"$T/bench" gen-rooms --out "$WORK/rooms.xlsx" --rows "$ROWS"
ls -l "$WORK/rooms.xlsx" | awk '{print "file bytes", $5}'
"$T/bench" hello 127.0.0.1:18099 & HELLO=$!
sleep 0.5
echo "== hello-world baseline =="
"$T/bench" load --addr 127.0.0.1:18099 --path / --conns 64 --secs 5
kill $HELLO
stop; start
trap stop EXIT
TOK=$(token)
H="Blade-Auth: bearer $TOK"
ANS=$(curl -s -X POST -H "$H" -H "Content-Type: application/json" -d "{\"companyName\":\"基准分公司\",\"companyType\":1}" "http://$ADDR/api/blade-scm/company/add"); echo "$ANS" | head -c 200; echo
COMPANY=$(echo "$ANS" | python3 -c "import sys,json;print(json.load(sys.stdin)['data']['id'])")
PROJECT=$(curl -s -X POST -H "$H" -H 'Content-Type: application/json' -d "{\"projectName\":\"导入基准项目\",\"projectCompanyId\":\"$COMPANY\",\"businessUnit\":\"TOB\",\"startTime\":\"2026-01-01\"}" "http://$ADDR/api/blade-scm/project/add" | python3 -c "import sys,json;print(json.load(sys.stdin)['data']['id'])")
python3 - "$ADDR" "$TOK" "$PROJECT" "$WORK/rooms.xlsx" <<'PY'
import json, sys, time, subprocess, urllib.request
addr, tok, project, path = sys.argv[1:]
t0 = time.time()
out = subprocess.run(["curl", "-s", "-H", f"Blade-Auth: bearer {tok}", "-F", f"file=@{path}", f"http://{addr}/api/blade-scm/building/info/import?projectId={project}"], capture_output=True, text=True).stdout
ans = json.loads(out)
if not ans.get("data"):
    sys.exit(f"import refused: {out[:300]}")
code = ans["data"]["taskCode"]
answered = time.time() - t0
last_pct, last_change, gaps, n = -1, time.time(), [], 0
while True:
    req = urllib.request.Request(f"http://{addr}/api/blade-scm/building/getImportStatus?taskCode={code}", headers={"Blade-Auth": f"bearer {tok}"})
    d = json.load(urllib.request.urlopen(req))["data"]
    n += 1
    now = time.time()
    if d["percent"] != last_pct:
        gaps.append(now - last_change)
        last_pct, last_change = d["percent"], now
    if d["state"] != "running":
        break
    time.sleep(0.1)
total = time.time() - t0
print(f"taskCode answered in {answered*1000:.0f} ms (upload included); state {d['state']}: {d['message']}")
print(f"end to end {total:.2f} s for {d['total']} rows; {len(gaps)} progress changes seen in {n} polls; longest wait between changes {max(gaps[1:] or [0]):.2f} s")
PY
stop
