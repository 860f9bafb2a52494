#!/usr/bin/env bash
# Benchmark (not a test): `compaction fidelity` over the calibration set of
# real Claude Code sessions, ../shared/fixtures/sessions/ (35 sessions, 34
# automatic compactions), when that folder exists; prints the score per
# preset (version range) and in total, and apart, with the evidence, the
# boundaries where a file lacks records its client had (they stay in the
# score). Extra arguments go to `compaction
# fidelity` (`--json`, `--window N`, `--preset NAME`, `--ignore-real`).
#   SESSIONS=DIR   another folder of session files (e.g. ~/.claude/projects)
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"

dir="${SESSIONS:-$ROOT/../shared/fixtures/sessions}"
if [[ ! -d "$dir" ]]; then
  say "no session folder at $dir: nothing to benchmark (set SESSIONS=DIR)"
  exit 0
fi
cd "$ROOT"
cargo build --locked --release -q -p compaction-cli
say "compaction fidelity $dir"
exec "$ROOT/target/release/compaction" fidelity "$dir" "$@"
