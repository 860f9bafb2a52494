#!/usr/bin/env bash
# The package's benchmarks, one command (minutes; not part of scripts/test.sh):
#   bash tests/bench/run.sh
# Builds and installs the package as scripts/test.sh does, installs the peer
# harness's pinned dependencies (@langchain/core, ai, …), then runs the peer
# table at 1k and 10k messages and the engine's own benchmarks
# (incremental append + beforeCall; importer MB/s on the session fixtures).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$ROOT"
bash scripts/build-pkg.sh
npm_dir="$ROOT/target/npm"
rm -rf "$npm_dir" && mkdir -p "$npm_dir/context-compaction"
tarball="$(cd "$ROOT/pkg" && npm pack --silent --pack-destination "$npm_dir")"
tar xzf "$npm_dir/$tarball" -C "$npm_dir/context-compaction" --strip-components=1
(cd tests && npm ci --no-audit --no-fund >/dev/null)
ln -sfn "$npm_dir/context-compaction" "$ROOT/tests/node_modules/context-compaction"
cd tests/bench/peers
npm ci --no-audit --no-fund >/dev/null
node bench.mjs --sizes 1000,10000 --budgets 180000 \
    --contenders json.parse,lc.trim,ai.prune,ai.prune-fit \
    --plugin contenders/cc-plan-json.mjs --plugin contenders/cc-plan-objects.mjs \
    --runs 15 --max-seconds 90 --min-runs 3
cd "$ROOT/tests"
node --expose-gc bench/engine.mjs
# Issue 30's table beside JSON.parse / JSON.stringify, one process.
node --expose-gc bench/table.mjs
node bench/formats.mjs
