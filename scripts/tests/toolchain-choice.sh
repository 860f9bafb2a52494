#!/usr/bin/env bash
# Tests choose_wasm_mode (scripts/lib/toolchain.sh) on every branch, with a
# fake `rustup` on PATH standing in for each machine.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/../lib/common.sh"
source "$ROOT/scripts/lib/toolchain.sh"

failures=0
fake="$(mktemp -d)"
trap 'rm -rf "$fake"' EXIT
mkdir -p "$fake/bin"
base_path="$fake/bin:/usr/bin:/bin"

# fake_rustup INSTALLED ADD: INSTALLED yes|no, ADD ok|fail|hang
fake_rustup() {
    cat >"$fake/bin/rustup" <<FAKE
#!/bin/sh
case "\$1 \$2" in
  "target list") echo x86_64-unknown-linux-gnu; [ "$1" = yes ] && echo wasm32-unknown-unknown; exit 0 ;;
  "target add") case "$2" in ok) exit 0 ;; fail) echo "error: no network" >&2; exit 1 ;; hang) exec sleep 30 ;; esac ;;
esac
exit 2
FAKE
    chmod +x "$fake/bin/rustup"
}

# expect MODE [VAR=VALUE...]: runs choose_wasm_mode in a clean environment.
expect() {
    local want="$1" got
    shift
    got="$(env -i PATH="$base_path" COMPACTION_RUSTUP_TIMEOUT=1 "$@" bash -c '
        source "'"$ROOT"'/scripts/lib/toolchain.sh"
        choose_wasm_mode && echo "$WASM_MODE|$WASM_MODE_REASON"' 2>&1)"
    if [ "${got%%|*}" = "$want" ]; then
        echo "ok   $want  ${got#*|}"
    else
        echo "FAIL want $want, got: $got ($*)"
        failures=$((failures + 1))
    fi
}

fake_rustup yes fail
expect rustup                                  # target installed
fake_rustup no ok
expect rustup                                  # target add succeeds
fake_rustup no fail
expect debian                                  # target add fails
fake_rustup no hang
expect debian                                  # target add times out
rm -f "$fake/bin/rustup"
expect debian                                  # no rustup at all
fake_rustup yes ok
expect debian COMPACTION_WASM_TOOLCHAIN=debian # forced debian
fake_rustup no fail
expect rustup COMPACTION_WASM_TOOLCHAIN=rustup # forced rustup

# An unknown value is an error that names the variable, not a silent default.
if out="$(env -i PATH="$base_path" COMPACTION_WASM_TOOLCHAIN=nightly bash -c '
    source "'"$ROOT"'/scripts/lib/toolchain.sh"; choose_wasm_mode' 2>&1)"; then
    echo "FAIL COMPACTION_WASM_TOOLCHAIN=nightly was accepted"
    failures=$((failures + 1))
elif [[ "$out" == *COMPACTION_WASM_TOOLCHAIN* ]]; then
    echo "ok   error  $out"
else
    echo "FAIL unexpected message: $out"
    failures=$((failures + 1))
fi

[ "$failures" -eq 0 ] || { echo "$failures toolchain-choice case(s) failed"; exit 1; }
