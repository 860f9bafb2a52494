//! The context-compaction engine for JavaScript.
//!
//! Thin bindings over `compaction-core`: each file converts JS values into
//! the engine's types, calls it, and converts the answer back into plain JS
//! objects. No rule lives here. Every failure is a real JS `Error` carrying a
//! stable `code` and the `field` at fault ([`error`]).

pub mod error;
pub mod thresholds;
