//! A compaction call's transcript (`agent-acompact-*.jsonl`, issue 29):
//! its last request is the summary request of its parent session's
//! compaction, so the replay's prediction there is that compaction
//! (`ownCall`), not a false positive.

use compaction_core::transcript::fidelity::{compaction_call, score};
use compaction_core::transcript::{choice, import};
use serde_json::{json, Value};

/// A subagent-style file of client 2.1.71: two replies whose requests
/// were `first` and 168,500 tokens, then `last_prompt` and a reply to it.
fn call(last_prompt: &str) -> Vec<u8> {
    // A subagent's record.
    let record = |uuid: &str, parent: Value, role: &str, content: Value, usage: Option<u64>| {
        let mut r = super::apart::record_of("2.1.71", uuid, parent, role, content, usage);
        r["isSidechain"] = json!(true);
        r["agentId"] = json!("acompact-1234");
        r
    };
    let records = [
        record("u1", Value::Null, "user", json!("go on"), None),
        record(
            "a1",
            json!("u1"),
            "assistant",
            json!([{"type": "text", "text": "working"}]),
            Some(120_000),
        ),
        record("u2", json!("a1"), "user", json!("and the rest"), None),
        record(
            "a2",
            json!("u2"),
            "assistant",
            json!([{"type": "text", "text": "done"}]),
            Some(168_500),
        ),
        record("u3", json!("a2"), "user", json!(last_prompt), None),
        record(
            "a3",
            json!("u3"),
            "assistant",
            json!([{"type": "text", "text": "<summary>…</summary>"}]),
            Some(169_000),
        ),
    ];
    super::jsonl(&records)
}

/// Its replay scored: false positives, and the call's own compaction.
fn scored(last_prompt: &str) -> (usize, Option<u64>, Option<usize>) {
    let t = import(&call(last_prompt));
    let c = choice::choose(&t);
    let timeline = t.timeline();
    let replay = timeline.replay(c.preset, c.settings()).unwrap();
    let f = score(&timeline, &replay);
    (
        f.false_positives,
        f.own_call.map(|(_, tokens)| tokens),
        compaction_call(&timeline),
    )
}

#[test]
fn a_compaction_calls_own_compaction_is_no_false_positive() {
    let prompt = "Your task is to create a detailed summary of the conversation so far, paying close attention to the user's explicit requests.";
    let (false_positives, own, at) = scored(prompt);
    assert_eq!(at, Some(4), "the prompt is the fifth timeline message");
    assert_eq!(false_positives, 0);
    assert!(own.is_some_and(|tokens| tokens >= 168_500), "{own:?}");
    // Any other last prompt: the same prediction is a false positive.
    let (false_positives, own, at) = scored("Please also update the changelog.");
    assert_eq!((false_positives, own, at), (1, None, None));
}
