# Shared helpers for scripts/*.sh. Sourced, not run.
# shellcheck shell=bash

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=scripts/lib/pins.sh
source "$ROOT/scripts/lib/pins.sh"

# cargo-installed tools live here; a fresh CARGO_HOME must still be on PATH.
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
# Tools from npm (wasm-opt, tsc) for trunk and the tests.
export PATH="$ROOT/tests/node_modules/.bin:$PATH"

say() { printf '\033[1m==>\033[0m %s\n' "$*" >&2; }
skip() { printf '    skip: %s\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# Runs a command as root (apt): directly when we are root, else with sudo.
as_root() {
    if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

# The wasm-bindgen version Cargo.lock resolved: the CLI must match it.
wasm_bindgen_version() {
    awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' "$ROOT/Cargo.lock"
}

# The wasm-bindgen version Trunk.toml tells trunk to use.
trunk_wasm_bindgen_version() {
    awk -F'"' '/^wasm_bindgen *=/ { print $2; exit }' "$ROOT/Trunk.toml"
}
