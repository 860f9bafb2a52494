#!/usr/bin/env bash
# Builds the npm package into pkg/: the engine's wasm bindings
# (crates/compaction-wasm), wasm-bindgen's `--target web` glue, wasm-opt -Oz,
# and the entries in crates/compaction-wasm/js/. Assumes the tools are
# installed (scripts/test.sh installs them).
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
source "$ROOT/scripts/lib/toolchain.sh"

[ -n "${WASM_MODE:-}" ] || announce_wasm_mode

wasm="$(
    wasm_env
    cargo build --release --target wasm32-unknown-unknown -p compaction-wasm >&2
    echo "$CARGO_TARGET_DIR/wasm32-unknown-unknown/release/compaction_wasm.wasm"
)"

out="$ROOT/pkg"
rm -rf "$out"
mkdir -p "$out"
wasm-bindgen --target web --out-dir "$out" --out-name compaction_wasm "$wasm"
wasm-opt -Oz \
    "$out/compaction_wasm_bg.wasm" -o "$out/compaction_wasm_bg.wasm"
rm -f "$out/compaction_wasm_bg.wasm.d.ts"

version="$(awk -F'"' '/^\[workspace.package\]/ { inside = 1 } inside && /^version *=/ { print $2; exit }' "$ROOT/Cargo.toml")"
cp "$ROOT"/crates/compaction-wasm/js/{node.js,browser.js,index.d.ts,README.md} "$out/"
sed "s/@VERSION@/$version/" "$ROOT/crates/compaction-wasm/js/package.json" >"$out/package.json"

raw=$(stat -c %s "$out/compaction_wasm_bg.wasm")
gz=$(gzip -9 -c "$out/compaction_wasm_bg.wasm" | wc -c)
say "pkg/ built: context-compaction $version, compaction_wasm_bg.wasm $raw bytes ($gz gzip)"
