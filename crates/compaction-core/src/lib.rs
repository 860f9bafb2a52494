//! Context compaction for LLM agents, as a pure, sans-IO engine.
//!
//! The crate never calls a model, reads a clock, draws a random number or
//! touches a file: everything it needs comes in as data, and every decision
//! it takes comes out as data. Rule ids (`R1.3`, …) refer to the project's
//! specification, `SPEC.md` in this crate.
//!
//! An agent loop with the engine: the host answers what the engine asks,
//! here through [`engine::drive`] and a [`engine::Host`] (see
//! [`engine::Engine`] for the protocol step by step):
//!
//! ```
//! use compaction_core::compact::SummaryRequest;
//! use compaction_core::engine::{drive, Answer, Engine, Host, Preset};
//! use compaction_core::message::Message;
//!
//! /// Summaries from the offline summariser (a real host calls its model).
//! struct Offline;
//! impl Host for Offline {
//!     type Error = std::convert::Infallible;
//!     fn summarize(&mut self, _request: &SummaryRequest) -> Result<Answer, Self::Error> {
//!         Ok(Answer::Offline)
//!     }
//! }
//!
//! let mut engine = Engine::new(Preset::Seed.settings(200_000))?;
//! engine.append(Message::user("u1", "Refactor utils.py"))?;
//! let decision = engine.before_call(None); // steps, count, status, requests
//! let outcome = drive(&mut engine, &mut Offline)?; // answers every request
//! assert!(outcome.requests.is_empty());
//! let to_send: Vec<&Message> = engine.view().sent_messages().collect();
//! assert_eq!(to_send.len(), 1);
//! # let _ = decision;
//!
//! // The threshold lines on their own (SPEC R1.3):
//! use compaction_core::thresholds::{ThresholdSettings, Thresholds};
//! let lines = Thresholds::compute(&ThresholdSettings::for_window(200_000).with_max_output_tokens(20_000))?;
//! assert_eq!(lines.compact, 167_000);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod api;
pub mod breakdown;
pub mod breakers;
pub mod collapse;
pub mod compact;
pub mod engine;
pub mod error;
pub mod format;
pub mod groups;
pub mod hash;
pub mod message;
pub mod microcompact;
pub mod overflow;
pub mod reduction;
pub mod snip;
pub mod step;
pub mod store;
pub mod summary;
pub mod text;
pub mod thresholds;
pub mod time;
pub mod tokens;
pub mod transcript;
pub mod view;

pub use error::{Error, Setting};

pub use text::{concat, concat3};
