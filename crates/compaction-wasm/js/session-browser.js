// Browser (and bundler) entry of `context-compaction/session`: fetches the
// session module's .wasm next to this file before its exports are used
// (top-level await). Import it (or `await import()` it) only where session
// files are read: agents that never read one never download it.
import init from "./compaction_session.js";
import { SessionImporter as Guarded } from "./compaction_session.js";
import { guard } from "./guard.js";

guard(Guarded, "SessionImporter");

const url = new URL("./compaction_session_bg.wasm", import.meta.url);
try {
  await init({ module_or_path: url });
} catch (e) {
  throw new Error(
    `context-compaction/session: could not load ${url} (${e?.message ?? e}). With a bundler that does not copy the .wasm ` +
      `(esbuild), import from "context-compaction/session/web" and call init(wasmUrl) or initSync({ module }) first.`,
    { cause: e },
  );
}

export { readSession, SessionImporter } from "./compaction_session.js";
