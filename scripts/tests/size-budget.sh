#!/usr/bin/env bash
# The size ratchet (scripts/lib/sizes.sh) fails a module over its budget
# and passes one within it: a module that grew must not go unnoticed.
# Checked on a file of random bytes (gzip cannot shrink it) of known size.
set -uo pipefail
source "$(dirname "$0")/../lib/common.sh"
source "$ROOT/scripts/lib/toolchain.sh"
source "$ROOT/scripts/lib/sizes.sh"

dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
head -c 4000 /dev/urandom >"$dir/m_bg.wasm"
gz=$(gzip -9 -c "$dir/m_bg.wasm" | wc -c)
failures=0
if within_budget compaction_wasm "$dir/m_bg.wasm" $((gz - 1)) 2>/dev/null; then
    echo "size-budget: a module 1 B over its budget passed" >&2
    failures=$((failures + 1))
fi
within_budget compaction_wasm "$dir/m_bg.wasm" "$gz" >/dev/null ||
    { echo "size-budget: a module exactly at its budget failed" >&2; failures=$((failures + 1)); }
within_budget compaction_wasm "$dir/absent_bg.wasm" 1000000 2>/dev/null &&
    { echo "size-budget: a module that is not built passed" >&2; failures=$((failures + 1)); }
for name in compaction_wasm compaction_formats compaction_session sandbox; do
    size_budget "$name" >/dev/null || { echo "size-budget: no budget for $name" >&2; failures=$((failures + 1)); }
done
size_budget nothing >/dev/null 2>&1 && { echo "size-budget: a budget for an unknown module" >&2; failures=$((failures + 1)); }
[ "$failures" -eq 0 ] && echo "size-budget: over budget fails, within passes, every module has a budget"
[ "$failures" -eq 0 ]
