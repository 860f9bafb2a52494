# Places a wasm module's functions in the order gzip packs best (similar
# ones side by side): scripts/lib/order-functions.mjs names them in that
# order, `wasm-opt --reorder-functions-by-name` writes it. Only the order
# changes, never what a function does. Sourced (after common.sh), not run;
# used by scripts/build-pkg.sh and scripts/order-sandbox.sh.
# shellcheck shell=bash

# order_functions WASM SHRINK [WASM-OPT FLAGS...]: WASM rewritten in place.
# SHRINK is the -s level of the -O the module was last optimised at (1 for
# -Os, 2 for -Oz): with `-ol 2 -s SHRINK` and no passes binaryen writes the
# module as that -O does (its stack IR), else the re-read code grows (+0.5
# KB gzip on the engine's module). The flags name the module's features
# when its target-features section is gone.
order_functions() {
    local wasm="$1" shrink="$2"
    shift 2
    node "$ROOT/scripts/lib/order-functions.mjs" "$wasm" "$wasm.named" || return 1
    wasm-opt "$@" -ol 2 -s "$shrink" --reorder-functions-by-name --strip-debug --strip-target-features \
        "$wasm.named" -o "$wasm" || return 1
    rm -f "$wasm.named"
}
