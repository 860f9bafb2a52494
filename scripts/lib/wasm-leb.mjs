// The unsigned LEB128 numbers of the wasm binary format, for the scripts
// that read and rewrite modules (order-functions.mjs, dead-invokes.mjs).

/** The number at `at` in `b`, and where the next thing starts. */
export const readLeb = (b, at) => {
    let r = 0;
    let s = 0;
    let x;
    do {
        x = b[at++];
        r += (x & 0x7f) * 2 ** s;
        s += 7;
    } while (x & 0x80);
    return [r, at];
};

/** `v`'s bytes. */
export const uleb = (v) => {
    const out = [];
    do {
        let x = v % 128;
        v = Math.floor(v / 128);
        if (v) x |= 0x80;
        out.push(x);
    } while (v);
    return Buffer.from(out);
};
