// The package's types: exactly those wasm-bindgen generates from the Rust
// bindings (compaction_wasm.d.ts), re-exported by both entries.
export * from "./compaction_wasm.js";
