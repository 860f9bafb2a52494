// The package's types: exactly those wasm-bindgen generates from the Rust
// bindings (compaction_wasm.d.ts), re-exported by both entries, and
// `isPromptTooLong`/`promptTooLongTokens` (overflow.d.ts). The engine
// over other SDKs' histories, and `FormatEngine<M>`, are
// `context-compaction/formats` (formats.d.ts).
export * from "./compaction_wasm.js";
export { isPromptTooLong, promptTooLongTokens } from "./overflow.js";
