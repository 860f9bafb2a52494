// Types of `context-compaction/session/web`: the API of
// `context-compaction/session`, and the two ways to load its .wasm (nothing
// is loaded on import), as in `context-compaction/web`.
export * from "./session.js";
import type { InitOutput } from "./compaction_session_init.js";
import type { WasmSource } from "./web.js";
export type { WasmSource };

/** Loads the session module's .wasm (default: next to this file, `new URL("./compaction_session_bg.wasm", import.meta.url)`). */
export default function init(input?: WasmSource | { module_or_path: WasmSource }): Promise<InitOutput>;
export { init };
/** Loads the session module from bytes or a compiled `WebAssembly.Module`, synchronously. */
export function initSync(input: BufferSource | WebAssembly.Module | { module: BufferSource | WebAssembly.Module }): InitOutput;
