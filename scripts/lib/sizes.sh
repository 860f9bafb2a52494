# The wasm modules' sizes. Sourced (after common.sh).
# shellcheck shell=bash
#
# Issue 30's target: every package module <= 120 KB gzip (goal 100 KB), the
# sandbox <= 200 KB, measured on the build CI ships (the Debian toolchain,
# std rebuilt for size; scripts/lib/toolchain.sh). No budget is checked yet.

# wasm_sizes FILE: "RAW GZIP BROTLI" in bytes (gzip -9; brotli at quality
# 11, as a server's static precompression would).
wasm_sizes() {
    local raw gz br
    raw=$(stat -c %s "$1") || return 1
    gz=$(gzip -9 -c "$1" | wc -c)
    br=$(node -e '
        const z = require("node:zlib");
        const b = require("node:fs").readFileSync(process.argv[1]);
        console.log(z.brotliCompressSync(b, { params: {
            [z.constants.BROTLI_PARAM_QUALITY]: 11, [z.constants.BROTLI_PARAM_SIZE_HINT]: b.length } }).length);
    ' "$1") || return 1
    echo "$raw $gz $br"
}

# size_line NAME FILE: one line for the build's output.
size_line() {
    local sizes raw gz br
    sizes="$(wasm_sizes "$2")" || return 1
    read -r raw gz br <<<"$sizes"
    printf '%-40s %9s B raw %9s B gzip %9s B brotli\n' "$(basename "$2")" "$raw" "$gz" "$br"
}
