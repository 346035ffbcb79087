#!/usr/bin/env bash
# Off the box (issue 28) against the real release binary, beside a hello-world baseline of the same run, with a
# local SeaweedFS as the bucket (ZZ_WEED, or the test command's ~/.cache/zz-weed/bin/weed):
#  1. parameter creates at 64 connections on a file of 1,000,000 parameters, shipping off, then on (--replicate);
#  2. at 1,000 creates/s: each change's time from commit to the bucket, and a standby's lag (bench shiplag);
#  3. a restore from the bucket alone: the 1,000,000-parameter snapshot plus the changes of steps 1–2;
#  4. a 10 MB file uploaded through the server into a tenant's bucket and downloaded back (the bucket on 127.0.0.1
#     is allowed by the operator: --oss-allow-hosts);
#  5. the primary killed (kill -9), the standby stopped and promoted: how long `promote` takes once the dead
#     primary's lease (ZZ_REPLICA_LEASE_SECS, 60 s by default; 10 s here) has run out, and the whole time from the
#     kill to a promoted server answering.
# Usage: bench/offbox.sh BASE.redb [WORK_DIR]   (BASE: `bench gen`, see bench/README.md)
set -euo pipefail
BASE=${1:?data file with 1M parameters}
WORK=${2:-/tmp/zzoffbox}
T=${BENCH_T:-${CARGO_TARGET_DIR:-$HOME/.cache/zz-target}/release}
ADDR=127.0.0.1:18097
SADDR=127.0.0.1:18098
source "$(dirname "$0")/common.sh"
WEED=${ZZ_WEED:-$HOME/.cache/zz-weed/bin/weed}
S3=127.0.0.1:18433
rm -rf "$WORK"; mkdir -p "$WORK/data" "$WORK/weed" "$WORK/standby"
"$WEED" server -dir="$WORK/weed" -ip=127.0.0.1 -ip.bind=127.0.0.1 -s3 -s3.port=18433 -s3.port.iceberg=0 -s3.port.lance=0 \
  -master.port=19433 -volume.port=18434 -filer.port=18435 -volume.max=300 -master.volumeSizeLimitMB=1024 > "$WORK/weed.log" 2>&1 &
WEEDPID=$!
trap 'kill $WEEDPID 2>/dev/null; stop; pkill -f "zhizhuang serve --http $SADDR" || true' EXIT
for _ in $(seq 1 300); do curl -s -o /dev/null -X PUT "http://$S3/bench" && break; sleep 0.2; done
curl -s -o /dev/null -X PUT "http://$S3/tenant-files"
export AWS_ACCESS_KEY_ID=bench AWS_SECRET_ACCESS_KEY=bench-secret AWS_ENDPOINT_URL=http://$S3 AWS_REGION=us-east-1
URL=s3://bench/company
stop
hello
status() { curl -s -H "Blade-Auth: bearer $1" "http://$2/api/blade-system/status"; }
creates() { "$T/bench" load --addr $ADDR --method POST --path /api/blade-system/param/submit --body "{\"paramName\":\"异地$1{n}\",\"paramKey\":\"$1.{n}\",\"paramValue\":\"v\"}" --token "$TOK" --conns 64 --secs 10; }

echo "== 1. creates at 64 connections, shipping off and on =="
cp "$BASE" "$WORK/data/zhizhuang.redb"; rm -rf "$WORK/data/index" "$WORK/data/zhizhuang.redb-wal"* "$WORK/data/zhizhuang-logs.redb"*; sync
start --api-log writes
TOK=$(token); wait_index "$TOK"
creates off | sed 's/^load/creates, 64 connections, shipping off/'
stop
cp "$BASE" "$WORK/data/zhizhuang.redb"; rm -rf "$WORK/data/index" "$WORK/data/zhizhuang.redb-wal"* "$WORK/data/zhizhuang-logs.redb"* "$WORK/data/zhizhuang-ship"; sync
t0=$(date +%s.%N)
export ZZ_REPLICA_LEASE_SECS=10
start --api-log writes --replicate $URL --public-url http://$ADDR --oss-allow-hosts 127.0.0.1:18433
TOK=$(token); wait_index "$TOK"
PTOK=$(ptoken)
# The first snapshot (the whole file) is sent before the first segment.
for _ in $(seq 1 3000); do status "$PTOK" $ADDR | python3 -c "import sys,json; r=json.load(sys.stdin)['data']['replica']; sys.exit(0 if r['snapshots'] and not r['snapshotting'] else 1)" && break; sleep 0.2; done
echo "first snapshot of the 1M-parameter file sent after $(python3 -c "print(round($(date +%s.%N)-$t0,1))") s (server start included): $(status "$PTOK" $ADDR | python3 -c "import sys,json; r=json.load(sys.stdin)['data']['replica']; print(r['bytesSent']//1048576, 'MiB compressed')")"
creates on | sed 's/^load/creates, 64 connections, shipping on /'

echo "== 2. lag at 1,000 creates/s =="
t1=$(date +%s.%N)
env ZZ_LOG=warn AWS_ACCESS_KEY_ID=bench "$T/zhizhuang" serve --http $SADDR --dir "$WORK/standby" --follow $URL > "$WORK/standby.log" 2>&1 &
for _ in $(seq 1 3000); do [ "$(curl -s -o /dev/null -w "%{http_code}" "http://$SADDR/api/ready")" = 200 ] && break; sleep 0.2; done
echo "standby made from the bucket and serving after $(python3 -c "print(round($(date +%s.%N)-$t1,1))") s"
STOK=$(MD5=$(printf '%s' 'Bench#2026' | md5sum | cut -d' ' -f1); curl -s -X POST -H 'Authorization: Basic c2FiZXI6c2FiZXJfc2VjcmV0' -H 'Tenant-Id: 000000' "http://$SADDR/api/blade-auth/oauth/token?tenantId=000000&username=admin&password=$MD5&grant_type=password&scope=all" | python3 -c "import sys,json;print(json.load(sys.stdin)['access_token'])")
# The standby starts from the newest snapshot and first applies the backlog of step 1; measured apart.
TARGET=$(status "$PTOK" $ADDR | python3 -c "import sys,json; print(json.load(sys.stdin)['data']['replica']['durableSeq'])")
for _ in $(seq 1 3000); do
  [ "$(status "$STOK" $SADDR | python3 -c "import sys,json; print(json.load(sys.stdin)['data']['replica'].get('appliedSeq') or 0)")" -ge "$TARGET" ] && break; sleep 0.2
done
echo "standby caught up with the backlog of step 1 (to position $TARGET) after $(python3 -c "print(round($(date +%s.%N)-$t1,1))") s"
# Its search index is built once, from its own file (1,000,000 records: about a minute of both cores); lag is
# measured after, as a standby runs for months.
for _ in $(seq 1 3000); do curl -s -H "Blade-Auth: bearer $STOK" "http://$SADDR/api/blade-search/search?q=x" | grep -q '"code":200' && break; sleep 0.2; done
echo "standby's search index built after $(python3 -c "print(round($(date +%s.%N)-$t1,1))") s"
"$T/bench" ship-lag --addr $ADDR --token "$TOK" --replica $URL --rate 1000 --conns 32 --secs 20 --standby $SADDR --standby-token "$STOK"
status "$PTOK" $ADDR | python3 -c "import sys,json; r=json.load(sys.stdin)['data']['replica']; print('primary: shipped', r['shippedSeq'], 'of', r['durableSeq'], 'segments sent', r['segmentsSent'], 'bytes sent', r['bytesSent'])"

echo "== 3. restore from the bucket alone =="
sleep 2
rm -rf "$WORK/restored"
/usr/bin/time -f "restore: %e s wall, %M KB peak memory" "$T/zhizhuang" restore --dir "$WORK/restored" --from $URL 2>&1 | grep -v "^previous"
"$T/zhizhuang" verify "$WORK/restored/zhizhuang.redb" | grep -E "OK|DAMAGED" | head -2

echo "== 4. a 10 MB file through the server into a tenant's bucket =="
python3 - "$WORK/ten.pdf" <<'EOF'
import sys, os
with open(sys.argv[1], 'wb') as f:
    f.write(b'%PDF-1.4\n%\xe2\xe3\xcf\xd3\n' + os.urandom(10 * 1024 * 1024 - 64) + b'\n%%EOF\n')
EOF
OSS=$(curl -s -X POST -H "Blade-Auth: bearer $TOK" -H 'Content-Type: application/json' "http://$ADDR/api/blade-resource/oss/submit" \
  -d "{\"ossCode\":\"bench\",\"category\":1,\"endpoint\":\"http://$S3\",\"bucketName\":\"tenant-files\",\"accessKey\":\"bench\",\"secretKey\":\"bench-secret\"}" | python3 -c "import sys,json;print(json.load(sys.stdin)['data']['id'])")
curl -s -o /dev/null -X POST -H "Blade-Auth: bearer $TOK" "http://$ADDR/api/blade-resource/oss/enable?id=$OSS"
for i in 1 2 3; do
  curl -s -o "$WORK/up.json" -w "upload 10 MB: %{time_total} s\n" -H "Blade-Auth: bearer $TOK" -F "file=@$WORK/ten.pdf" "http://$ADDR/api/blade-resource/oss/endpoint/put-file"
  LINK=$(python3 -c "import json;print(json.load(open('$WORK/up.json'))['data']['link'])")
  curl -s -o "$WORK/down.pdf" -w "download 10 MB: %{time_total} s\n" -H "Blade-Auth: bearer $TOK" "http://$ADDR$LINK"
  cmp -s "$WORK/ten.pdf" "$WORK/down.pdf" && echo "  same bytes back" || echo "  DIFFERENT BYTES"
done

echo "== 5. promote with the old primary gone =="
status "$PTOK" $ADDR | python3 -c "import sys,json; r=json.load(sys.stdin)['data']['replica']; print('before the kill: shipped', r['shippedSeq'], 'of', r['durableSeq'])"
pkill -9 -f "zhizhuang serve --http $ADDR" || true
tk=$(date +%s.%N)
pkill -f "zhizhuang serve --http $SADDR" || true
for _ in $(seq 1 300); do pgrep -f "zhizhuang serve --http $SADDR" > /dev/null || break; sleep 0.1; done
tries=0
while :; do
  tries=$((tries + 1))
  tp=$(date +%s.%N)
  if "$T/zhizhuang" promote --dir "$WORK/standby" > "$WORK/promote.log" 2>&1; then break; fi
  [ $tries -ge 60 ] && { echo "promote refused 60 times:"; cat "$WORK/promote.log"; break; }
  sleep 1
done
echo "promote: $(python3 -c "print(round($(date +%s.%N)-$tp,2))") s for the command that succeeded ($tries tries; the lease had to run out first): $(tail -1 "$WORK/promote.log")"
env ZZ_LOG=warn "$T/zhizhuang" serve --http $SADDR --dir "$WORK/standby" --replicate $URL > "$WORK/promoted.log" 2>&1 &
for _ in $(seq 1 3000); do curl -s -o /dev/null -w '%{http_code}' "http://$SADDR/api/health" | grep -q 200 && break; sleep 0.1; done
echo "from the kill to the promoted server answering /api/health 200: $(python3 -c "print(round($(date +%s.%N)-$tk,1))") s"
pkill -f "zhizhuang serve --http $SADDR" || true
kill $HELLO
