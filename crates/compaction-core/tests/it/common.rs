//! Helpers shared by the test modules: the real session files under
//! `tests/fixtures/transcripts/` (see `SOURCES.tsv` there).

#![allow(clippy::unwrap_used)] // test helpers may fail loudly

/// Where the real session files are.
pub const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/transcripts");

/// A real session file's bytes.
pub fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(format!("{FIXTURES}/{name}")).unwrap()
}

/// A real session file's text.
pub fn fixture_text(name: &str) -> String {
    std::fs::read_to_string(format!("{FIXTURES}/{name}")).unwrap()
}
