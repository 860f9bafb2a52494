//! Regression tests for panics found by the `engine_ops`, `parse_summary`,
//! `transcript_import` and `message_json` fuzz targets
//! (`crates/compaction-fuzz`). Each test replays a minimised crash input as
//! the equivalent explicit sequence of public calls; the input itself is
//! kept under `crates/compaction-fuzz/regressions/`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test helpers may fail loudly

use compaction_core::engine::{Engine, Sidecar, SidecarCheck};
use compaction_core::settings::Preset;
use compaction_core::time::Timestamp;

/// `engine_ops` crash-699b5179: a sidecar written near the start of `i64`
/// milliseconds, loaded "now" near its end: the age subtraction overflowed
/// (`attempt to subtract with overflow`, precompute.rs). It must be
/// rejected as too old.
#[test]
fn load_sidecar_with_extreme_created_at_is_rejected_not_a_panic() {
    let mut e = Engine::new(Preset::Seed.settings(200_000)).unwrap();
    let sidecar = Sidecar {
        session_id: "session".into(),
        model: e.settings().compact.model.clone(),
        client_version: "2.1.0".into(),
        created_at: Timestamp::from_unix_ms(-7_161_677_110_969_605_277),
        tokens_at: 44_627_394_559,
        history_len: 0,
        summarised: Vec::new(),
        reply: String::new(),
    };
    let now = Timestamp::from_unix_ms(7_152_594_043_745_075_200);
    let check = e.load_sidecar(sidecar, "session", &now);
    match check {
        SidecarCheck::Rejected { reason } => assert!(reason.contains("days old"), "{reason}"),
        other => panic!("expected a rejection for age, got {other:?}"),
    }
}
