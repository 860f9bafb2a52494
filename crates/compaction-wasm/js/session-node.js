// Node entry of `context-compaction/session`: Claude Code session files.
// Loads the session module's .wasm synchronously from disk; the engine's
// module (`context-compaction`) is separate and does not load it.
import { readFileSync } from "node:fs";
import { initSync } from "./compaction_session.js";
import { SessionImporter as Guarded } from "./compaction_session.js";
import { guard } from "./guard.js";

guard(Guarded, "SessionImporter");

initSync({ module: readFileSync(new URL("./compaction_session_bg.wasm", import.meta.url)) });

export { readSession, SessionImporter } from "./compaction_session.js";
