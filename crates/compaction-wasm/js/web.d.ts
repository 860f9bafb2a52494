// Types of `context-compaction/web`: the engine's API, and the two ways to
// load its .wasm (nothing is loaded on import).
export * from "./compaction_wasm.js";
export { isPromptTooLong, promptTooLongTokens } from "./overflow.js";
import type { InitOutput } from "./compaction_wasm_init.js";

/** What `init` takes: the .wasm's URL or path, a `Response` (or a promise of one), its bytes, or a compiled module. */
export type WasmSource = string | URL | Request | Response | Promise<Response> | BufferSource | WebAssembly.Module;

/** Loads the engine's .wasm (default: next to this file, `new URL("./compaction_wasm_bg.wasm", import.meta.url)`). */
export default function init(input?: WasmSource | { module_or_path: WasmSource }): Promise<InitOutput>;
export { init };
/** Loads the engine from bytes or a compiled `WebAssembly.Module`, synchronously. */
export function initSync(input: BufferSource | WebAssembly.Module | { module: BufferSource | WebAssembly.Module }): InitOutput;
