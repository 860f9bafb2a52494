//! Hand-made files for each era of the format: v1.0 inline sidechains,
//! v2.1 progress records, normalized exports, preserved messages, rewinds.

use serde_json::json;

use super::*;

#[test]
fn v1_inline_sidechains_are_counted_and_kept_out_of_the_chain() {
    let mut side_user = user("s1", None, json!("Warmup"));
    side_user["isSidechain"] = json!(true);
    let mut side_reply = assistant(
        "s2",
        Some("s1"),
        "msg_s",
        json!({"type": "text", "text": "ready"}),
        (5, 5),
    );
    side_reply["isSidechain"] = json!(true);
    let mut hook = json!({"type": "system", "content": "Running PostToolUse:Bash...", "level": "info",
                          "uuid": "h", "parentUuid": "a", "toolUseID": "t1", "version": "1.0.98"});
    hook["isMeta"] = json!(false);
    let mut records = vec![
        user("u", None, json!("hello")),
        side_user,
        assistant("a", Some("u"), "msg_a", tool_use("t1"), (100, 10)),
        side_reply,
        hook,
        user("r", Some("h"), tool_result("t1")),
    ];
    for r in &mut records {
        r["version"] = json!("1.0.98");
    }
    let t = import(&jsonl(&records));
    let i = t.inspection();
    assert_eq!((i.records, i.sidechain_records, i.messages), (6, 2, 3));
    assert_eq!(i.record_types["system"], 1);
    assert_eq!(i.versions, ["1.0.98"]);
    assert_eq!(uuids(&t), ["u", "a", "r"]);
    assert!(t.problems.is_empty(), "{:?}", t.problems);
}

#[test]
fn v2_1_progress_records_sit_in_the_chain() {
    let progress = |uuid: &str, parent: &str| {
        json!({"type": "progress", "uuid": uuid, "parentUuid": parent, "toolUseID": "t1",
               "data": {"type": "hook_progress", "hookName": "PostToolUse:Read"}})
    };
    let t = import(&jsonl(&[
        json!({"type": "progress", "uuid": "p0", "parentUuid": null, "data": {"type": "hook_progress"}}),
        user("u", Some("p0"), json!("go")),
        assistant("a1", Some("u"), "msg_1", tool_use("t1"), (10, 1)),
        progress("p1", "a1"),
        assistant("a2", Some("p1"), "msg_1", tool_use("t2"), (10, 2)),
        progress("p2", "a2"),
        user("r1", Some("a1"), tool_result("t1")),
        user("r2", Some("p2"), tool_result("t2")),
        assistant(
            "a3",
            Some("r2"),
            "msg_2",
            json!({"type": "text", "text": "done"}),
            (20, 3),
        ),
    ]));
    assert_eq!(uuids(&t), ["u", "a1", "r1", "r2", "a3"]);
    assert_eq!(t.inspection().record_types["progress"], 3);
    view_is_legal(&t);
}

#[test]
fn normalized_exports_keep_the_header_and_merge_chained_lines() {
    let strip = |mut r: Value| {
        r["message"].as_object_mut().unwrap().remove("id");
        r.as_object_mut().unwrap().remove("requestId");
        r
    };
    let t = import(&jsonl(&[
        json!({"_type": "hive-mind-meta", "version": "0.1", "sessionId": "s", "messageCount": 4, "rawPath": "/x.jsonl"}),
        user("u", None, json!("go")),
        strip(assistant(
            "a1",
            Some("u"),
            "",
            json!({"type": "thinking", "thinking": "t", "signature": "s"}),
            (9, 1),
        )),
        strip(assistant(
            "a2",
            Some("a1"),
            "",
            json!({"type": "text", "text": "hi"}),
            (9, 4),
        )),
        user("u2", Some("a2"), json!("again")),
        strip(assistant(
            "a3",
            Some("u2"),
            "",
            json!({"type": "text", "text": "yes"}),
            (12, 1),
        )),
    ]));
    assert_eq!(
        t.header.as_ref().unwrap().str_field("_type").as_deref(),
        Some("hive-mind-meta")
    );
    assert!(t.problems.is_empty(), "{:?}", t.problems);
    assert_eq!(uuids(&t), ["u", "a1", "u2", "a3"]);
    assert_eq!(t.messages[1].message.usage.as_ref().unwrap().output_tokens, 4);
}

#[test]
fn a_preserved_segment_is_relinked_after_the_summary() {
    let t = import(&jsonl(&[
        user("m1", None, json!("one")),
        assistant("m2", Some("m1"), "msg_2", tool_use("t1"), (1000, 10)),
        user("m3", Some("m2"), tool_result("t1")),
        user("m4", Some("m3"), json!("keep me")),
        assistant("m5", Some("m4"), "msg_5", tool_use("t2"), (150_000, 10)),
        user("m6", Some("m5"), tool_result("t2")),
        boundary(
            "b",
            "m6",
            json!({"trigger": "auto", "preTokens": 150_100, "postTokens": 30_000,
            "preservedSegment": {"headUuid": "m4", "anchorUuid": "s", "tailUuid": "m6"}}),
        ),
        summary("s", "b"),
        assistant(
            "m7",
            Some("m6"),
            "msg_7",
            json!({"type": "text", "text": "continuing"}),
            (30_000, 5),
        ),
        user("m8", Some("m7"), json!("thanks")),
    ]));
    assert!(t.problems.is_empty(), "{:?}", t.problems);
    let view = t.resume();
    let order: Vec<_> = view
        .messages
        .iter()
        .map(|m| (m.message.uuid.to_string(), m.preserved))
        .collect();
    let expect = [
        ("s", false),
        ("m4", true),
        ("m5", true),
        ("m6", true),
        ("m7", false),
        ("m8", false),
    ];
    assert_eq!(order, expect.map(|(u, p)| (u.to_owned(), p)));
    assert_eq!(view.messages[2].message.usage.as_deref(), Some(&Usage::zeroed()));
    assert_eq!(view.boundary.unwrap().metadata.unwrap().post_tokens, Some(30_000));
    let eras: Vec<_> = t
        .eras()
        .into_iter()
        .map(|e| (e.boundary, e.messages.len(), e.preserved))
        .collect();
    assert_eq!(eras, [(None, 6, 0), (Some(0), 6, 3)]);
}

#[test]
fn preserved_messages_are_read_in_both_shapes() {
    for preserved in [
        json!(["k1", "k2"]),
        json!({"anchorUuid": "s", "uuids": ["k1", "k2"]}),
    ] {
        let t = import(&jsonl(&[
            user("old", None, json!("old")),
            user("k1", Some("old"), json!("kept 1")),
            assistant(
                "k2",
                Some("k1"),
                "msg_k",
                json!({"type": "text", "text": "kept 2"}),
                (5, 5),
            ),
            boundary(
                "b",
                "k2",
                json!({"trigger": "manual", "preTokens": 99, "preservedMessages": preserved,
                                       "cumulativeDroppedTokens": 80}),
            ),
            summary("s", "b"),
            user("n", Some("s"), json!("new")),
        ]));
        assert_eq!(uuids(&t), ["s", "k1", "k2", "n"]);
        assert!(t.problems.is_empty(), "{:?}", t.problems);
    }
}

#[test]
fn the_newest_branch_wins_after_a_rewind() {
    let t = import(&jsonl(&[
        user("u", None, json!("first")),
        assistant(
            "a",
            Some("u"),
            "msg_a",
            json!({"type": "text", "text": "one"}),
            (1, 1),
        ),
        user("x", Some("a"), json!("abandoned")),
        assistant(
            "y",
            Some("x"),
            "msg_y",
            json!({"type": "text", "text": "lost"}),
            (1, 1),
        ),
        user("z", Some("a"), json!("rewound prompt")),
    ]));
    assert_eq!(uuids(&t), ["u", "a", "z"]);
}

#[test]
fn a_subagents_own_transcript_is_read_as_its_session_with_its_boundaries() {
    // Issue 29: an `agent-*.jsonl` file (every record `isSidechain: true`,
    // with the subagent's `agentId`) read as 0 messages and no boundary,
    // though subagents compact on their own.
    let side = |mut r: serde_json::Value| {
        r["isSidechain"] = json!(true);
        r["agentId"] = json!("a0ff612");
        r
    };
    let records = [
        side(user("u1", None, json!("explore the repo"))),
        side(assistant(
            "a1",
            Some("u1"),
            "msg_1",
            tool_use("t1"),
            (150_000, 10),
        )),
        side(user("r1", Some("a1"), tool_result("t1"))),
        side(assistant(
            "a2",
            Some("r1"),
            "msg_2",
            json!({"type": "text", "text": "found it"}),
            (170_000, 10),
        )),
        side(boundary(
            "b",
            "a2",
            json!({"trigger": "auto", "preTokens": 173_496}),
        )),
        side(summary("s", "b")),
        side(user("u2", Some("s"), json!("go on"))),
    ];
    let t = import(&jsonl(&records));
    let i = t.inspection();
    assert!(i.subagent);
    assert_eq!((i.sidechain_records, i.messages), (7, 6));
    assert_eq!(i.boundaries.len(), 1);
    assert_eq!(i.boundaries[0].pre_tokens, Some(173_496));
    assert_eq!(uuids(&t), ["s", "u2"]);
    assert!(t.problems.is_empty(), "{:?}", t.problems);
    // A main file whose first record is an inline v1.0 sidechain (no
    // `agentId`) keeps its sidechains out of the chain, as before.
    let mut warmup = user("w", None, json!("Warmup"));
    warmup["isSidechain"] = json!(true);
    let t = import(&jsonl(&[warmup, user("m", None, json!("hello"))]));
    assert!(!t.inspection().subagent);
    assert_eq!(uuids(&t), ["m"]);
}
