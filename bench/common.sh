# Shared by the bench scripts (sourced): T (release dir), ADDR and WORK must be set. `start [ARGS]` serves
# WORK/data on ADDR and waits until it answers (a fresh directory is seeded with admin password Bench#2026);
# `stop` ends it; `token` signs in as tenant 157270's admin.
start() {
  env ZZ_LOG=warn ZZ_ADMIN_PASSWORD='Bench#2026' "$T/zhizhuang" serve --http $ADDR --dir "$WORK/data" "$@" > "$WORK/serve.log" 2>&1 &
  for _ in $(seq 1 600); do curl -s -o /dev/null http://$ADDR/api/blade-system/tenant/info && return; sleep 0.2; done
  echo "server did not start"; exit 1
}
stop() { pkill -f "zhizhuang serve --http $ADDR" || true; sleep 1; }
token() {
  MD5=$(printf '%s' 'Bench#2026' | md5sum | cut -d' ' -f1)
  curl -s -X POST -H 'Authorization: Basic c2FiZXI6c2FiZXJfc2VjcmV0' -H 'Tenant-Id: 157270' \
    "http://$ADDR/api/blade-auth/oauth/token?tenantId=157270&username=admin&password=$MD5&grant_type=password&scope=all" |
    python3 -c "import sys,json;print(json.load(sys.stdin)['access_token'])"
}
