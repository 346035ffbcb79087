#!/usr/bin/env bash
# A/B of two builds on the catalogue bench's data, run alternately so that both see the same machine: the product
# picker (a different fragment each request, c=1) and the 999-row page without a filter, ROUNDS times each.
# Usage: bench/ab.sh OLD_RELEASE_DIR NEW_RELEASE_DIR [WORK_DIR made by bench/catalog.sh] (ROUNDS=2, SECS=8)
set -uo pipefail
A=${1:?old release dir (zhizhuang and bench)}
B=${2:?new release dir}
WORK=${3:-/tmp/zzcatalog}
ADDR=127.0.0.1:18095
[ -f "$WORK/done" ] && [ -f "$WORK/picker.jsonl" ] || { echo "run bench/catalog.sh $WORK first"; exit 1; }
source "$(dirname "$0")/common.sh"
P=/api/blade-scm/product/list
for _ in $(seq 1 "${ROUNDS:-2}"); do
  for T in "$A" "$B"; do
    stop; start; TOK=$(token); wait_index "$TOK"
    # A short warm-up, so that both builds start with the same pages cached.
    "$T/bench" load --addr $ADDR --method POST --path "$P?_t={n}" --bodies "$WORK/picker.jsonl" --token "$TOK" --conns 1 --secs 2 > /dev/null
    "$T/bench" load --addr $ADDR --method POST --path "$P?_t={n}" --bodies "$WORK/picker.jsonl" --token "$TOK" --conns 1 --secs "${SECS:-8}" | sed "s#^load#$T picker#"
    "$T/bench" load --addr $ADDR --method POST --path "$P?_t={n}" --body '{"page":1,"size":999}' --token "$TOK" --conns 1 --secs 5 | sed "s#^load#$T 999 rows#"
    stop
  done
done
