// `context-compaction/session` bundled by esbuild: its .wasm is not copied,
// so loading fails, and the error must say to use `/session/web`.
import { readSession } from "context-compaction/session";

window.results = { messages: readSession("").report.messages };
