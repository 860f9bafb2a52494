// Types of `context-compaction/formats/web`: the API of
// `context-compaction/formats`, and the two ways to load its .wasm (nothing
// is loaded on import), as in `context-compaction/web`.
export * from "./formats.js";
import type { InitOutput } from "./compaction_formats_init.js";
import type { WasmSource } from "./web.js";
export type { WasmSource };

/** Loads the formats module's .wasm (default: next to this file, `new URL("./compaction_formats_bg.wasm", import.meta.url)`). */
export default function init(input?: WasmSource | { module_or_path: WasmSource }): Promise<InitOutput>;
export { init };
/** Loads the formats module from bytes or a compiled `WebAssembly.Module`, synchronously. */
export function initSync(input: BufferSource | WebAssembly.Module | { module: BufferSource | WebAssembly.Module }): InitOutput;
