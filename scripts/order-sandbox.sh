#!/usr/bin/env bash
# Trunk post-build hook: the release sandbox's functions in the order gzip
# packs best, as scripts/build-pkg.sh orders the package's modules
# (scripts/lib/order-functions.mjs names them in that order; wasm-opt
# --reorder-functions-by-name writes it). Only the order changes, never what
# a function does: 354,910 -> 347,030 B gzip on 2026-12-07 (-7.9 KB). Debug
# builds (scripts/serve.sh) are left as they are.
#
# Trunk's own wasm-opt (-Oz, web/index.html) has stripped the module's
# target-features section by now, so the features Rust's wasm32 target
# emits are named here; `-ol 2 -s 2` are -Oz's levels without its passes
# (binaryen then writes the module as -Oz does).
set -euo pipefail
[ "${TRUNK_PROFILE:-}" = release ] || exit 0
root="$(cd "$(dirname "$0")/.." && pwd)"
for wasm in "${TRUNK_STAGING_DIR:?run by trunk as a post_build hook}"/*_bg.wasm; do
    node "$root/scripts/lib/order-functions.mjs" "$wasm" "$wasm.named"
    wasm-opt --enable-bulk-memory --enable-reference-types --enable-sign-ext \
        --enable-nontrapping-float-to-int --enable-mutable-globals --enable-multivalue \
        -ol 2 -s 2 --reorder-functions-by-name --strip-debug --strip-target-features \
        "$wasm.named" -o "$wasm"
    rm -f "$wasm.named"
done
