# Installers: each one skips itself, saying so, when the pinned version is
# already there, and returns non-zero when an install fails (callers chain
# them with `&&`: `set -e` is off in a subshell whose status is tested, so
# a failure must be returned, not left to errexit). Sourced.
# shellcheck shell=bash

APT_UPDATED=""

# ensure_apt PKG=VERSION|PKG ... : installs what is missing or at another
# version. A bare PKG (no pin) is skipped when any version is installed.
ensure_apt() {
    local want=() spec pkg version have
    for spec in "$@"; do
        pkg="${spec%%=*}"
        version=""
        [ "$spec" != "$pkg" ] && version="${spec#*=}"
        have="$(dpkg-query -W -f='${db:Status-Status} ${Version}' "$pkg" 2>/dev/null || true)"
        if [ -n "$version" ] && [ "$have" = "installed $version" ]; then
            skip "$pkg $version is installed"
        elif [ -z "$version" ] && [ "${have%% *}" = "installed" ]; then
            skip "$pkg ${have#installed } is installed (not pinned)"
        else
            want+=("$spec")
        fi
    done
    [ ${#want[@]} -eq 0 ] && return 0
    say "apt-get install ${want[*]}"
    if [ -z "$APT_UPDATED" ]; then
        as_root apt-get update -qq || return 1
        APT_UPDATED=1
    fi
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${want[@]}"
}

# Debian's rustc-web toolchain, registered with rustup as `debian-web`.
ensure_debian_wasm_toolchain() {
    local v="$DEBIAN_RUST_WEB_VERSION"
    # The three rust-web packages go in one command so std's source matches.
    ensure_apt "rustc-web=$v" "cargo-web=$v" "rust-web-src=$v" "rust-web-clippy=$v" "lld-19=$DEBIAN_LLD_VERSION" || return 1
    if command -v rustup >/dev/null 2>&1; then
        if rustup toolchain list | grep -q '^debian-web'; then
            skip "rustup toolchain debian-web is linked"
        else
            say "rustup toolchain link debian-web /usr"
            rustup toolchain link debian-web /usr || return 1
        fi
    fi
}

# cargo install CRATE at exactly VERSION unless `BIN --version` says so.
# --locked first; without it when the locked set no longer resolves
# (wasm-bindgen-cli 0.2.130's lock wants a webpki-roots the registry lacks).
ensure_cargo_tool() {
    local crate="$1" version="$2" bin="$3" expected="$4" have
    have="$("$bin" --version 2>/dev/null || true)"
    if [ "$have" = "$expected" ]; then
        skip "$bin $version is installed"
        return 0
    fi
    say "cargo install $crate --version =$version (found: ${have:-none})"
    cargo install "$crate" --version "=$version" --locked --force \
        || cargo install "$crate" --version "=$version" --force
}

ensure_wasm_bindgen_cli() {
    local v
    v="$(wasm_bindgen_version)"
    [ -n "$v" ] || die "no wasm-bindgen in Cargo.lock"
    ensure_cargo_tool wasm-bindgen-cli "$v" wasm-bindgen "wasm-bindgen $v"
}

ensure_trunk() {
    ensure_cargo_tool trunk "$TRUNK_VERSION" trunk "trunk $TRUNK_VERSION"
}

# tests/node_modules from tests/package-lock.json (playwright-core,
# typescript, binaryen's wasm-opt). Skipped when the lock is unchanged since
# the last `npm ci`.
ensure_npm_packages() {
    command -v node >/dev/null 2>&1 || die "node (>= 20) is required; install Node.js 20 or newer"
    local major
    major="$(node -p 'process.versions.node.split(".")[0]')"
    [ "$major" -ge 20 ] || die "node >= 20 is required, found $(node --version)"
    local stamp="$ROOT/tests/node_modules/.lock-sha256" sum
    sum="$(sha256sum "$ROOT/tests/package-lock.json" | cut -d' ' -f1)"
    if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$sum" ]; then
        skip "npm packages match tests/package-lock.json"
        return 0
    fi
    say "npm ci (tests/)"
    # The stamp only after a whole install: a failed one is redone next time.
    (cd "$ROOT/tests" && npm ci --no-audit --no-fund --loglevel=error) || return 1
    echo "$sum" >"$stamp"
}

# Debian's Chromium and ChromeDriver for browser tests (not pinned: Debian
# replaces Chromium with each security release).
ensure_chromium() {
    ensure_apt chromium chromium-driver
}

# What builds the package (scripts/build-pkg.sh) for WASM_MODE.
ensure_pkg_build_tools() {
    if [ "$WASM_MODE" = debian ]; then
        ensure_debian_wasm_toolchain || return 1
    fi
    ensure_wasm_bindgen_cli && ensure_npm_packages
}

# Everything that builds the sandbox and the package for WASM_MODE.
ensure_wasm_build_tools() {
    if [ "$WASM_MODE" = debian ]; then
        ensure_debian_wasm_toolchain || return 1
    fi
    ensure_wasm_bindgen_cli && ensure_trunk && ensure_npm_packages
}
