// Entry `context-compaction/formats/web`: the engine with the provider
// formats (`new Engine({ format: "openai-chat" })`, …) with no top-level
// `await`, for bundlers, workers and edge runtimes, as `/web` is for the
// engine. Call `await init(input)` or `initSync({ module })` once before
// anything else. `input`: the .wasm's URL (default: next to this file), a
// `Response`, its bytes, or a compiled `WebAssembly.Module` (workerd:
// `import wasm from "context-compaction/compaction_formats_bg.wasm"`).
import wbgInit, { initSync as wbgInitSync } from "./compaction_formats.js";
import { Engine as Guarded, __classify } from "./compaction_formats.js";
import { guard, loaders, overflow } from "./guard.js";

guard(Guarded, "Engine");

export * from "./compaction_formats.js";
export const { isPromptTooLong, promptTooLongTokens } = overflow(__classify);

const { init, initSync } = loaders(wbgInit, wbgInitSync, () => new URL("./compaction_formats_bg.wasm", import.meta.url));

export default init;
export { init, initSync };
