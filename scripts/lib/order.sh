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
#
# ORDER_TRIES (default 1): how many orders to write, each greedy from
# another first function (the module's first, second, ...); the one gzip
# packs smallest is kept (ties: the earlier). The greedy order's size moves
# by up to ~1 KB with its first function, so one order made the size jump
# for a change of a few bytes; the best of several jumps less and is never
# larger than the first alone. Engine module, first functions 0-11: 164,464
# to 165,513 B, 164,658 from the first one (scripts/build-pkg.sh tries 12,
# ~4 s each).
#
# ORDER_PASSES (default 0): passes of local moves (order-functions.mjs's
# PASSES) on the best of those orders, kept only when gzip packs it smaller
# (scripts/build-pkg.sh: 3, ~30 s a module).
order_functions() {
    local wasm="$1" shrink="$2" tries="${ORDER_TRIES:-1}" passes="${ORDER_PASSES:-0}" first size best="" from=0 alone=""
    shift 2
    for ((first = 0; first < tries; first++)); do
        node "$ROOT/scripts/lib/order-functions.mjs" "$wasm" "$wasm.named" "$first" || return 1
        wasm-opt "$@" -ol 2 -s "$shrink" --reorder-functions-by-name --strip-debug --strip-target-features \
            "$wasm.named" -o "$wasm.try" || return 1
        size="$(gzip -9 -c <"$wasm.try" | wc -c)" || return 1
        [ -n "$alone" ] || alone="$size"
        if [ -z "$best" ] || [ "$size" -lt "$best" ]; then
            best="$size"
            from="$first"
            mv "$wasm.try" "$wasm.best" || return 1
        fi
    done
    [ "$tries" -eq 1 ] || echo "$(basename "$wasm"): ordered from function $from of the first $tries, $best B gzip ($alone from the first)" >&2
    # That order with ORDER_PASSES passes of local moves, kept when smaller.
    if [ "$passes" -gt 0 ]; then
        node "$ROOT/scripts/lib/order-functions.mjs" "$wasm" "$wasm.named" "$from" "$passes" || return 1
        wasm-opt "$@" -ol 2 -s "$shrink" --reorder-functions-by-name --strip-debug --strip-target-features \
            "$wasm.named" -o "$wasm.try" || return 1
        size="$(gzip -9 -c <"$wasm.try" | wc -c)" || return 1
        echo "$(basename "$wasm"): $passes passes of local moves: $best -> $size B gzip" >&2
        if [ "$size" -lt "$best" ]; then
            mv "$wasm.try" "$wasm.best" || return 1
        fi
    fi
    mv "$wasm.best" "$wasm" || return 1
    rm -f "$wasm.named" "$wasm.try"
}
