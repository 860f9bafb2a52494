#!/usr/bin/env bash
# Explores fresh seeds for a while: the package's random-operation fuzzer
# (tests/node/fuzz.test.mjs) and the engine's property tests
# (PROPTEST_RNG_SEED), one fresh seed per round, until the time is up.
# scripts/test.sh runs only fixed seeds, so CI never depends on chance; this
# is where new failures are found. Every failing seed is printed with the
# command that replays it: add it to the fuzzer's REGRESSIONS (or commit the
# property test's proptest-regressions line) with its fix.
#   FUZZ_MINUTES=30   how long to explore
#   FUZZ_OPS=20000    operations per fuzzer seed
#   FUZZ_BUILD=0      use the installed package as it is (default: build pkg/ first)
set -uo pipefail
source "$(dirname "$0")/lib/common.sh"
source "$ROOT/scripts/lib/pkg.sh" # and toolchain.sh, install.sh
cd "$ROOT"

minutes="${FUZZ_MINUTES:-30}"
ops="${FUZZ_OPS:-20000}"
if [ "${FUZZ_BUILD:-1}" != 0 ]; then
    announce_wasm_mode
    ensure_wasm_build_tools || die "installing the tools failed (see above)"
    bash scripts/build-pkg.sh || die "building pkg/ failed"
    install_pkg || die "installing pkg/ failed"
fi
[ -d tests/node_modules/context-compaction ] || die "no package in tests/node_modules (run without FUZZ_BUILD=0)"
say "building the engine's property tests"
cargo test --locked -p compaction-core --test it --no-run -q || die "building the engine's tests failed"

deadline=$((SECONDS + minutes * 60))
rounds=0
failed=()
# A fresh seed: from the kernel's generator, below 10^9 so it reads as a number everywhere.
fresh_seed() { echo $(( $(od -An -N4 -tu4 /dev/urandom) % 1000000000 )); }
while [ $SECONDS -lt $deadline ]; do
    seed="$(fresh_seed)"
    rounds=$((rounds + 1))
    say "round $rounds: seed $seed ($(((deadline - SECONDS) / 60)) min left)"
    if ! FUZZ_SEED="$seed" FUZZ_OPS="$ops" node --test tests/node/fuzz.test.mjs >"target/fuzz-$seed.log" 2>&1; then
        failed+=("FUZZ_SEED=$seed FUZZ_OPS=$ops node --test tests/node/fuzz.test.mjs   (log: target/fuzz-$seed.log)")
        printf '\033[31mFAILED:\033[0m fuzzer seed %s (target/fuzz-%s.log)\n' "$seed" "$seed" >&2
    else
        grep -o 'fuzz seed [0-9]*: .*' "target/fuzz-$seed.log" >&2
        rm -f "target/fuzz-$seed.log"
    fi
    if ! PROPTEST_RNG_SEED="$seed" cargo test --locked -q -p compaction-core --test it properties >"target/proptest-$seed.log" 2>&1; then
        failed+=("PROPTEST_RNG_SEED=$seed cargo test -p compaction-core --test it properties   (log: target/proptest-$seed.log)")
        printf '\033[31mFAILED:\033[0m property tests at seed %s (target/proptest-%s.log)\n' "$seed" "$seed" >&2
    else
        rm -f "target/proptest-$seed.log"
    fi
done
say "$rounds rounds in $minutes min; ${#failed[@]} failing"
for f in "${failed[@]}"; do printf '  \033[31mreplay:\033[0m %s\n' "$f"; done
[ ${#failed[@]} -eq 0 ]
