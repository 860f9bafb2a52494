#!/usr/bin/env bash
# The engine's layers point one way (ARCHITECTURE.md, "The engine"): each
# module of compaction-core/src may name (`crate::module`) its own layer and
# the layers below it, never one above. Also: every `impl Engine` block
# lives under engine/. Fails, naming the file and line, on the first kind
# of breach; prints the layer order when all hold.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
src="${1:-$here/../../crates/compaction-core/src}"

# Bottom to top. A module not listed here is an error (a new module must be
# given a layer).
layers=(
    "model: message time error hash text"
    "rules: tokens groups thresholds step summary reduction overflow"
    "view: store view breakdown"
    "tiers: microcompact snip collapse compact breakers api"
    "engine: engine"
    "import/export: transcript format"
)

declare -A level
for i in "${!layers[@]}"; do
    for m in ${layers[$i]#*:}; do level[$m]=$i; done
done

failures=0
fail() { echo "layers: $*" >&2; failures=$((failures + 1)); }

while IFS= read -r file; do
    rel="${file#"$src"/}"
    [ "$rel" = lib.rs ] && continue
    module="${rel%%/*}"
    module="${module%.rs}"
    own="${level[$module]-}"
    if [ -z "$own" ]; then
        fail "$rel: module '$module' has no layer (add it to scripts/tests/layers.sh)"
        continue
    fi
    # Code lines only (comments and doc comments may name anything).
    while IFS=: read -r line text; do
        if [[ "$text" == *"crate::{"* ]]; then
            fail "$rel:$line: write one \`use crate::module::…\` per module (the check reads module names)"
        fi
        for used in $(grep -o 'crate::[a-z_][a-z0-9_]*' <<<"$text" | sed 's/crate:://' | sort -u); do
            target="${level[$used]-}"
            if [ -z "$target" ]; then
                fail "$rel:$line: names crate::$used, which has no layer"
            elif [ "$target" -gt "$own" ]; then
                fail "$rel:$line: $module (${layers[$own]%%:*}) names crate::$used (${layers[$target]%%:*}), a layer above"
            fi
        done
    done < <(grep -n 'crate::' "$file" | grep -vE '^[0-9]+:\s*//')
    if [ "$module" != engine ]; then
        while IFS=: read -r line _; do
            fail "$rel:$line: \`impl Engine\` outside engine/"
        done < <(grep -nE '^\s*impl(<[^>]*>)? Engine\b' "$file")
    fi
done < <(find "$src" -name '*.rs' | sort)

if [ "$failures" -gt 0 ]; then
    echo "layers: $failures breach(es)" >&2
    exit 1
fi
for i in "${!layers[@]}"; do echo "layer $i ${layers[$i]}"; done
echo "layers: every module of compaction-core names only its own layer and those below"
