//! Versions and models as data (issue 29): an unmeasured client version
//! or a model the table does not know is said to be one in
//! `chosen.reasons`; a session whose requests exceed the model's window
//! takes the model's long window; a client that counts the last
//! response's usage alone (2.0.70 – 2.0.76) is replayed that way.

use compaction_core::engine::Preset;
use compaction_core::transcript::choice::{self, Choice};
use compaction_core::transcript::import;
use compaction_core::transcript::replay::ReplayOptions;
use serde_json::{json, Value};

/// A session of `version` on `model`: a prompt, a reply whose request was
/// `first` tokens, a tool result of `result_chars` characters, then a reply
/// whose request was `second` tokens, and a last tool result.
fn session(version: &str, model: &str, first: u64, result_chars: usize, second: u64) -> Vec<u8> {
    let reply = |n: u64, uuid: &str, parent: &str, tokens: u64| {
        json!({"type": "assistant", "uuid": uuid, "parentUuid": parent, "version": version,
            "timestamp": format!("2026-01-01T00:00:0{n}.000Z"),
            "message": {"id": format!("msg_{n}"), "role": "assistant", "model": model,
                "content": [{"type": "tool_use", "id": format!("toolu_{n}"), "name": "Read", "input": {}}],
                "usage": {"input_tokens": tokens, "output_tokens": 20}}})
    };
    let result = |n: u64, uuid: &str, parent: &str, chars: usize| {
        json!({"type": "user", "uuid": uuid, "parentUuid": parent, "version": version,
            "timestamp": format!("2026-01-01T00:00:0{n}.500Z"),
            "message": {"role": "user", "content": [{"type": "tool_result",
                "tool_use_id": format!("toolu_{n}"), "content": "x".repeat(chars)}]}})
    };
    let records: Vec<Value> = vec![
        json!({"type": "user", "uuid": "u1", "parentUuid": null, "version": version,
            "timestamp": "2026-01-01T00:00:00.000Z", "message": {"role": "user", "content": "read it"}}),
        reply(1, "a1", "u1", first),
        result(1, "r1", "a1", result_chars),
        reply(2, "a2", "r1", second),
        result(2, "r2", "a2", 40),
    ];
    records
        .iter()
        .map(|r| format!("{r}\n"))
        .collect::<String>()
        .into_bytes()
}

fn chosen(version: &str, model: &str, first: u64) -> Choice {
    choice::choose(&import(&session(version, model, first, 40, first + 100)))
}

fn said(chosen: &Choice, words: &str) -> bool {
    chosen.reasons.iter().any(|r| r.contains(words))
}

#[test]
fn an_unmeasured_version_and_an_unknown_model_are_said_to_be_so() {
    let c = chosen("2.1.100", "glm-4.7", 1_000);
    assert_eq!(c.preset, Preset::Client21);
    assert_eq!(c.range, "unmeasured 2.1.75 – 2.1.121");
    assert!(
        said(
            &c,
            "client 2.1.100 is unmeasured, between the measured 2.1.25 – 2.1.74 and 2.1.122 – 2.1.146"
        ),
        "{:?}",
        c.reasons
    );
    assert!(
        said(&c, "glm-4.7 is unknown to the model table (not a Claude model"),
        "{:?}",
        c.reasons
    );
    assert_eq!((c.window, c.max_output_tokens), (200_000, None));
    // A measured version names the files its range rests on.
    let c = chosen("2.1.126", "claude-sonnet-4-5-20250929", 1_000);
    assert_eq!(c.range, "2.1.122 – 2.1.146");
    assert!(said(&c, "Eduardodmb/ClaudeWork"), "{:?}", c.reasons);
    assert!(
        said(&c, "claude-sonnet-4-5-20250929: window 200000"),
        "{:?}",
        c.reasons
    );
    let c = chosen("2.1.200", "claude-opus-4-6", 1_000);
    assert_eq!(c.range, "newer than 2.1.146");
}

#[test]
fn requests_over_the_window_take_the_models_long_window_or_say_it_is_assumed() {
    let c = chosen("2.1.170", "claude-opus-4-6", 999_697);
    assert_eq!(c.window, 1_000_000);
    assert!(
        said(
            &c,
            "a request of 999797 tokens exceeds 200000: claude-opus-4-6's 1000000-token window"
        ),
        "{:?}",
        c.reasons
    );
    // Opus 4.5 offers no longer window: the replay says it assumes one.
    let c = chosen("2.1.7", "claude-opus-4-5-20251101", 400_000);
    assert_eq!(c.window, 1_000_000);
    assert!(
        said(&c, "knows no longer window for this model: 1000000 assumed"),
        "{:?}",
        c.reasons
    );
}

#[test]
fn a_2_0_76_client_counts_the_last_usage_alone() {
    // 150,000 tokens, then a 40,000-character tool result (about 10,000
    // tokens), then a reply whose request was 160,100: a client that
    // counts what followed compacts before the second reply; one that
    // counts the usage alone first sees the line crossed after it.
    let t = import(&session(
        "2.0.76",
        "claude-opus-4-5-20251101",
        150_000,
        40_000,
        160_100,
    ));
    let c = choice::choose(&t);
    assert!(!c.counts_appended);
    assert!(said(&c, "usage alone"), "{:?}", c.reasons);
    let timeline = t.timeline();
    let replay = |counts_appended| {
        let options = ReplayOptions {
            counts_appended,
            ..ReplayOptions::default()
        };
        timeline
            .replay_with(c.preset, c.settings(), options)
            .unwrap()
            .predicted
    };
    let usage_alone = replay(false);
    assert_eq!(usage_alone.len(), 1, "{usage_alone:?}");
    assert_eq!(usage_alone[0].at_uuid.as_str(), "a2");
    assert!(usage_alone[0].tokens >= 160_100, "{usage_alone:?}");
    let appended = replay(true);
    assert_eq!(appended.len(), 1, "{appended:?}");
    assert_eq!(appended[0].at_uuid.as_str(), "r1");
    // 2.1.x counts what followed.
    assert!(chosen("2.1.7", "claude-opus-4-5-20251101", 1_000).counts_appended);
}
