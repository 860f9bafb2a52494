//! Replay (what-if) on real session files: where automatic compaction
//! would fire, beside the session's real boundaries.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test helpers may fail loudly

use compaction_core::settings::Preset;
use compaction_core::transcript::import;
use compaction_core::transcript::replay::preset_for_version;

fn transcript(name: &str) -> compaction_core::transcript::Transcript {
    let path = format!("{}/tests/fixtures/transcripts/{name}", env!("CARGO_MANIFEST_DIR"));
    import(&std::fs::read(path).unwrap())
}

const SPOTTER: &str = "marot__spotter__4d5611e5-241a-462a-8d15-5122611a9569.jsonl";

#[test]
fn the_what_if_fires_near_the_real_auto_compaction() {
    let t = transcript(SPOTTER);
    let r = t.replay(Preset::Seed, Preset::Seed.settings(200_000)).unwrap();
    assert_eq!(r.actual.len(), 1);
    assert_eq!(r.actual[0].trigger.as_deref(), Some("auto"));
    assert_eq!(r.actual[0].pre_tokens, Some(170_251));
    // The seed's lines for a 200k window: compact at 167,000. The real
    // client compacted at 170,251; the what-if snips first, then compacts
    // just over its line.
    let first = r.predicted.first().expect("a predicted compaction");
    assert!(
        first.tokens > r.lines.compact && first.tokens < r.lines.blocked,
        "{first:?}"
    );
    assert!(r.tiers.iter().any(|e| e.rule == "R5.1"), "{:?}", r.tiers);
}

#[test]
fn a_smaller_window_compacts_earlier() {
    let t = transcript(SPOTTER);
    let wide = t.replay(Preset::Seed, Preset::Seed.settings(200_000)).unwrap();
    let narrow = t.replay(Preset::Seed, Preset::Seed.settings(120_000)).unwrap();
    assert_eq!(narrow.lines.compact, 87_000);
    assert!(narrow.predicted[0].tokens < wide.predicted[0].tokens);
    assert!(narrow.predicted.iter().all(|p| p.tokens > narrow.lines.compact));
}

#[test]
fn sessions_that_stay_small_predict_nothing() {
    for name in [
        "kzahel__yepanywhere__index.jsonl",
        "oneryalcin__fasthooks__sample_main_transcript.jsonl",
    ] {
        let r = transcript(name)
            .replay(Preset::Seed, Preset::Seed.settings(200_000))
            .unwrap();
        assert!(r.predicted.is_empty(), "{name}: {:?}", r.predicted);
    }
}

#[test]
fn every_version_family_maps_to_the_seed_preset() {
    for v in [
        None,
        Some("1.0.98"),
        Some("2.0.76"),
        Some("2.1.39"),
        Some("2.1.235"),
    ] {
        assert_eq!(preset_for_version(v), Preset::Seed);
    }
}
