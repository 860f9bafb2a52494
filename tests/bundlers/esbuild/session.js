// esbuild: `context-compaction/session/web` in an IIFE beside the engine's
// `/web`, as a docs page that reads a session file would bundle them: both
// .wasm files through the `file` loader, the page in another folder than the
// bundle (esbuild's `--public-path` gives the files' URLs).
import init, { Engine } from "context-compaction/web";
import initSession, { readSession } from "context-compaction/session/web";
import wasmUrl from "context-compaction/compaction_wasm_bg.wasm";
import sessionWasmUrl from "context-compaction/compaction_session_bg.wasm";

const record = (uuid, parentUuid, message) =>
  JSON.stringify({ type: message.role, uuid, parentUuid, sessionId: "s1", timestamp: "2026-11-30T10:00:00Z", version: "2.1.72", message });
const file = [
  record("u1", null, { role: "user", content: "List the files" }),
  record("a1", "u1", { role: "assistant", content: [{ type: "text", text: "a.rs and b.rs" }] }),
].join("\n");

Promise.all([init(wasmUrl), initSession(sessionWasmUrl)])
  .then(() => {
    const session = readSession(file);
    const engine = new Engine("seed");
    const { appended } = engine.loadSession(session);
    return { messages: session.report.messages, appended, roles: engine.messages().map((m) => m.role) };
  })
  .then((results) => (window.results = results), (e) => (window.results = { failed: String(e) }));
