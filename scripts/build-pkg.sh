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
# Assumes the tools are installed (scripts/test.sh installs them).
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
source "$ROOT/scripts/lib/toolchain.sh"

[ -n "${WASM_MODE:-}" ] || announce_wasm_mode
# Unless a toolchain is forced, the package is built with std rebuilt for
# size whenever the Debian toolchain is installed (CI forces that mode):
# immediate-abort panics and std's optimize_for_size take ~20 KB gzip off the
# engine's module, which rustup's prebuilt std cannot. Without it, rustup
# builds a larger package.
if [ "$WASM_MODE" = rustup ] && [ "${COMPACTION_WASM_TOOLCHAIN:-auto}" = auto ] &&
    rustup toolchain list 2>/dev/null | grep -q '^debian-web' && [ -x /usr/lib/llvm-19/bin/wasm-ld ]; then
    say "pkg/: built with the debian-web toolchain (std rebuilt for size), not rustup's prebuilt std"
    WASM_MODE=debian
elif [ "$WASM_MODE" = rustup ]; then
    say "pkg/: rustup's prebuilt std (the Debian toolchain is not installed): a larger module than the release's"
fi

out="$ROOT/pkg"
rm -rf "$out"
mkdir -p "$out"

# build_module FEATURE NAME: one module of the package.
build_module() {
    local feature="$1" name="$2" wasm
    # A command substitution does not inherit `set -e`: without the `||`, a
    # failed build went on with whatever module the target folder held (the
    # last feature's, or a stale one) and reported it as this one.
    wasm="$(
        wasm_env
        cargo build --release --target wasm32-unknown-unknown -p compaction-wasm \
            --no-default-features --features "$feature" >&2 || exit 1
        echo "$CARGO_TARGET_DIR/wasm32-unknown-unknown/release/compaction_wasm.wasm"
    )" || die "building the $feature module failed (see above)"
    wasm-bindgen --target web --out-dir "$out" --out-name "$name" "$wasm"
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
        --strip-producers --strip-target-features \
        "$out/${name}_bg.wasm" -o "$out/${name}_bg.wasm"
    rm -f "$out/${name}_bg.wasm.d.ts"
}

build_module engine compaction_wasm
build_module formats compaction_formats
build_module session compaction_session

version="$(awk -F'"' '/^\[workspace.package\]/ { inside = 1 } inside && /^version *=/ { print $2; exit }' "$ROOT/Cargo.toml")"
cp "$ROOT"/crates/compaction-wasm/js/{node.js,browser.js,guard.js,web.js,web.d.ts,require.cjs,index.d.ts,session-node.js,session-browser.js,session.d.ts,session-web.js,session-web.d.ts,formats-node.js,formats-browser.js,formats.d.ts,formats-web.js,formats-web.d.ts,ai-sdk.js,ai-sdk.d.ts,openai.js,openai.d.ts,openai-agents.js,openai-agents.d.ts,langchain.js,langchain.d.ts,README.md} "$out/"
# The licences the workspace names, and the SPEC the steps' rule ids (R1.3, …) point to.
cp "$ROOT"/LICENSE-MIT "$ROOT"/LICENSE-APACHE "$ROOT"/crates/compaction-core/SPEC.md "$out/"
sed "s/@VERSION@/$version/" "$ROOT/crates/compaction-wasm/js/package.json" >"$out/package.json"

for name in compaction_wasm compaction_formats compaction_session; do
    raw=$(stat -c %s "$out/${name}_bg.wasm")
    gz=$(gzip -9 -c "$out/${name}_bg.wasm" | wc -c)
    say "pkg/ built: context-compaction $version, ${name}_bg.wasm $raw bytes ($gz gzip)"
done
