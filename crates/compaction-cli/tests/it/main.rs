//! The `compaction` binary as a user runs it, one test binary: JSON on
//! stdout, errors on stderr, exit status. Helpers shared by the modules
//! live in [`common`].

mod common;

#[cfg(unix)]
mod bounded;
mod depth;
mod fidelity;
#[cfg(unix)]
mod root;
mod session;
mod thresholds;
mod transcripts;
