#!/usr/bin/env bash
# Hostile spreadsheets against the real release binary (issue 32): each file is posted to an import on a freshly
# started server; the server's peak resident memory (VmHWM, reset through clear_refs just before) is read after the
# import has ended: its growth over the resident size before is what the file cost. Also the largest legitimate
# imports for comparison: 200,000 rooms refused by their last row (read and checked whole, nothing written) and
# written (that adds the store's page cache and the search index's writer). Beside it, the hello-world baseline.
# Usage: [FILES="far-corner ..."] [SERVE_ARGS=--no-search-index] bench/hostile-xlsx.sh [WORK_DIR]
set -euo pipefail
WORK=${1:-/tmp/zzhostile}
T=${BENCH_T:-${CARGO_TARGET_DIR:-$HOME/.cache/zz-target}/release}
ADDR=127.0.0.1:18094
source "$(dirname "$0")/common.sh"
rm -rf "$WORK" && mkdir -p "$WORK/files"

# The files (written with Python's zipfile: nothing of the product makes them).
python3 - "$WORK/files" <<'PY'
import sys, zipfile
out = sys.argv[1]
CT = '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>'
RELS = '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>'
WB = '<?xml version="1.0"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>'
WBRELS = '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>'
def book(name, rows_xml, dim="A1", strings=None):
    with zipfile.ZipFile(f"{out}/{name}", "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        z.writestr("[Content_Types].xml", CT); z.writestr("_rels/.rels", RELS)
        z.writestr("xl/workbook.xml", WB); z.writestr("xl/_rels/workbook.xml.rels", WBRELS)
        with z.open("xl/worksheets/sheet1.xml", "w") as f:
            f.write(f'<?xml version="1.0"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><dimension ref="{dim}"/><sheetData>'.encode())
            for chunk in rows_xml:
                f.write(chunk.encode())
            f.write(b'</sheetData></worksheet>')
        if strings is not None:
            with z.open("xl/sharedStrings.xml", "w") as f:
                f.write(b'<?xml version="1.0"?><sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">')
                for chunk in strings:
                    f.write(chunk.encode())
                f.write(b'</sst>')
def c(ref, t): return f'<c r="{ref}" t="inlineStr"><is><t>{t}</t></is></c>'
book("far-corner.xlsx", [f'<row r="1">{c("A1","仓库名称")}</row><row r="1048576">{c("XFD1048576","x")}</row>'], "A1:XFD1048576")
book("xfd2000.xlsx", [f'<row r="1">{c("A1","仓库名称")}</row><row r="2000">{c("XFD2000","x")}</row>'], "A1:XFD2000")
def many(n):
    yield f'<row r="1">{c("A1","仓库名称")}</row>'
    # Rows without numbers compress a thousandfold (the report's file was 857 KB).
    row = '<row><c t="s"><v>0</v></c></row>'
    for _ in range(n // 10_000):
        yield row * 10_000
book("six-million-rows.xlsx", many(6_000_000), "A1:A6000001", strings=['<si><t>江宁材料仓</t></si>'])
book("inflating-strings.xlsx", [f'<row r="1">{c("A1","仓库名称")}</row>'], strings=('<si><t>' + 'b' * 200 + '</t></si>' for _ in range(500_000)))
book("inflating-sheet.xlsx", ([f'<row r="1">{c("A1","仓库名称")}</row>'] + [f'<row>{c("B1", "a" * 1000)}</row>' for _ in range(60_000)]))
def same_string(rows, cols):
    yield '<row r="1">' + ''.join(f'<c r="{chr(65 + k)}1" t="s"><v>0</v></c>' for k in range(cols)) + '</row>'
    for i in range(2, rows + 2):
        yield f'<row r="{i}">' + ''.join(f'<c r="{chr(65 + k)}{i}" t="s"><v>1</v></c>' for k in range(cols)) + '</row>'
book("one-long-string-everywhere.xlsx", same_string(5000, 20), strings=['<si><t>仓库名称</t></si>', '<si><t>' + '长' * 30000 + '</t></si>'])
def stores(n):
    yield f'<row r="1">{c("A1","仓库名称")}{c("B1","负责人")}{c("C1","联系电话")}{c("D1","启用")}</row>'
    for i in range(2, n + 2):
        yield f'<row r="{i}">{c(f"A{i}", f"基准仓{i:05d}")}{c(f"B{i}", "王仓管")}{c(f"C{i}", "13900000011")}{c(f"D{i}", "是")}</row>'
book("stores-5000.xlsx", stores(5000))
def rooms(n):
    yield '<row r="1">' + ''.join(c(f"{chr(65 + k)}1", h) for k, h in enumerate(["楼栋", "单元", "楼层", "房号", "户型", "面积(㎡)"])) + '</row>'
    for i in range(n):
        r = i + 2
        b, u, f, k = i // 4800 + 1, i // 2400 % 2 + 1, i // 80 % 30 + 1, i % 80 + 1
        # The last row repeats the first: with mode=all the file is read and checked whole, and nothing written.
        if i == n - 1:
            b, u, f, k = 1, 1, 1, 1
        yield f'<row r="{r}">{c(f"A{r}", f"{b}栋")}{c(f"B{r}", str(u))}<c r="C{r}"><v>{f}</v></c>{c(f"D{r}", f"{f}{k:02d}")}{c(f"E{r}", "三室两厅")}{c(f"F{r}", "118.50")}</row>'
book("rooms-200000-refused.xlsx", rooms(200_000))
PY
ls -l "$WORK/files" | awk 'NR>1 {printf "%-36s %9d bytes\n", $9, $5}'
"$T/bench" gen-rooms --out "$WORK/files/rooms-200000.xlsx" --rows 200000 >/dev/null

"$T/bench" hello 127.0.0.1:18099 & HELLO=$!
sleep 0.5
echo "== hello-world baseline =="
"$T/bench" load --addr 127.0.0.1:18099 --path / --conns 1 --secs 3 | sed 's/^load/hello-world, c=1/'
kill $HELLO

PID() { pgrep -f "zhizhuang serve --http $ADDR" | head -1; }
hwm() { awk '/VmHWM/ {print $2}' /proc/$(PID)/status; }
rss() { awk '/VmRSS/ {print $2}' /proc/$(pgrep -f "zhizhuang serve --http $ADDR" | head -1)/status; }
trap stop EXIT
# One server per file, each started from a copy of one seeded data directory.
mkdir -p "$WORK/seed"; WORK0=$WORK; WORK=$WORK0/seed; start; stop; WORK=$WORK0
printf '%-30s %-6s %7s %10s %9s %9s  %s\n' file status "ms" "before MB" "after MB" "peak +MB" answer
for f in ${FILES:-far-corner xfd2000 six-million-rows inflating-strings inflating-sheet one-long-string-everywhere stores-5000 rooms-200000-refused rooms-200000}; do
  rm -rf "$WORK/data"; cp -r "$WORK/seed/data" "$WORK/data"
  start ${SERVE_ARGS:-}
  TOK=$(token)
  H="Blade-Auth: bearer $TOK"
  if [ "${f#rooms}" != "$f" ]; then
    COMPANY=$(curl -s -X POST -H "$H" -H 'Content-Type: application/json' -d '{"companyName":"基准分公司","companyType":1}' "http://$ADDR/api/blade-scm/company/add" | python3 -c "import sys,json;print(json.load(sys.stdin)['data']['id'])")
    PROJECT=$(curl -s -X POST -H "$H" -H 'Content-Type: application/json' -d "{\"projectName\":\"导入基准项目\",\"projectCompanyId\":\"$COMPANY\",\"businessUnit\":\"TOB\",\"startTime\":\"2026-01-01\"}" "http://$ADDR/api/blade-scm/project/add" | python3 -c "import sys,json;print(json.load(sys.stdin)['data']['id'])")
    URL="http://$ADDR/api/blade-scm/building/info/import?projectId=$PROJECT&mode=all"
  else
    URL="http://$ADDR/api/blade-api/wms/store/import?isCovered=0"
  fi
  curl -s -o /dev/null -H "$H" "http://$ADDR/api/blade-api/wms/store/list"
  sleep 1
  # The peak since now (writing 5 to clear_refs resets VmHWM to the current resident size).
  echo 5 > /proc/$(PID)/clear_refs
  BASE=$(hwm)
  T0=$(date +%s%N)
  ANS=$(curl -s -w ' %{http_code}' -H "$H" -F "file=@$WORK/files/$f.xlsx" "$URL")
  CODE=${ANS##* }
  TASK=$(echo "${ANS% *}" | python3 -c "import sys,json;d=json.load(sys.stdin).get('data') or {};print(d.get('taskCode','') if isinstance(d,dict) else '')" 2>/dev/null || true)
  MSG=$(echo "${ANS% *}" | python3 -c "import sys,json;d=json.load(sys.stdin);print((d.get('msg') if d.get('code')!=200 else json.dumps(d['data'],ensure_ascii=False))[:40])" 2>/dev/null || true)
  if [ -n "$TASK" ]; then
    while :; do
      ST=$(curl -s -H "$H" "http://$ADDR/api/blade-scm/building/getImportStatus?taskCode=$TASK")
      echo "$ST" | grep -q '"state":"running"' || break
      sleep 0.1
    done
    MSG=$(echo "$ST" | python3 -c "import sys,json;d=json.load(sys.stdin)['data'];print(d['state'], d['message'][:40])")
  fi
  MS=$(( ($(date +%s%N) - T0) / 1000000 ))
  PEAK=$(hwm)
  printf '%-30s %-6s %7d %10d %9d %9d  %s\n' "$f" "$CODE" "$MS" $(( BASE / 1024 )) $(( $(rss) / 1024 )) $(( (PEAK - BASE) / 1024 )) "$MSG"
  stop
done
