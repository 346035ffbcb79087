# Shared by the bench scripts (sourced): T (release dir), ADDR and WORK must be set. `start [ARGS]` serves
# WORK/data on ADDR and waits until it answers (a fresh directory is seeded with admin password Bench#2026);
# `stop` ends it; `token` signs in as tenant 157270's admin.
start() {
  env ZZ_LOG=warn ZZ_ADMIN_PASSWORD='Bench#2026' "$T/zhizhuang" serve --http $ADDR --dir "$WORK/data" "$@" > "$WORK/serve.log" 2>&1 &
  # The listener answers 503 "starting" while the files open: wait for /api/ready's 200.
  for _ in $(seq 1 600); do [ "$(curl -s -o /dev/null -w '%{http_code}' http://$ADDR/api/ready)" = 200 ] && return; sleep 0.2; done
  echo "server did not start"; exit 1
}
# `stop` waits (up to 30 s) until the server has exited, so the next `start` never meets the old one.
stop() {
  pkill -f "zhizhuang serve --http $ADDR" || true
  for _ in $(seq 1 300); do pgrep -f "zhizhuang serve --http $ADDR" > /dev/null || return 0; sleep 0.1; done
}
token() {
  MD5=$(printf '%s' 'Bench#2026' | md5sum | cut -d' ' -f1)
  curl -s -X POST -H 'Authorization: Basic c2FiZXI6c2FiZXJfc2VjcmV0' -H 'Tenant-Id: 157270' \
    "http://$ADDR/api/blade-auth/oauth/token?tenantId=157270&username=admin&password=$MD5&grant_type=password&scope=all" |
    python3 -c "import sys,json;print(json.load(sys.stdin)['access_token'])"
}
# `ptoken`: signs in as the platform's admin (tenant 000000, same password): 系统状态 is the platform's.
ptoken() {
  MD5=$(printf '%s' 'Bench#2026' | md5sum | cut -d' ' -f1)
  curl -s -X POST -H 'Authorization: Basic c2FiZXI6c2FiZXJfc2VjcmV0' -H 'Tenant-Id: 000000' \
    "http://$ADDR/api/blade-auth/oauth/token?tenantId=000000&username=admin&password=$MD5&grant_type=password&scope=all" |
    python3 -c "import sys,json;print(json.load(sys.stdin)['access_token'])"
}
# `hello`: starts the hello-world server on 127.0.0.1:18099 (HELLO: its pid) and prints the baseline at 1 and 64
# connections; `wait_index TOKEN`: waits (up to 10 minutes) until the search index answers, so figures are not
# taken beside an index build.
hello() {
  "$T/bench" hello 127.0.0.1:18099 & HELLO=$!
  sleep 0.5
  echo "== hello-world baseline =="
  "$T/bench" load --addr 127.0.0.1:18099 --path / --conns 1 --secs 5 | sed 's/^load/hello-world, c=1/'
  "$T/bench" load --addr 127.0.0.1:18099 --path / --conns 64 --secs 10 | sed 's/^load/hello-world, c=64/'
}
wait_index() {
  for _ in $(seq 1 3000); do curl -s -H "Blade-Auth: bearer $1" "http://$ADDR/api/blade-search/search?q=x" | grep -q '"code":200' && return; sleep 0.2; done
}
# `serve_fresh BASE [ARGS]`: WORK/data becomes a copy of BASE without a search index, write-ahead logs or logs'
# file (every run starts from the same state), served with `--api-log writes` and ARGS; TOK is tenant 157270's
# admin once the search index answers.
serve_fresh() {
  cp "$1" "$WORK/data/zhizhuang.redb"
  rm -rf "$WORK/data/index" "$WORK/data/zhizhuang.redb-wal"* "$WORK/data/zhizhuang-logs.redb"*
  sync
  shift
  start --api-log writes "$@"
  TOK=$(token)
  wait_index "$TOK"
}
# `list_total`: the total of the list at P (TOK's tenant).
list_total() {
  curl -s -H "Blade-Auth: bearer $TOK" "http://$ADDR$P?current=1&size=1" | python3 -c "import sys,json;print(json.load(sys.stdin)['data']['total'])"
}
# `page LABEL QUERY [SECS]`: the list at P asked with QUERY by one connection for SECS (5) seconds, each request with
# a cache-busting `_t` so no answer comes from the answer cache.
page() { "$T/bench" load --addr $ADDR --path "$P?$2&_t={n}" --token "$TOK" --conns 1 --secs "${3:-5}" | sed "s|^load|$1|"; }
# One request of the list `P` with query `$2`, timed (the first asking of something kept afterwards).
once() { curl -s -o /dev/null -w "$1: %{time_total} s\n" -H "Blade-Auth: bearer $TOK" "http://$ADDR$P?$2&_t=once$RANDOM"; }
# `thread_ticks`: the server's CPU time so far (user + system ticks from /proc) by thread name, threads of one
# name summed (`merge_thread_0` and `_1` as `merge_thread`), as JSON.
thread_ticks() {
  python3 - "$(pgrep -f "zhizhuang serve --http $ADDR" | head -1)" <<'P'
import os, re, sys, json
p, out = sys.argv[1], {}
for t in os.listdir(f'/proc/{p}/task'):
    try:
        st = open(f'/proc/{p}/task/{t}/stat').read()
    except OSError:
        continue
    comm, f = st[st.index('(') + 1:st.rindex(')')], st[st.rindex(')') + 2:].split()
    name = re.sub(r'_\d+$', '', comm)
    out[name] = out.get(name, 0) + int(f[11]) + int(f[12])
print(json.dumps(out))
P
}
# `cpu_by_thread LABEL CMD...`: runs a `bench load` command line (its `load` renamed LABEL), then says where the
# server's CPU went during it — each thread kind's share of one core (threads of one name summed: the request workers,
# the data writer, the logs' writer, the search index's follower and merges, the checkpoint flushers) and the
# machine's busy share of all its cores (load generator included: on two shared cores an open loop's tail is a
# queue's, and this shows how full the cores were) — and the server's CPU per ok request (the data writer's and the
# whole process's).
machine_ticks() { awk '/^cpu /{print $5+$6, $2+$3+$4+$5+$6+$7+$8+$9}' /proc/stat; }
cpu_by_thread() {
  local label=$1 out a b i0 t0 i1 t1 s0 s1
  shift
  a=$(thread_ticks); read -r i0 t0 < <(machine_ticks); s0=$(date +%s.%N)
  out=$("$@" | sed "s|^load|$label|")
  b=$(thread_ticks); read -r i1 t1 < <(machine_ticks); s1=$(date +%s.%N)
  echo "$out"
  python3 - "$a" "$b" "$(echo "$out" | grep -o 'ok=[0-9]*' | cut -d= -f2)" "$(getconf CLK_TCK)" "$i0" "$t0" "$i1" "$t1" "$s0" "$s1" <<'P'
import json, sys
a, b = json.loads(sys.argv[1]), json.loads(sys.argv[2])
n, hz = int(sys.argv[3] or 0), int(sys.argv[4])
i0, t0, i1, t1, s0, s1 = map(float, sys.argv[5:11])
secs = s1 - s0
d = {k: b[k] - a.get(k, 0) for k in b if b[k] - a.get(k, 0) > 0}
top = sorted(d.items(), key=lambda x: -x[1])
print('  server CPU, share of one core:', ', '.join(f'{k} {100 * v / hz / secs:.0f}%' for k, v in top[:8]),
      f'(all {100 * sum(d.values()) / hz / secs:.0f}%); machine busy {100 - 100 * (i1 - i0) / max(t1 - t0, 1):.0f}% of its cores')
if n:
    print(f"  server CPU per ok request: writer {d.get('zz-writer', 0) * 1e6 / hz / n:.0f} µs, whole server {sum(d.values()) * 1e6 / hz / n:.0f} µs")
P
}
# `cpu_per_ok LABEL CMD...`: runs a `bench load` command line (its `load` renamed LABEL) and adds the server's CPU
# time per ok request from /proc: the data writer thread's and the whole process's (`cpu_by_thread` without its
# shares). Throughput and latency on a shared 2-core machine swing by a third between runs; the CPU a request costs
# moves far less, so a change to the write path shows here first.
cpu_per_ok() { cpu_by_thread "$@" | grep -v '^  server CPU, share of one core:'; }
