//! Replay (what-if) on real session files: where automatic compaction
//! would fire, beside the session's real boundaries.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test helpers may fail loudly

use crate::common::{fixture, fixture_text};
use compaction_core::engine::Preset;
use compaction_core::transcript::choice;
use compaction_core::transcript::import;
use compaction_core::transcript::replay::preset_for_version;

fn transcript(name: &str) -> compaction_core::transcript::Transcript {
    import(&fixture(name))
}

const SPOTTER: &str = "marot__spotter__4d5611e5-241a-462a-8d15-5122611a9569.jsonl";

/// The 1-based line of a record in the fixture.
fn line_of(name: &str, uuid: &str) -> usize {
    let text = fixture_text(name);
    1 + text
        .lines()
        .position(|l| l.contains(&format!("\"uuid\":\"{uuid}\"")))
        .unwrap()
}

#[test]
fn the_what_if_predicts_the_real_auto_compaction_within_one_request() {
    let t = transcript(SPOTTER);
    assert_eq!(t.versions.last().map(String::as_str), Some("2.1.39"));
    let preset = preset_for_version(Some("2.1.39"));
    assert_eq!(preset, Preset::Client21);
    let r = t.replay(preset, preset.settings(200_000)).unwrap();
    assert_eq!(r.actual.len(), 1);
    assert_eq!(r.actual[0].trigger.as_deref(), Some("auto"));
    assert_eq!(r.actual[0].pre_tokens, Some(170_251));
    // The real boundary is on line 754, after the record on line 753: the
    // what-if compacts at the same request.
    let first = r.predicted.first().expect("a predicted compaction");
    assert_eq!(line_of(SPOTTER, first.at_uuid.as_str()), 753, "{first:?}");
    assert!(
        first.tokens > r.lines.compact && first.tokens < r.lines.blocked,
        "{first:?}"
    );
}

#[test]
fn with_the_seeds_snip_the_same_request_snips_instead() {
    let t = transcript(SPOTTER);
    let r = t.replay(Preset::Seed, Preset::Seed.settings(200_000)).unwrap();
    let snip = r.tiers.iter().find(|e| e.rule == "R5.1").expect("a snip");
    assert_eq!(line_of(SPOTTER, snip.at_uuid.as_str()), 753);
}

#[test]
fn a_smaller_window_compacts_earlier() {
    let t = transcript(SPOTTER);
    let wide = t
        .replay(Preset::Client21, Preset::Client21.settings(200_000))
        .unwrap();
    let narrow = t
        .replay(Preset::Client21, Preset::Client21.settings(120_000))
        .unwrap();
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
fn version_ranges_map_to_presets_where_evidence_allows() {
    for v in [None, Some("not a version")] {
        assert_eq!(preset_for_version(v), Preset::Seed, "{v:?}");
    }
    // 1.0.98 is older than any measured version: the oldest range;
    // 2.1.21 – 2.1.24 are between two: the older one.
    for v in ["1.0.98", "2.0.76", "2.1.7", "2.1.20", "2.1.24"] {
        assert_eq!(preset_for_version(Some(v)), Preset::Client2076, "{v}");
    }
    // 2.1.235 is newer than any measured version: the newest range.
    for v in ["2.1.25", "2.1.39", "2.1.74", "2.1.235"] {
        assert_eq!(preset_for_version(Some(v)), Preset::Client21, "{v}");
    }
    let (_, why) = choice::preset_for_version(Some("2.1.235"));
    assert!(
        why.contains("unmeasured, newer than any measured version"),
        "{why}"
    );
    let (_, why) = choice::preset_for_version(Some("1.0.98"));
    assert!(
        why.contains("unmeasured, older than any measured version"),
        "{why}"
    );
    let (_, why) = choice::preset_for_version(Some("2.1.17"));
    assert!(why.contains("155,000"), "{why}");
}

#[test]
fn a_preset_serialises_as_the_name_the_cli_takes() {
    // `replay`'s `chosen.preset` must be a name `--preset` accepts.
    for preset in Preset::ALL {
        let json = serde_json::to_value(preset).unwrap();
        assert_eq!(json, preset.name(), "{preset:?}");
        assert_eq!(Preset::from_name(json.as_str().unwrap()), Some(preset));
    }
}

#[test]
fn the_file_chooses_window_and_reserve_from_its_model() {
    let t = transcript(SPOTTER);
    let chosen = choice::choose(&t);
    assert_eq!(chosen.preset, Preset::Client21);
    assert_eq!(chosen.version.as_deref(), Some("2.1.39"));
    assert_eq!(chosen.window, 200_000);
    let lines = compaction_core::thresholds::Thresholds::compute(&chosen.settings().thresholds).unwrap();
    assert_eq!(lines.compact, 167_000);
    assert_eq!(chosen.reasons.len(), 2, "{:?}", chosen.reasons);
    assert_eq!(chosen.range, "2.1.25 – 2.1.74");
    assert!(chosen.counts_appended);
}

/// Golden replays: each fixture under its version's preset and under
/// `seed`, window 200,000, with every predicted compaction and tier event
/// given as the 1-based line of the record before it
/// (`tests/it/snapshots/it__replay__*.snap`).
#[test]
fn golden_replay_of_each_fixture() {
    for (slug, name) in [
        ("spotter", SPOTTER),
        (
            "status_line",
            "wpfleger96__claude-code-status-line__session_with_compact.jsonl",
        ),
        ("fasthooks", "oneryalcin__fasthooks__sample_main_transcript.jsonl"),
        ("yepanywhere", "kzahel__yepanywhere__index.jsonl"),
        (
            "to_html",
            "ivh__claudecode_to_html__89196983-226d-4cce-917d-f19967122f0b.jsonl",
        ),
    ] {
        let t = transcript(name);
        let own = preset_for_version(t.versions.last().map(String::as_str));
        for preset in [own, Preset::Seed] {
            let r = t.replay(preset, preset.settings(200_000)).unwrap();
            let mut value = serde_json::to_value(&r).unwrap();
            let at_line = |v: &mut serde_json::Value, key: &str| {
                for item in v[key].as_array_mut().unwrap() {
                    let uuid = item["atUuid"].as_str().unwrap().to_owned();
                    item["atLine"] = line_of(name, &uuid).into();
                }
            };
            at_line(&mut value, "predicted");
            at_line(&mut value, "tiers");
            insta::assert_json_snapshot!(format!("replay_{slug}_{}", r.preset), value);
        }
    }
}

/// A session whose client cleared a huge tool result
/// (`microcompact_boundary`) before its next request.
fn microcompacted() -> compaction_core::transcript::Transcript {
    let big = "x".repeat(700_000); // 175,000 tokens at 4 characters per token
    let lines = [
        r#"{"type":"user","uuid":"u1","parentUuid":null,"version":"2.1.39","message":{"role":"user","content":"read it"}}"#.to_owned(),
        r#"{"type":"assistant","uuid":"a1","parentUuid":"u1","message":{"id":"msg_1","role":"assistant","model":"claude-opus-4-6","content":[{"type":"tool_use","id":"toolu_1","name":"Read","input":{"file_path":"/a"}}],"usage":{"input_tokens":100,"output_tokens":20}}}"#.to_owned(),
        format!(r#"{{"type":"user","uuid":"u2","parentUuid":"a1","message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"toolu_1","content":"{big}"}}]}}}}"#),
        r#"{"type":"system","subtype":"microcompact_boundary","uuid":"m1","parentUuid":"u2","microcompactMetadata":{"trigger":"auto","preTokens":175200,"tokensSaved":175000,"compactedToolIds":["toolu_1"]}}"#.to_owned(),
        r#"{"type":"assistant","uuid":"a2","parentUuid":"m1","message":{"id":"msg_2","role":"assistant","model":"claude-opus-4-6","content":[{"type":"text","text":"done"}],"usage":{"input_tokens":150,"output_tokens":2}}}"#.to_owned(),
    ];
    import(lines.join("\n").as_bytes())
}

#[test]
fn r4_4_a_recorded_microcompaction_is_applied_by_the_replay() {
    use compaction_core::transcript::replay::ReplayOptions;
    let t = microcompacted();
    assert_eq!(t.microcompactions.len(), 1);
    assert_eq!(t.microcompactions[0].tool_ids, ["toolu_1"]);
    assert_eq!(t.microcompactions[0].tokens_saved, Some(175_000));
    let settings = Preset::Client21.settings(200_000);
    // Following the client: the result is cleared before the request.
    let r = t.replay(Preset::Client21, settings.clone()).unwrap();
    assert!(r.predicted.is_empty(), "{:?}", r.predicted);
    // A what-if that does not follow it counts the whole result.
    let r = t
        .timeline()
        .replay_with(
            Preset::Client21,
            settings,
            ReplayOptions {
                follow_real: false,
                ..ReplayOptions::default()
            },
        )
        .unwrap();
    assert_eq!(r.predicted.len(), 1, "{:?}", r.predicted);
    assert!(r.predicted[0].tokens > 175_000);
}

/// A session of `version` whose one request is recorded with a streaming
/// snapshot (`output_tokens` 1) though its reply holds 400 characters and
/// a call, then a 4,000-character result and a real automatic boundary.
fn snapshot_session(version: &str) -> Vec<u8> {
    use serde_json::json;
    let at = "2026-02-12T16:13:26.000Z";
    let records = [
        json!({"type": "user", "uuid": "u1", "parentUuid": null, "version": version,
               "timestamp": at, "message": {"role": "user", "content": "go"}}),
        json!({"type": "assistant", "uuid": "a1", "parentUuid": "u1", "version": version,
               "timestamp": at, "requestId": "req",
               "message": {"id": "msg_1", "role": "assistant", "model": "claude-opus-4-5-20251101",
                           "content": [{"type": "text", "text": "y".repeat(400)},
                                       {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {}}],
                           "usage": {"input_tokens": 166_100, "cache_read_input_tokens": 0,
                                     "cache_creation_input_tokens": 0, "output_tokens": 1}}}),
        json!({"type": "user", "uuid": "u2", "parentUuid": "a1", "version": version,
               "timestamp": at, "message": {"role": "user", "content": [
                   {"type": "tool_result", "tool_use_id": "toolu_1", "content": "r".repeat(4_000)}]}}),
        json!({"type": "system", "subtype": "compact_boundary", "uuid": "b", "parentUuid": null,
               "logicalParentUuid": "u2", "version": version, "timestamp": at,
               "content": "Conversation compacted", "level": "info",
               "compactMetadata": {"trigger": "auto", "preTokens": 167_101}}),
        json!({"type": "user", "uuid": "s", "parentUuid": "b", "version": version, "timestamp": at,
               "isCompactSummary": true, "isVisibleInTranscriptOnly": true,
               "message": {"role": "user", "content": "This session is being continued…"}}),
    ];
    let mut out = Vec::new();
    for r in &records {
        out.extend_from_slice(r.to_string().as_bytes());
        out.push(b'\n');
    }
    out
}

#[test]
fn clients_2_1_14_to_2_1_29_count_a_recorded_snapshot_as_it_stands() {
    for (version, as_is) in [
        ("2.1.7", false),
        ("2.1.14", true),
        ("2.1.29", true),
        ("2.1.33", false),
    ] {
        let t = import(&snapshot_session(version));
        let chosen = choice::choose(&t);
        assert_eq!(chosen.reported_output_as_is, as_is, "{version}");
        let said = chosen.reasons.iter().any(|r| r.contains("streaming snapshot"));
        assert_eq!(said, as_is, "{version}: {:?}", chosen.reasons);
        let r = t.replay(chosen.preset, chosen.settings()).unwrap();
        let at_real = r.at_real.first().expect("the real boundary's count").tokens;
        if as_is {
            // The usage as recorded (166,100 + 1) + the result (1,000):
            // the boundary's preTokens, to the token.
            assert_eq!(at_real, 167_101, "{version}");
            assert_eq!(r.actual[0].pre_tokens, Some(at_real));
        } else {
            // The reply's final output stands in for the snapshot: its text
            // (100), the call (Read 1, {} 1, framing 87).
            assert_eq!(at_real, 166_100 + 100 + 1 + 1 + 87 + 1_000, "{version}");
        }
    }
}
