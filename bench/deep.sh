#!/usr/bin/env bash
# Deep pages (issue 29 item 1) against the real release binary, beside a hello-world baseline of the same run: the
# parameter list of a file of 1,000,000 parameters (`bench gen`, see bench/README.md), one connection, each
# request with a cache-busting `_t` so no answer comes from the answer cache: the first page, the middle, the
# last pages newest first and oldest first, a deep page of size 100, the first and middle pages under one exact
# filter (status=1) and two (status=1, createUser=1), pages sorted by another indexed field, not-equal, null and
# starts-with filters, and the middle pages
# (by id, by 参数键名) while creates run.
# Usage: bench/deep.sh BASE.redb [WORK_DIR]
set -euo pipefail
BASE=${1:?data file with 1M parameters}
WORK=${2:-/tmp/zzdeep}
T=${BENCH_T:-${CARGO_TARGET_DIR:-$HOME/.cache/zz-target}/release}
ADDR=127.0.0.1:18095
source "$(dirname "$0")/common.sh"
mkdir -p "$WORK/data"
stop
hello
serve_fresh "$BASE"
P=/api/blade-system/param/list
TOTAL=$(list_total)
LAST=$(( (TOTAL + 19) / 20 ))
echo "parameters: $TOTAL, last page of 20: $LAST"
page "first page (current=1)" "current=1&size=20"
page "middle page (current=$((LAST / 2)))" "current=$((LAST / 2))&size=20"
page "3/4 deep (current=$((LAST * 3 / 4)))" "current=$((LAST * 3 / 4))&size=20"
page "near the end (current=$((LAST - 10)))" "current=$((LAST - 10))&size=20"
page "last page (current=$LAST)" "current=$LAST&size=20"
page "last page, oldest first (ascs=createTime)" "current=$LAST&size=20&ascs=createTime"
page "page 9,000 of 100 rows" "current=9000&size=100"
# One exact filter on an indexed field (status=1: every row): the value's own marks give the total and the page.
page "status=1, first page" "status=1&current=1&size=20"
page "status=1, middle page" "status=1&current=$((LAST / 2))&size=20"
# Two exact filters over every row (a status within one person's records, as a data scope of 本人 beside a status
# filter asks): the intersection of the two values' id sets, kept between requests.
page "status=1 and createUser=1, first page" "status=1&createUser=1&current=1&size=20"
page "status=1 and createUser=1, middle page" "status=1&createUser=1&current=$((LAST / 2))&size=20"
# … sorted by 参数键名: the sort index walked by key from the nearer end, each id tested against the filters' ids.
page "status=1 and createUser=1 by paramKey, first page" "status=1&createUser=1&ascs=paramKey&current=1&size=20"
page "status=1 and createUser=1 by paramKey, middle page" "status=1&createUser=1&ascs=paramKey&current=$((LAST / 2))&size=20"
# By creation date (创建时间 from a day): the createTime index's range — every row here (the file's rows share one
# creation second), then a day after them (none). The range's ids are read from the index the first time it is
# asked (timed once, before the pages) and kept between requests, brought up to date by the records added since.
once "createTime from 2025-06-01, first asking" "createTime_datege=2025-06-01&current=$((LAST / 2))&size=20"
page "createTime from 2025-06-01, middle page" "createTime_datege=2025-06-01&current=$((LAST / 2))&size=20"
page "createTime from 2025-06-01 to tomorrow, last page" "createTime_datege=2025-06-01&createTime_datelt=$(date -d tomorrow +%F)&current=$LAST&size=20"
page "status=1 and createTime from 2025-06-01, middle page" "status=1&createTime_datege=2025-06-01&current=$((LAST / 2))&size=20"
page "createTime from tomorrow (no rows)" "createTime_datege=$(date -d tomorrow +%F)&current=1&size=20"
# Sorted by another indexed field (参数键名): the index walked by key from the nearer end, the page's rows read.
page "by paramKey, middle page" "ascs=paramKey&current=$((LAST / 2))&size=20"
page "by paramKey, 3/4 deep" "ascs=paramKey&current=$((LAST * 3 / 4))&size=20"
page "by paramKey descending, last page" "descs=paramKey&current=$LAST&size=20"
page "createTime from 2025-06-01 by paramKey, middle page" "createTime_datege=2025-06-01&ascs=paramKey&current=$((LAST / 2))&size=20"
# Not-equal, null / not null and starts-with (`_notequal`, `_null`, `_notnull`, `_likeright`) over indexed fields:
# index ranges too (all keys but a value's; the prefix in each of its letters' cases), their ids read the first time
# (timed once) and kept like a range's.
once "paramKey_likeright=bench.key.12 (11,111 rows), first asking" "paramKey_likeright=bench.key.12&current=300&size=20"
page "paramKey_likeright=bench.key.12, deep page" "paramKey_likeright=bench.key.12&current=300&size=20"
once "status_notequal=2 (every row), first asking" "status_notequal=2&current=$((LAST / 2))&size=20"
page "status_notequal=2, middle page" "status_notequal=2&current=$((LAST / 2))&size=20"
once "paramName_likeright=参数 (every row), first asking" "paramName_likeright=%E5%8F%82%E6%95%B0&current=$((LAST / 2))&size=20"
page "paramName_likeright=参数, middle page" "paramName_likeright=%E5%8F%82%E6%95%B0&current=$((LAST / 2))&size=20"
page "paramName_notnull by paramKey, middle page" "paramName_notnull=&ascs=paramKey&current=$((LAST / 2))&size=20"
# Creates on 4 connections meanwhile: each new record extends the rank marks by the tail above them.
"$T/bench" load --addr $ADDR --method POST --path /api/blade-system/param/submit --body '{"paramName":"深页{n}","paramKey":"deep.{n}","paramValue":"v"}' --token "$TOK" --conns 4 --secs 11 | sed "s/^load/  (creates meanwhile, 4 conns)/" &
CREATES=$!
sleep 0.5
page "middle page while creates run" "current=$((LAST / 2))&size=20"
page "createTime from 2025-06-01, middle page while creates run" "createTime_datege=2025-06-01&current=$((LAST / 2))&size=20"
# Only the creates: a bare `wait` would wait for the server and the hello-world server too.
wait $CREATES
# The same with the list sorted by 参数键名: each new record can land anywhere in that index (its entry is counted
# beside the marks).
"$T/bench" load --addr $ADDR --method POST --path /api/blade-system/param/submit --body '{"paramName":"深页排序{n}","paramKey":"sorted.{n}","paramValue":"v"}' --token "$TOK" --conns 4 --secs 6 | sed "s/^load/  (creates meanwhile, 4 conns)/" &
CREATES=$!
sleep 0.5
page "by paramKey, middle page while creates run" "ascs=paramKey&current=$((LAST / 2))&size=20"
wait $CREATES
stop
kill $HELLO
