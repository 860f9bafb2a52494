// node order-functions.mjs IN OUT [FIRST [PASSES]]: IN (a wasm module) with its name
// section replaced by one that names its functions in the order gzip packs
// best; `wasm-opt --reorder-functions-by-name --strip-debug` then puts them
// in that order (scripts/build-pkg.sh). Only the order of the functions
// changes, never what one does.
//
// gzip finds repeats within the last 32 KB, so functions that share byte
// sequences pack better next to each other. The order is greedy: the first
// function, then always the one whose 3-byte sequences overlap most (Jaccard)
// with the last two placed. Deterministic: ties go to the lower index.
// FIRST: the index (among the defined functions) of the first one, 0 when
// not given (scripts/lib/order.sh tries several).
// build-pkg, gzip -9: engine 167,606 -> 164,859 B, formats 191,644 ->
// 189,672, session 107,058 -> 105,219. The order LLVM emits (roughly by
// crate and module) and one by name measured within 40 B of each other, one
// by call count (wasm-opt's --reorder-functions) +3.2 KB. Swept on the
// engine: 4-byte sequences or the last function alone -1.8 KB, the last
// three -2.4 KB, sequences weighted by rarity or windows of 0.5-4 KB no
// better. Another first function moves it by up to ~1 KB either way (engine,
// first functions 0-11: 164,464 to 165,513 B), hence the tries in order.sh.
// PASSES (default 0): passes of local moves after the greedy order, each
// function in turn moved 1 to 3 places on and kept there when deflate (zlib
// -9, the 32 KB before as its dictionary) packs it and the 32 KB after it
// smaller; a pass that gains nothing ends them. Engine module, first
// function 0: 163,179 -> 162,743 B after 3 passes; 8 passes 162,814 (the
// estimate keeps gaining, the module does not: a moved function renumbers
// the calls to it, which the estimate does not see).
import fs from "node:fs";
import zlib from "node:zlib";
import { readLeb, uleb } from "./wasm-leb.mjs";

const [input, output, firstArg, passesArg] = process.argv.slice(2);
const b = fs.readFileSync(input);
const GRAM = 3;
const WINDOW = 2;

let p = 8;
const leb = () => {
    let r;
    [r, p] = readLeb(b, p);
    return r;
};
const skipLimits = () => {
    const flags = b[p++];
    leb();
    if (flags & 1) leb();
};

let imported = 0;
const bodies = [];
const kept = [b.subarray(0, 8)];
while (p < b.length) {
    const start = p;
    const id = b[p++];
    const size = leb();
    const end = p + size;
    let keep = true;
    if (id === 2) {
        for (let n = leb(); n > 0; n--) {
            for (const _ of ["module", "name"]) {
                const len = leb();
                p += len;
            }
            const kind = b[p++];
            if (kind === 0) {
                leb();
                imported++;
            } else if (kind === 1) {
                p++;
                skipLimits();
            } else if (kind === 2) {
                skipLimits();
            } else if (kind === 3) {
                p += 2;
            } else if (kind === 4) {
                p++;
                leb();
            } else {
                throw new Error(`${input}: import kind ${kind} not known`);
            }
        }
    } else if (id === 10) {
        for (let n = leb(); n > 0; n--) {
            const len = leb();
            bodies.push(b.subarray(p, p + len));
            p += len;
        }
    } else if (id === 0) {
        const len = leb();
        keep = b.subarray(p, p + len).toString() !== "name";
    }
    if (keep) kept.push(b.subarray(start, end));
    p = end;
}
if (p !== b.length) throw new Error(`${input}: sections overrun the file`);

const n = bodies.length;
const grams = bodies.map((body) => {
    const set = new Set();
    for (let i = 0; i + GRAM <= body.length; i++) set.add(body[i] | (body[i + 1] << 8) | (body[i + 2] << 16));
    return set;
});

// The greedy order: `near` counts the grams of the last WINDOW functions placed.
const order = [];
const placed = new Uint8Array(n);
const near = new Map();
const count = (f, d) => {
    for (const g of grams[f]) {
        const v = (near.get(g) || 0) + d;
        if (v) near.set(g, v);
        else near.delete(g);
    }
};
const place = (f) => {
    order.push(f);
    placed[f] = 1;
    count(f, 1);
    if (order.length > WINDOW) count(order[order.length - 1 - WINDOW], -1);
};
const first = Number(firstArg ?? 0);
if (!Number.isInteger(first) || first < 0 || (n > 0 && first >= n)) {
    throw new Error(`${input}: no function ${firstArg} to start with`);
}
if (n > 0) place(first);
while (order.length < n) {
    let best = -1;
    let bestScore = -1;
    for (let f = 0; f < n; f++) {
        if (placed[f]) continue;
        let shared = 0;
        for (const g of grams[f]) if (near.has(g)) shared++;
        const score = shared / (near.size + grams[f].size - shared + 1);
        if (score > bestScore) {
            bestScore = score;
            best = f;
        }
    }
    place(best);
}

// The local moves (PASSES above).
const REACH = 3;
const SPAN = 32768;
const bytesOf = (lo, hi) => Buffer.concat(order.slice(lo, hi).map((f) => bodies[f]));
// What deflate makes of the functions at [lo, hi) and the SPAN bytes after
// them, with the SPAN bytes before them as its dictionary.
const cost = (lo, hi) => {
    let end = hi;
    for (let after = 0; end < n && after < SPAN; ) after += bodies[order[end++]].length;
    let start = lo;
    for (let before = 0; start > 0 && before < SPAN; ) before += bodies[order[--start]].length;
    const dictionary = bytesOf(start, lo);
    const options = { level: 9 };
    if (dictionary.length) options.dictionary = dictionary.subarray(Math.max(0, dictionary.length - SPAN));
    return zlib.deflateRawSync(bytesOf(lo, end), options).length;
};
const passes = Number(passesArg ?? 0);
if (!Number.isInteger(passes) || passes < 0) throw new Error(`${input}: passes must be a whole number, got ${passesArg}`);
for (let pass = 0; pass < passes; pass++) {
    let gained = 0;
    for (let i = 0; i + 1 < n; i++) {
        for (let d = 1; d <= REACH && i + d < n; d++) {
            const before = cost(i, i + d + 1);
            const f = order[i];
            order.copyWithin(i, i + 1, i + d + 1);
            order[i + d] = f;
            const after = cost(i, i + d + 1);
            if (after < before) {
                gained += before - after;
                break;
            }
            order.copyWithin(i + 1, i, i + d);
            order[i] = f;
        }
    }
    if (!gained) break;
}

const rank = new Array(n);
order.forEach((f, r) => {
    rank[f] = r;
});
const str = (s) => Buffer.concat([uleb(Buffer.byteLength(s)), Buffer.from(s)]);
// Imports first (their place is fixed anyway), then the defined functions by rank.
const names = [];
for (let i = 0; i < imported; i++) names.push(uleb(i), str(`a${String(i).padStart(7, "0")}`));
for (let i = 0; i < n; i++) names.push(uleb(imported + i), str(`f${String(rank[i]).padStart(7, "0")}`));
const functionNames = Buffer.concat([uleb(imported + n), ...names]);
const payload = Buffer.concat([str("name"), Buffer.from([1]), uleb(functionNames.length), functionNames]);
fs.writeFileSync(output, Buffer.concat([...kept, Buffer.from([0]), uleb(payload.length), payload]));
