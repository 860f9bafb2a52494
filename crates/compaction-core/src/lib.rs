//! Context compaction for LLM agents, as a pure, sans-IO engine.
//!
//! The crate never calls a model, reads a clock, draws a random number or
//! touches a file: everything it needs comes in as data, and every decision
//! it takes comes out as data. Rule ids (`R1.3`, …) refer to the project's
//! specification, `SPEC.md` in this crate.
//!
//! Today the crate holds the threshold math ([`thresholds`], SPEC R1.1–R1.5).
//!
//! ```
//! use compaction_core::thresholds::{ThresholdSettings, Thresholds};
//!
//! let settings = ThresholdSettings::for_window(200_000).with_max_output_tokens(20_000);
//! let lines = Thresholds::compute(&settings)?;
//! assert_eq!(lines.compact, 167_000);
//! # Ok::<(), compaction_core::Error>(())
//! ```

pub mod breakdown;
pub mod breakers;
pub mod collapse;
pub mod compact;
pub mod engine;
pub mod error;
pub mod figures;
pub mod groups;
pub mod message;
pub mod microcompact;
pub mod reduction;
pub mod scenarios;
pub mod settings;
pub mod snip;
pub mod step;
pub mod store;
pub mod summary;
pub mod thresholds;
pub mod time;
pub mod tokens;
pub mod transcript;
pub mod view;

pub use error::{Error, Setting};
