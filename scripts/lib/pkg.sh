# Installs the built pkg/ into tests/node_modules the way a user gets it:
# `npm pack`, then the tarball unpacked; with it the toolchain choice and
# the install steps that build pkg/. Sourced (after common.sh), not run.
# shellcheck shell=bash
source "$ROOT/scripts/lib/toolchain.sh"
source "$ROOT/scripts/lib/install.sh"

install_pkg() {
    local npm_dir="$ROOT/target/npm" tarball
    rm -rf "$npm_dir" && mkdir -p "$npm_dir/context-compaction"
    tarball="$(cd "$ROOT/pkg" && npm pack --silent --pack-destination "$npm_dir")" || return 1
    tar xzf "$npm_dir/$tarball" -C "$npm_dir/context-compaction" --strip-components=1 || return 1
    # A real directory, not a link: the package's subpaths import their
    # SDKs (`ai`) from beside it, as in a user's node_modules.
    rm -rf "$ROOT/tests/node_modules/context-compaction" && mkdir -p "$ROOT/tests/node_modules/context-compaction"
    tar xzf "$npm_dir/$tarball" -C "$ROOT/tests/node_modules/context-compaction" --strip-components=1 || return 1
    echo "installed $tarball into tests/node_modules"
}
