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
# A PATH of stand-ins plus the few real tools choose_wasm_mode runs, so no
# real rustup, apt-get, dpkg-query or sudo of this machine is seen.
mkdir -p "$fake/bin"
for tool in bash sh timeout grep sleep cat; do
    ln -s "$(command -v "$tool")" "$fake/bin/$tool"
done
base_path="$fake/bin"
printf 'ID=debian\nVERSION_CODENAME=bookworm\n' >"$fake/bookworm"
printf 'ID=ubuntu\nVERSION_CODENAME=noble\n' >"$fake/noble"

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

# fake_debian RUSTC_WEB APT ROOT: RUSTC_WEB installed|other|absent (the
# pinned version, another one, none), APT yes|no (apt-get on PATH), ROOT
# root|sudo|user (uid 0; another uid with sudo; without).
fake_debian() {
    local status
    case "$1" in
        installed) status="installed $DEBIAN_RUST_WEB_VERSION" ;;
        other) status="installed 1.85.0+dfsg1-1~deb12u1" ;;
        absent) status="" ;;
    esac
    printf '#!/bin/sh\n[ -n "%s" ] || exit 1\nprintf "%%s" "%s"\n' "$status" "$status" >"$fake/bin/dpkg-query"
    rm -f "$fake/bin/apt-get"
    [ "$2" = yes ] && printf '#!/bin/sh\nexit 0\n' >"$fake/bin/apt-get"
    case "$3" in
        root) printf '#!/bin/sh\necho 0\n' >"$fake/bin/id"; printf '#!/bin/sh\nexit 1\n' >"$fake/bin/sudo" ;;
        sudo) printf '#!/bin/sh\necho 1000\n' >"$fake/bin/id"; printf '#!/bin/sh\nexit 0\n' >"$fake/bin/sudo" ;;
        user) printf '#!/bin/sh\necho 1000\n' >"$fake/bin/id"; printf '#!/bin/sh\nexit 1\n' >"$fake/bin/sudo" ;;
    esac
    chmod +x "$fake/bin/"*
}

# expect MODE OS [VAR=VALUE...]: runs choose_wasm_mode in a clean
# environment on a machine whose /etc/os-release is OS (bookworm|noble).
expect() {
    local want="$1" os="$2" got
    shift 2
    got="$(env -i PATH="$base_path" COMPACTION_RUSTUP_TIMEOUT=1 COMPACTION_OS_RELEASE="$fake/$os" "$@" bash -c '
        source "'"$ROOT"'/scripts/lib/toolchain.sh"
        choose_wasm_mode && echo "$WASM_MODE|$WASM_MODE_REASON"' 2>&1)"
    if [ "${got%%|*}" = "$want" ]; then
        echo "ok   $want  ${got#*|}"
    else
        echo "FAIL want $want, got: $got ($os $*)"
        failures=$((failures + 1))
    fi
}

# The build CI ships whenever this machine has it or can install it, even
# with rustup's target at hand.
fake_rustup yes ok
fake_debian installed no user
expect debian noble                            # rustc-web installed
fake_debian absent yes root
expect debian bookworm                         # Debian 12, apt-get, root
fake_debian other yes sudo
expect debian bookworm                         # Debian 12, apt-get, sudo (another version installed)
# Otherwise rustup's target, or Debian as the last resort.
fake_debian absent yes user
fake_rustup yes fail
expect rustup bookworm                         # no root, no sudo: target installed
fake_debian absent no root
expect rustup bookworm                         # no apt-get: target installed
fake_debian absent yes root
expect rustup noble                            # not Debian 12: target installed
fake_rustup no ok
expect rustup noble                            # target add succeeds
fake_rustup no fail
expect debian noble                            # target add fails
fake_rustup no hang
expect debian noble                            # target add times out
rm -f "$fake/bin/rustup"
expect debian noble                            # no rustup at all
fake_rustup yes ok
expect debian noble COMPACTION_WASM_TOOLCHAIN=debian # forced debian
fake_debian installed yes root
fake_rustup no fail
expect rustup bookworm COMPACTION_WASM_TOOLCHAIN=rustup # forced rustup

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
