#!/usr/bin/env bash
# Serves the sandbox on http://127.0.0.1:8080 (trunk serve: rebuilds on
# change; reload the page to see a rebuild). Installs whatever the build
# needs first; each install step skips itself when the pinned version is
# already there.
#   COMPACTION_WASM_TOOLCHAIN=auto|rustup|debian   which wasm32 toolchain
#   PORT=8080                                      where to serve
#   SERVE_DIST=target/serve-dist                   where the served build goes
#
# Two things differ from a plain `trunk serve`:
# - it builds into $SERVE_DIST, never into dist/: dist/ is the release build
#   the browser tests (tests/e2e) and scripts/test.sh use, and a debug build
#   there would be tested in its place;
# - no auto-reload: Trunk injects its reload client as an inline <script>,
#   which the page's Content-Security-Policy (no inline script, own origin
#   only; web/index.html) refuses with a console error on every load. The
#   policy stays strict; reload by hand.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
source "$ROOT/scripts/lib/toolchain.sh"
source "$ROOT/scripts/lib/install.sh"

cd "$ROOT"
dist="${SERVE_DIST:-target/serve-dist}"
case "$(realpath -m "$dist")" in
    "$(realpath -m "$ROOT/dist")"|"$(realpath -m "$ROOT/dist")"/*)
        echo "SERVE_DIST=$dist would overwrite the release build in dist/" >&2
        exit 2
        ;;
esac

announce_wasm_mode
ensure_wasm_build_tools || die "installing the tools failed (see above)"

wasm_env
say "serving the sandbox on http://127.0.0.1:${PORT:-8080} from $dist (Ctrl-C stops; reload after a rebuild)"
exec trunk serve --port "${PORT:-8080}" --dist "$dist" --no-autoreload "$@"
