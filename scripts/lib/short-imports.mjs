// node short-imports.mjs WASM JS: wasm-bindgen's module WASM and its glue
// JS (`--target web`) rewritten in place with short import names: the
// glue's functions keep what they do, only the names the module imports
// them by change, in both files alike.
//
// wasm-bindgen names each import `__wbg_<name>_<16 hex digits>` from the
// glue's module `./<module>_bg.js`; the hex digits differ from name to
// name, so gzip cannot pack them (with names of one or two letters and the
// module `wbg`: engine 52 imports, -1,287 B gzip; formats 53, -1,178;
// session 36, -819). The names are
// read by nothing but the module's instantiation: the glue builds the
// imports object it passes (`"./<module>_bg.js": { __wbg_…: function … }`).
// Each name must be in the glue as a key (else the files are left as they
// are and the build stops).
import fs from "node:fs";
import { readLeb, uleb } from "./wasm-leb.mjs";

const [wasmFile, jsFile] = process.argv.slice(2);
const b = fs.readFileSync(wasmFile);
let js = fs.readFileSync(jsFile, "utf8");
const MODULE = "wbg";

const fail = (why) => {
    console.error(`short-imports: ${wasmFile}: ${why}`);
    process.exit(1);
};
const str = (s) => Buffer.concat([uleb(Buffer.byteLength(s)), Buffer.from(s)]);
// a, b, …, Z, aa, ab, …: never a JS keyword of the glue's object keys.
const LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
const short = (i) => {
    let out = "";
    for (i += 1; i > 0; i = Math.floor((i - 1) / LETTERS.length)) out = LETTERS[(i - 1) % LETTERS.length] + out;
    return out;
};

let p = 8;
const leb = () => {
    let r;
    [r, p] = readLeb(b, p);
    return r;
};
const name = () => {
    const len = leb();
    p += len;
    return b.subarray(p - len, p).toString();
};
const parts = [b.subarray(0, 8)];
let glueModule = null;
let renamed = 0;
while (p < b.length) {
    const start = p;
    const id = b[p++];
    const size = leb();
    const end = p + size;
    if (id !== 2) {
        parts.push(b.subarray(start, end));
        p = end;
        continue;
    }
    const count = leb();
    const body = [uleb(count)];
    for (let i = 0; i < count; i++) {
        const module = name();
        const field = name();
        if (b[p] !== 0) fail(`import ${module} ${field} is not a function`);
        const kindStart = p;
        p++;
        leb();
        if (glueModule === null) glueModule = module;
        if (module !== glueModule || !/^\.\/\w+_bg\.js$/.test(module)) fail(`import from ${module}, not the glue`);
        if (!/^__wb\w+$/.test(field)) fail(`import ${field} not named as wasm-bindgen names them`);
        const key = new RegExp(`(?<![\\w$])${field}(?![\\w$])`, "g");
        const uses = js.match(key)?.length ?? 0;
        if (uses !== 1) fail(`${field} is in ${jsFile} ${uses} times, not once`);
        js = js.replace(key, short(i));
        body.push(str(MODULE), str(short(i)), b.subarray(kindStart, p));
        renamed++;
    }
    if (p !== end) fail("the import section is longer than its imports");
    const payload = Buffer.concat(body);
    parts.push(Buffer.from([2]), uleb(payload.length), payload);
}
if (glueModule !== null) {
    const key = `"${glueModule}": import0`;
    if (js.split(key).length !== 2) fail(`${jsFile} does not pass its imports once as ${key}`);
    js = js.replace(key, `"${MODULE}": import0`);
}
fs.writeFileSync(wasmFile, Buffer.concat(parts));
fs.writeFileSync(jsFile, js);
console.error(`short-imports: ${wasmFile}: ${renamed} imports renamed`);
