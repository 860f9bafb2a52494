// Node entry: loads the package's one .wasm synchronously from disk.
import { readFileSync } from "node:fs";
import { initSync } from "./compaction_wasm.js";

initSync({ module: readFileSync(new URL("./compaction_wasm_bg.wasm", import.meta.url)) });

export * from "./compaction_wasm.js";
