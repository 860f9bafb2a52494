#!/usr/bin/env bash
# Runs every check the project has, in layers, and exits non-zero if any
# fails. Installs whatever is missing first (each install step skips itself
# when the pinned version is present). CI runs this through .ci/run.
#   COMPACTION_WASM_TOOLCHAIN=auto|rustup|debian   which wasm32 toolchain
#   UPDATE_SNAPSHOTS=1                              accept a changed .d.ts
set -uo pipefail
source "$(dirname "$0")/lib/common.sh"
source "$ROOT/scripts/lib/toolchain.sh"
source "$ROOT/scripts/lib/install.sh"
source "$ROOT/scripts/lib/pkg.sh"
source "$ROOT/scripts/lib/sizes.sh"
cd "$ROOT"
started=$SECONDS
# The property tests' fixed seed (scripts/fuzz.sh draws fresh ones).
PROPTEST_SEED=20261203

announce_wasm_mode
say "installing what is missing"
{ ensure_wasm_build_tools && ensure_chromium; } || die "installing the tools failed (see above)"

passed=()
failed=()
check() {
    local name="$1" t0=$SECONDS
    shift
    say "check: $name"
    if "$@"; then
        passed+=("$name ($((SECONDS - t0))s)")
    else
        failed+=("$name")
        printf '\033[31mFAILED:\033[0m %s\n' "$name" >&2
    fi
}

# --- 1. static checks -------------------------------------------------------
wasm_clippy() (
    wasm_env
    cargo clippy --locked --target wasm32-unknown-unknown -p compaction-wasm -p compaction-sandbox \
        --all-targets -- -D warnings
    # The package's three modules, each alone (as scripts/build-pkg.sh builds them).
    for feature in engine formats session; do
        cargo clippy --locked --target wasm32-unknown-unknown -p compaction-wasm \
            --no-default-features --features "$feature" -- -D warnings
    done
)
core_is_pure() {
    local bad
    bad="$(cargo tree --locked -p compaction-core -e normal --prefix none |
        grep -E '^(wasm-bindgen|js-sys|web-sys|yew|gloo|getrandom|wasm-bindgen-futures|tsify|serde-wasm-bindgen) ' || true)"
    [ -z "$bad" ] || { echo "compaction-core depends on wasm/JS crates:"; echo "$bad"; return 1; }
    local direct
    direct="$(cargo tree --locked -p compaction-core -e normal --depth 1 --prefix none |
        tail -n +2 | cut -d' ' -f1 | sort -u | tr '\n' ' ')"
    # itoa and zmij: the integer and float writers serde_json itself uses
    # (its own dependencies, so no new code or download), named directly by
    # message/lean.rs's JSON writer (bee7fc6).
    [ "$direct" = "itoa rustc-hash serde serde_json thiserror zmij " ] || {
        echo "compaction-core's normal dependencies are $direct(only serde, serde_json, thiserror, rustc-hash, and serde_json's own itoa and zmij)"
        return 1
    }
    echo "compaction-core's normal dependencies: $direct(no wasm/JS crate below them)"
}
pins_agree() {
    local lock trunk
    lock="$(wasm_bindgen_version)"
    trunk="$(trunk_wasm_bindgen_version)"
    [ "$lock" = "$trunk" ] || {
        echo "Trunk.toml [tools] wasm_bindgen = \"$trunk\" but Cargo.lock has wasm-bindgen $lock"
        return 1
    }
    echo "wasm-bindgen $lock in Cargo.lock and Trunk.toml"
}
check "cargo fmt --check" cargo fmt --all --check
check "clippy -D warnings (host)" cargo clippy --locked --workspace --all-targets -- -D warnings
check "clippy -D warnings (wasm32: compaction-wasm, compaction-sandbox)" wasm_clippy
check "engine crate is pure" core_is_pure
check "wasm-bindgen pin: Cargo.lock = Trunk.toml" pins_agree
check "toolchain choice, every branch" bash scripts/tests/toolchain-choice.sh
check "engine layers point one way" bash scripts/tests/layers.sh
check "size ratchet: over budget fails" bash scripts/tests/size-budget.sh

# --- 2. host tests ----------------------------------------------------------
# Property tests run one fixed seed here (with every committed regression
# first), so a run's outcome never depends on chance; scripts/fuzz.sh
# explores fresh seeds.
check "cargo test (host; property tests at PROPTEST_RNG_SEED=$PROPTEST_SEED)" env PROPTEST_RNG_SEED="$PROPTEST_SEED" cargo test --locked --workspace

# --- 3. wasm-bindgen-test in Node and headless Chromium ---------------------
wasm_test() (
    wasm_env
    [ "$1" = browser ] && export WASM_BINDGEN_USE_BROWSER=1
    cd "$ROOT/crates/compaction-wasm" # webdriver.json: Chromium's flags
    cargo test --locked --target wasm32-unknown-unknown -p compaction-wasm
)
check "wasm-bindgen-test (Node)" wasm_test node
check "wasm-bindgen-test (headless Chromium)" wasm_test browser
sandbox_test() (
    wasm_env
    export WASM_BINDGEN_USE_BROWSER=1
    cd "$ROOT/web" # webdriver.json: Chromium's flags
    cargo test --locked --target wasm32-unknown-unknown -p compaction-sandbox --test components
)
check "wasm-bindgen-test: sandbox components in headless Chromium" sandbox_test

# --- 4. the npm package, as a user gets it ----------------------------------
check "build pkg/" bash scripts/build-pkg.sh
check "pkg/ modules within their gzip budgets (scripts/lib/sizes.sh)" package_within_budgets pkg
check "npm pack pkg/ and install it" install_pkg
# A timeout, so that a hang fails with the test's name instead of stalling the
# run. node applies it to each test *file* as well as each test in it: the
# longest file (e2e/sandbox.test.mjs) takes ~4 min on this 2-core machine.
TEST_TIMEOUT_MS=600000
check "pkg/ under Node (node:test, .d.ts snapshot; the fuzzer at its fixed seeds)" env -u FUZZ_SEED -u FUZZ_OPS node --test --test-timeout=$TEST_TIMEOUT_MS tests/node/
check "example agent loop, every tier (tests/examples/agent-loop.mjs)" node tests/examples/agent-loop.mjs
check "example AI SDK agent: generateText + prepareStep + MockLanguageModelV3 (tests/examples/ai-sdk-agent.mjs)" node tests/examples/ai-sdk-agent.mjs
check "tsc --noEmit on sample users of the types (incl. @anthropic-ai/sdk)" tsc -p tests/types
check "tsc --noEmit on sample users of each provider format (against ai, openai, @langchain/core)" tsc -p tests/types/tsconfig.formats.json
# The same users under exactOptionalPropertyTypes; skipLibCheck, as the SDKs'
# own .d.ts (ai, @ai-sdk/provider-utils, @langchain/core) do not compile under it.
check "tsc --noEmit, provider formats, exactOptionalPropertyTypes" tsc -p tests/types/tsconfig.formats-exact.json

# --- 5. browsers --------------------------------------------------------------
build_sandbox() (
    rm -rf "$ROOT/dist" # a failed build must not leave a stale dist/ to test
    wasm_env
    trunk build --release
)
check "trunk build --release (the sandbox)" build_sandbox
sandbox_within_budget() {
    if [ "$WASM_MODE" = rustup ]; then
        echo "size: sandbox budget not checked: $RUSTUP_NOT_SHIPPED"
        return 0
    fi
    within_budget sandbox "$(ls dist/*.wasm 2>/dev/null | head -1)"
}
check "sandbox wasm within its gzip budget (scripts/lib/sizes.sh)" sandbox_within_budget
check "Playwright: pkg/ in a plain page, the sandbox" node --test --test-concurrency=1 --test-timeout=$TEST_TIMEOUT_MS tests/e2e/

# --- summary ------------------------------------------------------------------
size() { [ -f "$1" ] && echo "$(stat -c %s "$1") bytes raw, $(gzip -9 -c "$1" | wc -c) gzip"; }
say "sizes: package engine .wasm: $(size pkg/compaction_wasm_bg.wasm || echo 'not built')"
say "sizes: package formats .wasm: $(size pkg/compaction_formats_bg.wasm || echo 'not built')"
say "sizes: package session .wasm: $(size pkg/compaction_session_bg.wasm || echo 'not built')"
say "sizes: sandbox .wasm: $(size "$(ls dist/*.wasm 2>/dev/null | head -1)" || echo 'not built')"
for s in target/screenshots/*.png; do [ -f "$s" ] && say "screenshot: $ROOT/$s"; done
for p in "${passed[@]}"; do printf '  \033[32mok\033[0m    %s\n' "$p"; done
for f in "${failed[@]}"; do printf '  \033[31mFAIL\033[0m  %s\n' "$f"; done
say "wasm toolchain: $WASM_MODE; $((SECONDS - started))s in all"
[ ${#failed[@]} -eq 0 ]
