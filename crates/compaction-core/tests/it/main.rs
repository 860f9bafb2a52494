//! The engine's integration tests, one binary: a module per rule family,
//! each test named after its rule; the property tests; golden snapshots
//! (insta) of the summary, transcript import/resume and replay on real
//! session files; crashers the fuzz targets found. Helpers shared by
//! several modules live in [`common`].

mod common;

mod api_r13;
mod attachments;
mod cascade;
mod collapse;
mod compact;
mod damaged_sessions;
mod driver;
mod extensions;
mod formats;
mod fuzz_regressions;
mod order;
mod overflow;
mod precompute;
mod properties;
mod replay;
mod retries;
mod summary;
mod thinking;
mod thresholds;
mod transcript;
mod transcript_export;
