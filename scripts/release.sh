#!/usr/bin/env bash
# Builds the release archives our buyers install: dist/zhizhuang-<version>-linux-x86_64.tar.gz and
# …-linux-aarch64.tar.gz, each with the binary, README.md, LICENSE, the systemd unit and SHA256SUMS, and checks
# them before anyone downloads one:
#   - the highest GLIBC symbol version each binary needs is at most 2.17 (CentOS 7; Kylin V10, UOS 20 and every
#     later distribution run it);
#   - `file` names the right architecture;
#   - a smoke run of each (the aarch64 one under qemu-aarch64-static): start on an empty directory, /api/health,
#     the server-rendered sign-in page, one sign-in and one write.
# Why glibc 2.17 and not musl: the binary is built against glibc's oldest symbols with cargo-zigbuild (zig's
# linker carries the old symbol versions), so it keeps glibc's malloc-free fast paths, DNS resolution through
# nsswitch (an office's LAN names) and mimalloc as built for glibc; a static musl build would trade those for
# nothing the 2.17 floor does not already give.
# Needs: python3 (pip installs cargo-zigbuild and zig into a venv), rustup, and for the aarch64 smoke run Debian's
# qemu-user-static with libc6-arm64-cross and libgcc-s1-arm64-cross (installed with apt when missing). Not part of the everyday test command: it builds twice in
# release mode (tens of minutes on two cores).
# Usage: bash scripts/release.sh [x86_64|aarch64 ...]   (both when none is given)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
ARCHES=("$@")
[ ${#ARCHES[@]} -gt 0 ] || ARCHES=(x86_64 aarch64)
VERSION=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
COMMIT=$(git rev-parse --short=10 HEAD 2>/dev/null || echo unknown)
[ -z "$(git status --porcelain 2>/dev/null)" ] || COMMIT="$COMMIT-dirty"
export ZZ_BUILD_COMMIT=$COMMIT
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/zz-target}"
ZIG_VENV="$HOME/.cache/zz-zig"
if [ ! -x "$ZIG_VENV/bin/cargo-zigbuild" ]; then
  echo "== installing cargo-zigbuild and zig (pip, in $ZIG_VENV)"
  python3 -m venv "$ZIG_VENV"
  "$ZIG_VENV/bin/pip" install -q cargo-zigbuild ziglang
fi
export PATH="$ZIG_VENV/bin:$PATH"
DIST="$ROOT/dist"
mkdir -p "$DIST"
report=()

glibc_max() { objdump -T "$1" | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -1; }

smoke() { # smoke BINARY [RUNNER]: an empty directory, health, the sign-in page, a sign-in, a write
  local bin=$1 runner=${2:-} dir port pw md5 tok out
  dir=$(mktemp -d); port=$((20000 + RANDOM % 20000)); pw='Release#2026'
  ZZ_ADMIN_PASSWORD=$pw ZZ_LOG=warn $runner "$bin" serve --http 127.0.0.1:$port --dir "$dir/data" > "$dir/serve.log" 2>&1 &
  local pid=$!
  for _ in $(seq 1 600); do curl -sf -o /dev/null "http://127.0.0.1:$port/api/health" && break; sleep 0.5; done
  out=$(curl -sf "http://127.0.0.1:$port/api/health") || { echo "health failed"; cat "$dir/serve.log"; kill $pid; return 1; }
  echo "   health: $out"
  # The render pool comes up beside the listener (seconds under an emulator): until then pages are rendered in the
  # browser only, so the server-rendered form is waited for.
  local rendered=""
  for _ in $(seq 1 120); do curl -sf "http://127.0.0.1:$port/login" | grep -q 'type="password"' && { rendered=1; break; }; sleep 0.5; done
  [ -n "$rendered" ] || { echo "the sign-in page is not rendered"; kill $pid; return 1; }
  echo "   /login: server-rendered sign-in page"
  md5=$(printf '%s' "$pw" | md5sum | cut -d' ' -f1)
  tok=$(curl -sf -X POST -H 'Authorization: Basic c2FiZXI6c2FiZXJfc2VjcmV0' -H 'Tenant-Id: 157270' \
    "http://127.0.0.1:$port/api/blade-auth/oauth/token?tenantId=157270&username=admin&password=$md5&grant_type=password&scope=all" |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["access_token"])') || { echo "sign-in failed"; kill $pid; return 1; }
  echo "   sign-in: ok"
  out=$(curl -sf -X POST -H "Blade-Auth: bearer $tok" -H 'Content-Type: application/json' \
    -d '{"paramName":"发布检查","paramKey":"release.smoke","paramValue":"1"}' "http://127.0.0.1:$port/api/blade-system/param/submit")
  echo "$out" | grep -q '"success":true' || { echo "write failed: $out"; kill $pid; return 1; }
  echo "   write: ok"
  kill -TERM $pid; wait $pid || true
  rm -rf "$dir"
}

for arch in "${ARCHES[@]}"; do
  target="$arch-unknown-linux-gnu"
  echo "== $arch: cargo zigbuild --release --target $target.2.17 ($VERSION, $COMMIT)"
  rustup target add "$target" > /dev/null
  started=$(date +%s)
  cargo zigbuild --release --bin zhizhuang --target "$target.2.17"
  secs=$(( $(date +%s) - started ))
  bin="$CARGO_TARGET_DIR/$target/release/zhizhuang"
  max=$(glibc_max "$bin")
  desc=$(file -b "$bin")
  echo "   built in ${secs} s: $(du -h "$bin" | cut -f1), needs $max; $desc"
  case "$max" in GLIBC_2.1[0-7]|GLIBC_2.[0-9]|GLIBC_2.17) ;; *) echo "needs $max: above GLIBC_2.17"; exit 1 ;; esac
  case "$arch:$desc" in x86_64:*x86-64*|aarch64:*aarch64*|aarch64:*ARM\ aarch64*) ;; *) echo "not an $arch binary: $desc"; exit 1 ;; esac
  runner=""
  if [ "$arch" != "$(uname -m)" ]; then
    # The emulator, and the target's own glibc loader and libraries for it to load the binary with (Debian's
    # cross packages put them under /usr/aarch64-linux-gnu; QEMU_LD_PREFIX points qemu there).
    if ! command -v qemu-aarch64-static > /dev/null || [ ! -e /usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1 ]; then
      echo "   installing qemu-user-static and the aarch64 C library for the smoke run"
      apt-get update -qq > /dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq qemu-user-static libc6-arm64-cross libgcc-s1-arm64-cross > /dev/null
    fi
    export QEMU_LD_PREFIX=/usr/aarch64-linux-gnu
    runner="qemu-$arch-static"
  fi
  echo "   smoke run${runner:+ under $runner}:"
  smoke "$bin" "$runner"
  name="zhizhuang-$VERSION-linux-$arch"
  stage=$(mktemp -d)/$name
  mkdir -p "$stage"
  cp "$bin" README.md LICENSE "$stage/"
  # The unit `zhizhuang install` writes for the defaults (the host's binary prints it: the same for both).
  sroot=$(mktemp -d)
  "$CARGO_TARGET_DIR/x86_64-unknown-linux-gnu/release/zhizhuang" install --root "$sroot" --no-start > /dev/null 2>&1 ||
    cargo run -q --release --bin zhizhuang -- install --root "$sroot" --no-start > /dev/null
  cp "$sroot/etc/systemd/system/zhizhuang.service" "$stage/"
  (cd "$stage" && sha256sum zhizhuang README.md LICENSE zhizhuang.service > SHA256SUMS)
  tar -C "$(dirname "$stage")" -czf "$DIST/$name.tar.gz" "$name"
  (cd "$DIST" && sha256sum "$name.tar.gz" > "$name.tar.gz.sha256")
  report+=("$name.tar.gz: $(du -h "$DIST/$name.tar.gz" | cut -f1) (binary $(du -h "$bin" | cut -f1)), built in ${secs} s, needs $max, smoke run passed")
done
echo
echo "== release $VERSION ($COMMIT) in $DIST"
printf '%s\n' "${report[@]}"
