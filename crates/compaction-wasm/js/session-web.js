// Entry `context-compaction/session/web`: Claude Code session files with no
// top-level `await`, for bundlers (esbuild), workers and edge runtimes, as
// `/web` is for the engine. Call `await init(input)` or `initSync({ module })`
// once before anything else. `input`: the .wasm's URL (default: next to this
// file), a `Response`, its bytes, or a compiled `WebAssembly.Module`
// (workerd: `import wasm from "context-compaction/compaction_session_bg.wasm"`).
import wbgInit, { initSync as wbgInitSync } from "./compaction_session.js";
import { SessionImporter as Guarded } from "./compaction_session.js";
import { guard, loaders } from "./guard.js";

guard(Guarded, "SessionImporter");

export { readSession, SessionImporter } from "./compaction_session.js";

const { init, initSync } = loaders(wbgInit, wbgInitSync, () => new URL("./compaction_session_bg.wasm", import.meta.url));

export default init;
export { init, initSync };
