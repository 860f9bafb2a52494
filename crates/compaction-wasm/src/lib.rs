//! The context-compaction engine for JavaScript.
//!
//! Thin bindings over `compaction-core`: each file converts JS values into
//! the engine's types, calls it, and converts the answer back into plain JS
//! objects. No rule lives here. Every failure is a real JS `Error` carrying a
//! stable `code` and the `field` at fault ([`error`]).
//!
//! - [`thresholds`]: the lines for a window (a plain function).
//! - [`plan()`](plan::plan): the stateless dry run over a whole history.
//! - [`engine::Engine`]: one session (append, before-call, answers, pins,
//!   expand, records, loading a resumed session); [`driver`]: its async
//!   `prepare`.
//! - [`session`]: Claude Code session files (`readSession`,
//!   `SessionImporter` for chunks) into a `Session`: the report and the
//!   resumed view, which `engine.loadSession` takes.
//! - [`overflow`]: the engine's prompt-too-long classifier over one error's
//!   facts, which the package's `isPromptTooLong(error)` and
//!   `promptTooLongTokens(error)` (js/guard.js) read from a JS client's error.
//! - [`dto`]: every shape that crosses, with generated TypeScript types.
//!
//! Three wasm modules come from this crate (features `engine`, `formats`
//! and `session`, see Cargo.toml): an agent that never reads a session file
//! never loads the importer, and one that speaks Anthropic's messages never
//! loads the provider formats ([`format`]; without the `formats` feature it
//! is a stand-in that refuses the setting). They share [`dto`], [`error`]
//! and [`js`]; a `Session` crosses between them as a plain JS object.

#[cfg(feature = "engine")]
pub mod counter;
#[cfg(feature = "engine")]
pub mod driver;
pub mod dto;
#[cfg(feature = "engine")]
pub mod engine;
pub mod error;
#[cfg(feature = "formats")]
pub mod format;
// The engine module without the formats: the same names, never a format.
#[cfg(all(feature = "engine", not(feature = "formats")))]
#[path = "no_format.rs"]
pub mod format;
#[cfg(feature = "engine")]
pub mod input;
pub mod js;
#[cfg(feature = "engine")]
pub mod overflow;
#[cfg(feature = "engine")]
pub mod plan;
#[cfg(feature = "session")]
pub mod session;
#[cfg(feature = "engine")]
pub mod settings;
#[cfg(feature = "engine")]
pub mod thresholds;

// The modules' allocator (compaction-alloc): talc, growing the memory
// geometrically.
#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
compaction_alloc::global!();

/// The module's heap, `[bytes held now, most held at once since the last
/// call]`, for the benchmark's memory rows (what an engine keeps, what a
/// call needs at most); not part of the typed API.
#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
#[wasm_bindgen::prelude::wasm_bindgen(js_name = __heap, skip_typescript)]
pub fn heap() -> Vec<f64> {
    let out = vec![compaction_alloc::in_use() as f64, compaction_alloc::peak() as f64];
    compaction_alloc::reset_peak();
    out
}
