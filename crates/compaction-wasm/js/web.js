// Entry `context-compaction/web`: the engine with no top-level `await`, for
// bundlers (esbuild, Vite, webpack), workers and edge runtimes. Call
// `await init(input)` or `initSync({ module })` once before anything else.
// `input`: the .wasm's URL (default: next to this file), a `Response`, its
// bytes, or an already compiled `WebAssembly.Module` (workerd, Cloudflare
// Workers: `import wasm from "context-compaction/compaction_wasm_bg.wasm"`).
import wbgInit, { initSync as wbgInitSync } from "./compaction_wasm.js";
import { Engine as Guarded, __classify } from "./compaction_wasm.js";
import { guard, loaders, overflow } from "./guard.js";

guard(Guarded, "Engine");

export * from "./compaction_wasm.js";
export const { isPromptTooLong, promptTooLongTokens } = overflow(__classify);

const { init, initSync } = loaders(wbgInit, wbgInitSync, () => new URL("./compaction_wasm_bg.wasm", import.meta.url));

export default init;
export { init, initSync };
