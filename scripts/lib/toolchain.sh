# Which toolchain builds wasm32, and the environment for it. Sourced.
# shellcheck shell=bash
#
# COMPACTION_WASM_TOOLCHAIN=auto (default) | rustup | debian
#   debian: Debian's rustc-web 1.96 with std rebuilt from source (build-std,
#           immediate-abort panics, std's optimize_for_size); needs no
#           download beyond Debian's packages. This is the build that ships:
#           CI forces it, and the package's size budgets are its sizes.
#   rustup: rustup's own toolchain with the wasm32-unknown-unknown target
#           and its prebuilt std. The same features, larger modules (std
#           is not rebuilt for size): not the artifact CI ships.
#   auto:   debian whenever it is installed or can be installed here
#           (Debian 12 with apt-get, as root or with sudo), so a fresh
#           machine builds what CI ships; else rustup when its target is
#           installed or `rustup target add` succeeds within
#           COMPACTION_RUSTUP_TIMEOUT seconds (default 30); else debian.
# COMPACTION_OS_RELEASE (default /etc/os-release) is read to tell Debian 12;
# scripts/tests/toolchain-choice.sh points it at stand-ins.

source "${BASH_SOURCE[0]%/*}/pins.sh"

# True when Debian's rustc-web is installed at the pinned version.
debian_toolchain_installed() {
    [ "$(dpkg-query -W -f='${db:Status-Status} ${Version}' rustc-web 2>/dev/null)" = "installed $DEBIAN_RUST_WEB_VERSION" ]
}

# True when this machine can install it: Debian 12 (bookworm, where the
# pinned packages are), apt-get, and root or sudo without a password.
debian_toolchain_installable() {
    local os_release="${COMPACTION_OS_RELEASE:-/etc/os-release}" codename
    codename="$(. "$os_release" 2>/dev/null && echo "${VERSION_CODENAME:-}")"
    [ "$codename" = bookworm ] || return 1
    command -v apt-get >/dev/null 2>&1 || return 1
    [ "$(id -u)" = 0 ] || sudo -n true >/dev/null 2>&1
}

# Sets WASM_MODE (rustup|debian) and WASM_MODE_REASON.
choose_wasm_mode() {
    local requested="${COMPACTION_WASM_TOOLCHAIN:-auto}"
    case "$requested" in
        rustup | debian)
            WASM_MODE="$requested"
            WASM_MODE_REASON="forced by COMPACTION_WASM_TOOLCHAIN=$requested"
            [ "$requested" = rustup ] && WASM_MODE_REASON="$WASM_MODE_REASON; $RUSTUP_NOT_SHIPPED"
            return 0
            ;;
        auto) ;;
        *)
            echo "error: COMPACTION_WASM_TOOLCHAIN must be auto, rustup or debian, not '$requested'" >&2
            return 1
            ;;
    esac
    if debian_toolchain_installed; then
        WASM_MODE=debian
        WASM_MODE_REASON="auto: Debian's rustc-web is installed (the build CI ships)"
        return 0
    fi
    if debian_toolchain_installable; then
        WASM_MODE=debian
        WASM_MODE_REASON="auto: Debian 12 with apt-get: Debian's rustc-web can be installed (the build CI ships)"
        return 0
    fi
    if ! command -v rustup >/dev/null 2>&1; then
        WASM_MODE=debian
        WASM_MODE_REASON="auto: rustup is not installed"
        return 0
    fi
    if rustup target list --installed 2>/dev/null | grep -qx 'wasm32-unknown-unknown'; then
        WASM_MODE=rustup
        WASM_MODE_REASON="auto: Debian's rustc-web is not installed and cannot be installed here (Debian 12, apt-get, root or sudo); rustup's wasm32-unknown-unknown target is installed; $RUSTUP_NOT_SHIPPED"
        return 0
    fi
    local timeout_s="${COMPACTION_RUSTUP_TIMEOUT:-30}"
    if timeout "$timeout_s" rustup target add wasm32-unknown-unknown >/dev/null 2>&1; then
        WASM_MODE=rustup
        WASM_MODE_REASON="auto: Debian's rustc-web is not installed and cannot be installed here (Debian 12, apt-get, root or sudo); rustup target add wasm32-unknown-unknown succeeded; $RUSTUP_NOT_SHIPPED"
        return 0
    fi
    WASM_MODE=debian
    WASM_MODE_REASON="auto: rustup target add wasm32-unknown-unknown failed or took over ${timeout_s}s"
}

RUSTUP_NOT_SHIPPED="not the release build: rustup's prebuilt std makes larger wasm modules than CI ships (the package's size budgets are not checked)"

# Exports the environment that makes cargo and trunk build wasm32 in
# WASM_MODE. Host builds must not see it: call it in a subshell.
wasm_env() {
    export RUST_BACKTRACE=0
    case "$WASM_MODE" in
        rustup)
            export CARGO_TARGET_DIR="$ROOT/target"
            ;;
        debian)
            # Release builds (the package, the sandbox) panic with
            # immediate-abort: std is rebuilt anyway, so the panic machinery
            # (messages, locations, formatting) is left out: -32 KB raw,
            # -12 KB gzip. A panic still traps; the engine never panics on
            # input (fuzzed). rustup's prebuilt std cannot do this (abort).
            # std's `optimize_for_size` picks its small algorithms (sorting,
            # integer formatting): -7.9 KB gzip on the package.
            # `-Zlocation-detail=none`: no file names, lines or columns for
            # panic locations (a panic traps with no message anyway):
            # -0.4 KB gzip on the engine's module.
            # `-Zcross-crate-inline-threshold=always`: every function's body
            # is available to the crates that call it, so LLVM inlines and
            # then prunes across crates before the link; e.g. serde's
            # `Unexpected` formatter, inlined into serde_json's, loses its
            # float arm (serde_json formats floats itself) and with it
            # std's f64 `Display` (Grisu, Dragon and their tables).
            # -12.0 KB gzip on the engine's module (see the package README).
            export RUSTUP_TOOLCHAIN=debian-web RUSTC_BOOTSTRAP=1 \
                CARGO_UNSTABLE_BUILD_STD=std,panic_abort \
                CARGO_UNSTABLE_BUILD_STD_FEATURES=optimize_for_size \
                CARGO_UNSTABLE_PANIC_IMMEDIATE_ABORT=true \
                CARGO_PROFILE_RELEASE_PANIC=immediate-abort \
                CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_LINKER=/usr/lib/llvm-19/bin/wasm-ld \
                CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS='-Zlocation-detail=none -Zcross-crate-inline-threshold=always' \
                CARGO_TARGET_DIR="$ROOT/target/debian-web"
            ;;
        *)
            echo "error: choose_wasm_mode has not run" >&2
            return 1
            ;;
    esac
}

# Chooses the mode and says which, and why.
announce_wasm_mode() {
    choose_wasm_mode || exit 1
    say "wasm toolchain: $WASM_MODE ($WASM_MODE_REASON)"
}
