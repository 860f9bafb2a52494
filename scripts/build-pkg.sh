#!/usr/bin/env bash
# Builds the npm package into pkg/: the engine's wasm bindings
# (crates/compaction-wasm) as three modules, wasm-bindgen's `--target web`
# glue for each, wasm-opt -Oz, and the entries in crates/compaction-wasm/js/.
#   compaction_wasm_bg.wasm     the engine (`context-compaction`), built with
#                               the crate's `engine` feature: Anthropic
#                               messages only;
#   compaction_formats_bg.wasm  the engine with the provider formats
#                               (`context-compaction/formats`, `/ai-sdk`,
#                               `/openai`, `/langchain`), built with its
#                               `formats` feature; loaded only by those who
#                               import one of them;
#   compaction_session_bg.wasm  Claude Code session files
#                               (`context-compaction/session`), built with
#                               its `session` feature; loaded only by those
#                               who import it.
# Installs what the build needs first (each step skips itself when the
# pinned version is there), builds with the toolchain scripts/lib/toolchain.sh
# chooses (on Debian 12: Debian's rustc-web with std rebuilt for size, the
# modules CI ships) and prints each module's raw, gzip and brotli size.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
source "$ROOT/scripts/lib/toolchain.sh"
source "$ROOT/scripts/lib/install.sh"
source "$ROOT/scripts/lib/sizes.sh"
source "$ROOT/scripts/lib/order.sh"

[ -n "${WASM_MODE:-}" ] || announce_wasm_mode
ensure_pkg_build_tools || die "installing the tools failed (see above)"

out="$ROOT/pkg"
rm -rf "$out"
mkdir -p "$out"

# split_loader_types DTS INIT_DTS: wasm-bindgen's loader types (`InitInput`,
# `InitOutput`, `initSync`, the default `init`), from `export type InitInput`
# to the end of DTS, move to INIT_DTS. They name browser-only types
# (`RequestInfo`, `BufferSource`, `WebAssembly.*`), so a Node project whose
# `lib` has no "dom" failed to compile the package's types under
# `skipLibCheck: false`, though the Node entries never use them; only the
# `/web` entries (web.d.ts, formats-web.d.ts, session-web.d.ts) load a module
# by hand, and they import `InitOutput` from INIT_DTS.
split_loader_types() {
    local dts="$1" init="$2" at
    at="$(grep -n '^export type InitInput' "$dts" | head -n1 | cut -d: -f1)"
    [ -n "$at" ] || die "$dts has no 'export type InitInput': wasm-bindgen's output changed"
    tail -n +"$at" "$dts" >"$init"
    head -n $((at - 1)) "$dts" >"$dts.head" && mv "$dts.head" "$dts"
}

# build_module FEATURE NAME OPT [CARGO_ARG...]: one module of the package,
# its Rust code optimised at OPT (the workspace's release profile says "z"),
# cargo given the CARGO_ARGs too.
build_module() {
    local feature="$1" name="$2" opt="$3" wasm
    shift 3
    # A command substitution does not inherit `set -e`: without the `||`, a
    # failed build went on with whatever module the target folder held (the
    # last feature's, or a stale one) and reported it as this one.
    wasm="$(
        wasm_env
        export CARGO_PROFILE_RELEASE_OPT_LEVEL="$opt"
        cargo build --release --target wasm32-unknown-unknown -p compaction-wasm \
            --no-default-features --features "$feature" "$@" >&2 || exit 1
        echo "$CARGO_TARGET_DIR/wasm32-unknown-unknown/release/compaction_wasm.wasm"
    )" || die "building the $feature module failed (see above)"
    wasm-bindgen --target web --out-dir "$out" --out-name "$name" "$wasm"
    # The function table without the closure shims only js-sys's import
    # descriptors named (scripts/lib/dead-invokes.mjs): wasm-opt then drops
    # their code (engine: -229 B raw, -153 B gzip before ordering).
    node "$ROOT/scripts/lib/dead-invokes.mjs" "$out/${name}_bg.wasm" ||
        die "clearing the $feature module's closure shims failed"
    # Imports named `a`, `b`, … in the module and its glue alike, where
    # wasm-bindgen's names end in 16 hex digits gzip cannot pack
    # (scripts/lib/short-imports.mjs; engine: -1.3 KB gzip).
    node "$ROOT/scripts/lib/short-imports.mjs" "$out/${name}_bg.wasm" "$out/$name.js" ||
        die "shortening the $feature module's import names failed"
    split_loader_types "$out/$name.d.ts" "$out/${name}_init.d.ts"
    # --low-memory-unused: Rust's wasm layout puts the stack below 1 MiB
    # and data above it, so the low 1 KiB is only ever the far end of an
    # overflowing stack; binaryen may then fold constant offsets into loads
    # and stores (-0.9% gzip). --converge: passes again until nothing
    # shrinks (-0.3%). -Os rather than -Oz: a few hundred bytes more raw,
    # ~500 B less gzip on the engine's module. The producers and
    # target-features sections are for tools, not the runtime (-180 B).
    # --gufa-optimizing: binaryen's whole-module flow analysis (which
    # values can reach each place) then a clean-up pass (-0.2 KB gzip).
    # --one-caller-inline-max-function-size=20: a function with one caller
    # is inlined into it only when small (binaryen's default inlines every
    # one). The module is ~2% larger raw but ~6% smaller gzip (engine:
    # -11.6 KB): a function kept apart numbers its own locals and stack
    # slots from zero, so its code repeats byte patterns other functions
    # have, where the same code inlined into a large caller does not
    # (swept: 0, 10, 20, 30, 50, 100, 300 and unlimited; 10-20 is best).
    wasm-opt -Os --gufa-optimizing --low-memory-unused --converge --one-caller-inline-max-function-size=20 \
        --strip-producers \
        "$out/${name}_bg.wasm" -o "$out/${name}_bg.wasm"
    # The functions in the order gzip packs best (scripts/lib/order.sh):
    # -2.7 KB gzip on the engine's module, nothing else changes. The best
    # of the orders from the first 12 functions: ~0.2 KB less than the
    # first's alone, and a size that jumps less with each change. Then 3
    # passes of local moves on the best (order.sh's ORDER_PASSES).
    ORDER_TRIES=12 ORDER_PASSES=3 order_functions "$out/${name}_bg.wasm" 1 || die "ordering the $feature module's functions failed"
    rm -f "$out/${name}_bg.wasm.d.ts"
}

# The engine's modules are optimised for size: an agent loads one before its
# first call, and their per-call cost is microseconds either way. The
# session module reads whole files (megabytes a call), so its code is
# optimised for speed: opt-level 2 reads a 3.2 MB session about 2x as fast
# as "z" (readSession 86 -> 183 MB/s in one quiet run; 3 was no faster)
# for 77.8 -> 115.4 KB gzip, inside the 120 KB a module may take
# (scripts/lib/sizes.sh). With fat LTO one opt-level holds for the whole
# module: a per-package override (hot serde_json, the importer) changed
# nothing.
# One crate does differ: zmij (serde_json's float writer, which the JSON
# writer of message/lean.rs names) reads the opt-level in its build script
# and, at "s" or "z", computes its table of powers of ten instead of storing
# it (~17 KB raw): the same text, a few multiplications more per float
# written. The session module gets it at "z" (117,779 -> 107,058 B gzip);
# on the command line, not in Cargo.toml: there the override moved the
# engine's module +200 B gzip though its zmij is "z" already.
build_module engine compaction_wasm z
build_module formats compaction_formats z
build_module session compaction_session 2 --config 'profile.release.package.zmij.opt-level="z"'

version="$(awk -F'"' '/^\[workspace.package\]/ { inside = 1 } inside && /^version *=/ { print $2; exit }' "$ROOT/Cargo.toml")"
cp "$ROOT"/crates/compaction-wasm/js/{node.js,browser.js,guard.js,overflow.d.ts,web.js,web.d.ts,require.cjs,index.d.ts,session-node.js,session-browser.js,session.d.ts,session-web.js,session-web.d.ts,formats-node.js,formats-browser.js,formats.d.ts,formats-web.js,formats-web.d.ts,ai-sdk.js,ai-sdk.d.ts,openai.js,openai.d.ts,openai-agents.js,openai-agents.d.ts,langchain.js,langchain.d.ts,README.md} "$out/"
# The licences the workspace names, and the SPEC the steps' rule ids (R1.3, …) point to.
cp "$ROOT"/LICENSE-MIT "$ROOT"/LICENSE-APACHE "$ROOT"/crates/compaction-core/SPEC.md "$out/"
sed "s/@VERSION@/$version/" "$ROOT/crates/compaction-wasm/js/package.json" >"$out/package.json"

say "pkg/ built: context-compaction $version with the $WASM_MODE toolchain"
for name in compaction_wasm compaction_formats compaction_session; do
    size_line "$name" "$out/${name}_bg.wasm" >&2
done
if [ "$WASM_MODE" = rustup ]; then
    say "these are NOT the modules CI ships: rustup's prebuilt std makes them larger; the release build is COMPACTION_WASM_TOOLCHAIN=debian (Debian 12)"
fi
