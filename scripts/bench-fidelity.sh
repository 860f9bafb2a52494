#!/usr/bin/env bash
# Benchmark (not a test): `compaction fidelity` over each calibration set of
# real Claude Code sessions that exists, ../shared/fixtures/sessions/ (35
# sessions, 34 automatic compactions) and ../shared/fixtures/sessions-2/ (66
# files, 74); prints the score per preset, client version range and
# repository and in total, and apart, with the evidence, the boundaries
# where a file lacks records its client had (they stay in the score), the
# files whose client passed its line without compacting (in no total) and
# the copies of a session (counted once). Extra arguments go to `compaction
# fidelity` (`--json`, `--window N`, `--preset NAME`, `--ignore-real`).
#   SESSIONS=DIR   another folder of session files (e.g. ~/.claude/projects)
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"

if [[ -n "${SESSIONS:-}" ]]; then
  dirs=("$SESSIONS")
else
  dirs=()
  for d in "$ROOT/../shared/fixtures/sessions" "$ROOT/../shared/fixtures/sessions-2"; do
    [[ -d "$d" ]] && dirs+=("$d")
  done
fi
if [[ ${#dirs[@]} -eq 0 || ! -d "${dirs[0]}" ]]; then
  say "no session folder: nothing to benchmark (set SESSIONS=DIR)"
  exit 0
fi
cd "$ROOT"
cargo build --locked --release -q -p compaction-cli
for dir in "${dirs[@]}"; do
  say "compaction fidelity $dir"
  "$ROOT/target/release/compaction" fidelity "$dir" "$@"
  echo
done
