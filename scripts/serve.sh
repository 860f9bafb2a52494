#!/usr/bin/env bash
# Serves the sandbox on http://127.0.0.1:8080 (trunk serve: rebuilds on
# change). Installs whatever the build needs first; each install step skips
# itself when the pinned version is already there.
#   COMPACTION_WASM_TOOLCHAIN=auto|rustup|debian   which wasm32 toolchain
#   PORT=8080                                      where to serve
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
source "$ROOT/scripts/lib/toolchain.sh"
source "$ROOT/scripts/lib/install.sh"

announce_wasm_mode
ensure_wasm_build_tools

cd "$ROOT"
wasm_env
say "serving the sandbox on http://127.0.0.1:${PORT:-8080} (Ctrl-C stops)"
exec trunk serve --port "${PORT:-8080}" "$@"
