#!/usr/bin/env bash
# Trunk post-build hook: the release sandbox's functions in the order gzip
# packs best, as scripts/build-pkg.sh orders the package's modules
# (scripts/lib/order.sh): 354,910 -> 347,030 B gzip on 2026-12-07
# (-7.9 KB). Debug builds (scripts/serve.sh) are left as they are.
#
# Trunk's own wasm-opt (-Oz, web/index.html) has stripped the module's
# target-features section by now, so the features Rust's wasm32 target
# emits are named here.
set -euo pipefail
[ "${TRUNK_PROFILE:-}" = release ] || exit 0
source "$(dirname "$0")/lib/common.sh"
source "$ROOT/scripts/lib/order.sh"
for wasm in "${TRUNK_STAGING_DIR:?run by trunk as a post_build hook}"/*_bg.wasm; do
    order_functions "$wasm" 2 --enable-bulk-memory --enable-reference-types --enable-sign-ext \
        --enable-nontrapping-float-to-int --enable-mutable-globals --enable-multivalue
done
