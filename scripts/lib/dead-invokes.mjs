// node dead-invokes.mjs WASM: WASM (wasm-bindgen's output, with its name
// section) rewritten in place with its function table no longer holding
// wasm-bindgen's closure shims, so that wasm-opt then drops their code.
//
// Every js-sys import that takes a closure (an array's `forEach`, a typed
// array's `find`, ...) has a descriptor that takes the address of a shim
// (`wasm_bindgen::convert::closures::invoke::<...>`) through which JS would
// call the closure. The linker keeps every import's descriptor, so the
// shims land in the function table; wasm-bindgen reads the descriptors and
// drops them, but leaves the table as it was, and wasm-opt keeps whatever
// the table holds (any `call_indirect` may reach it). Only JS calls a shim,
// through the table, so a module that does not export its function table
// (no closure of it is ever handed to JS: it is so for the package's
// modules) never calls one. Their table slots then point at a function of
// the table that takes no parameters: each shim takes at least the
// closure's two words, so a call through such a slot would trap on the
// type check, as one to a dropped function would (and the slots keep their
// places: no other index moves). A module that exports its table, or whose
// table or names are not as expected, is left as it is.
// Engine module: 44 shims, -229 B raw, -153 B gzip before ordering.
import fs from "node:fs";
import { readLeb, uleb } from "./wasm-leb.mjs";

const [file] = process.argv.slice(2);
const b = fs.readFileSync(file);
const SHIM = /^wasm_bindgen(\[[0-9a-f]+\])?::convert::closures::_::invoke::</;

let p = 8;
const leb = () => {
    let r;
    [r, p] = readLeb(b, p);
    return r;
};
const encode = (n) => [...uleb(n)];
const skipLimits = () => {
    const flags = b[p++];
    leb();
    if (flags & 1) leb();
};
const unchanged = (why) => {
    console.error(`dead-invokes: ${file} left as it is: ${why}`);
    process.exit(0);
};

const params = []; // per type: its parameter count
const funcType = []; // per function (imports first): its type
const names = new Map();
let tableExported = false;
let tables = 0;
let elem = null; // { start, end, offset, funcs }
while (p < b.length) {
    const start = p;
    const id = b[p++];
    const size = leb();
    const end = p + size;
    if (id === 1) {
        for (let n = leb(); n > 0; n--) {
            if (b[p++] !== 0x60) unchanged("a type that is not a function's");
            // Parameters, then results: value types of one byte each (a
            // typed reference would have more).
            for (const list of ["params", "results"]) {
                const count = leb();
                if (list === "params") params.push(count);
                for (let i = 0; i < count; i++, p++) if (b[p] === 0x63 || b[p] === 0x64) unchanged("a typed reference");
            }
        }
    } else if (id === 2) {
        for (let n = leb(); n > 0; n--) {
            for (const _ of ["module", "name"]) {
                const len = leb();
                p += len;
            }
            const kind = b[p++];
            if (kind === 0) funcType.push(leb());
            else if (kind === 1) {
                if (b[p] === 0x70) unchanged("an imported function table");
                p++;
                skipLimits();
                tables++;
            } else if (kind === 2) skipLimits();
            else if (kind === 3) p += 2;
            else if (kind === 4) {
                p++;
                leb();
            } else unchanged(`import kind ${kind}`);
        }
    } else if (id === 3) {
        for (let n = leb(); n > 0; n--) funcType.push(leb());
    } else if (id === 4) {
        for (let n = leb(); n > 0; n--, tables++) {
            if (b[p] === 0x70 && tables !== 0) unchanged("a second function table");
            p++;
            skipLimits();
        }
    } else if (id === 7) {
        for (let n = leb(); n > 0; n--) {
            const len = leb();
            p += len;
            const kind = b[p++];
            const index = leb();
            if (kind === 1 && index === 0) tableExported = true;
        }
    } else if (id === 9) {
        if (leb() !== 1) unchanged("more than one element segment");
        if (leb() !== 0) unchanged("an element segment not of the plain kind");
        const offset = p;
        if (b[p++] !== 0x41) unchanged("an element offset that is not a constant");
        leb();
        if (b[p++] !== 0x0b) unchanged("an element offset that is not a constant");
        const offsetExpr = b.subarray(offset, p);
        const funcs = [];
        for (let n = leb(); n > 0; n--) funcs.push(leb());
        if (p !== end) unchanged("an element segment longer than its entries");
        elem = { start, end, offsetExpr, funcs };
    } else if (id === 0) {
        const len = leb();
        const name = b.subarray(p, p + len).toString();
        p += len;
        if (name === "name") {
            while (p < end) {
                const sub = b[p++];
                const subSize = leb();
                const subEnd = p + subSize;
                if (sub === 1) {
                    for (let n = leb(); n > 0; n--) {
                        const index = leb();
                        const l = leb();
                        names.set(index, b.subarray(p, p + l).toString());
                        p += l;
                    }
                }
                p = subEnd;
            }
        }
    }
    p = end;
}

if (tableExported) unchanged("its function table is exported (JS may call a closure)");
if (elem === null) unchanged("no function table");
if (names.size === 0) unchanged("no function names");
const shim = (f) => SHIM.test(names.get(f) ?? "");
const standIn = elem.funcs.find((f) => !shim(f) && params[funcType[f]] === 0);
if (standIn === undefined) unchanged("no function of the table without parameters");
let dead = 0;
const funcs = elem.funcs.map((f) => {
    if (!shim(f)) return f;
    if (params[funcType[f]] < 2) unchanged(`${names.get(f)} takes fewer than two parameters`);
    dead++;
    return standIn;
});
const body = [...encode(1), ...encode(0), ...elem.offsetExpr, ...encode(funcs.length)];
for (const f of funcs) body.push(...encode(f));
const section = Buffer.from([9, ...encode(body.length), ...body]);
fs.writeFileSync(file, Buffer.concat([b.subarray(0, elem.start), section, b.subarray(elem.end)]));
console.error(`dead-invokes: ${file}: ${dead} of ${funcs.length} table slots were closure shims`);
