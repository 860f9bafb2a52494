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
//!   expand, records, session files); [`driver`]: its async `prepare`.
//! - [`session::SessionImporter`]: a Claude Code session file in chunks.
//! - [`dto`]: every shape that crosses, with generated TypeScript types.

pub mod driver;
pub mod dto;
pub mod engine;
pub mod error;
pub mod input;
pub mod plan;
pub mod session;
pub mod settings;
pub mod thresholds;
