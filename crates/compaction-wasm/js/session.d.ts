// Types of `context-compaction/session`: those wasm-bindgen generates from
// the Rust bindings (compaction_session.d.ts). `Session` is the same shape as
// the engine module's `Session`, which `engine.loadSession` takes.
export { readSession, SessionImporter } from "./compaction_session.js";
export type { Session, SessionOptions, SessionMessage, ImportReport, BoundarySummary, Problem, ReportedUsage, ContentBlock } from "./compaction_session.js";
