//! The scenarios crate's integration tests, one binary: golden step traces
//! of every built-in scenario (insta) and what the sandbox asks of the
//! engine.

mod cut;
mod focus;
mod golden;
mod lost;
mod memo;
mod plausible;
mod resume;
mod sandbox;
mod thinking;
mod walk;
