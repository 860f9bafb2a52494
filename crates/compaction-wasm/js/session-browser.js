// Browser (and bundler) entry of `context-compaction/session`: fetches the
// session module's .wasm next to this file before its exports are used
// (top-level await). Import it (or `await import()` it) only where session
// files are read: agents that never read one never download it.
import init from "./compaction_session.js";
import { SessionImporter as Guarded } from "./compaction_session.js";
import { guard } from "./guard.js";

guard(Guarded, "SessionImporter");

await init({ module_or_path: new URL("./compaction_session_bg.wasm", import.meta.url) });

export { readSession, SessionImporter } from "./compaction_session.js";
