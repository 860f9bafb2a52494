//! Helpers shared by the test modules: running the binary and reading
//! what it printed.

#![allow(clippy::expect_used)] // test helpers may fail loudly

use std::process::{Command, Output};

use serde_json::Value;

/// Runs `compaction ARGS…`.
pub fn compaction(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_compaction"))
        .args(args)
        .output()
        .expect("the compaction binary runs")
}

/// Its stdout as JSON, after asserting it succeeded.
pub fn ok(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "exit {:?}, stderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("stdout is one JSON object")
}

/// Its stderr, after asserting it failed and printed nothing on stdout.
pub fn err(out: &Output) -> String {
    assert!(
        !out.status.success(),
        "expected a failure, got {}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(out.stdout.is_empty());
    stderr(out)
}

/// Its stderr.
pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}
