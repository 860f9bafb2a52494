// Browser (and bundler) entry: fetches the engine module's .wasm next to this
// file before the module's exports are used (top-level await).
import init from "./compaction_wasm.js";

await init({ module_or_path: new URL("./compaction_wasm_bg.wasm", import.meta.url) });

export * from "./compaction_wasm.js";
