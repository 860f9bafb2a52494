//! Hand-made damaged files: every problem kind, reported with its line;
//! orphans left out of the resumed view.

use serde_json::json;

use super::*;

#[test]
fn every_problem_kind_is_reported_with_its_line() {
    let mut bad_time = user("t", Some("u"), json!("late"));
    bad_time["timestamp"] = json!("yesterday");
    let mut file = jsonl(&[
        user("u", None, json!("hi")),                                            // 1
        json!({"type": "user", "uuid": "nomsg", "parentUuid": "u"}),             // 2 invalid record
        json!({"type": "future-thing", "uuid": "f", "parentUuid": "u", "x": 1}), // 3 unknown type
        json!({"no": "type"}),                                                   // 4 missing type
        user("u", None, json!("copy")),                                          // 5 duplicate uuid
        user("d", Some("ghost"), json!("lost parent")),                          // 6 dangling parent
        bad_time,                                                                // 7 invalid timestamp
        user("r", Some("t"), tool_result("nowhere")),                            // 8 orphan tool_result
        assistant("a", Some("r"), "msg_a", tool_use("never"), (1, 1)),           // 9 orphan tool_use
        json!({"type": "system", "subtype": "compact_boundary", "uuid": "b", "parentUuid": null,
               "logicalParentUuid": "ghost2"}), // 10 boundary: no metadata, no summary, dangling
    ]);
    file.extend_from_slice(b"{not json\n"); // 11
    file.extend_from_slice(b"\xff\xfe\n"); // 12
    file.extend_from_slice(b"[1,2]\n"); // 13
    file.extend_from_slice(b"\r\n\n"); // 14, 15: blank
    file.extend_from_slice(br#"{"type":"user","uuid":"cut","mess"#); // 16: truncated
    let t = import(&file);
    use ProblemKind::*;
    let expected = [
        (2, InvalidRecord),
        (3, UnknownType),
        (4, MissingType),
        (5, DuplicateUuid),
        (6, DanglingParent),
        (7, InvalidTimestamp),
        (8, OrphanToolResult),
        (9, OrphanToolUse),
        (10, MissingCompactMetadata),
        (10, MissingCompactSummary),
        (10, DanglingLogicalParent),
        (11, MalformedJson),
        (12, InvalidUtf8),
        (13, MalformedJson),
        (16, TruncatedLine),
    ];
    assert_eq!(kinds(&t), expected);
    assert!(t.problems.iter().all(|p| !p.detail.is_empty()));
    let i = t.inspection();
    assert_eq!((i.lines, i.records, i.orphans), (16, 10, 2));
    assert_eq!(
        t.unknown_records
            .iter()
            .map(|(line, _)| *line)
            .collect::<Vec<_>>(),
        [2, 3, 4]
    );
    assert_eq!(t.unknown_records[1].1.get("x").map(|v| v.text()), Some("1"));
    assert_eq!(t.message(&"t".into()).unwrap().message.timestamp, None);
    // The leaf is the boundary: an empty view after it, and nothing illegal.
    let view = t.resume();
    assert_eq!(view.boundary.unwrap().uuid.as_str(), "b");
    assert!(view.messages.is_empty());
}

#[test]
fn orphans_in_the_view_are_left_out_and_reported() {
    let t = import(&jsonl(&[
        user("u", None, json!("go")),
        user("r0", Some("u"), tool_result("before-the-file")),
        assistant("a", Some("r0"), "msg_a", tool_use("t1"), (1, 1)),
        user(
            "r1",
            Some("a"),
            json!([{"type": "tool_result", "tool_use_id": "t1", "content": "ok"},
                                      {"type": "tool_result", "tool_use_id": "elsewhere", "content": "?"}]),
        ),
        user("r2", Some("r1"), tool_result("t1")),
    ]));
    let view = t.resume();
    assert_eq!(
        view.messages
            .iter()
            .map(|m| m.message.uuid.as_str())
            .collect::<Vec<_>>(),
        ["u", "a", "r1"]
    );
    assert_eq!(view.messages[2].message.content.blocks().len(), 1);
    let got: Vec<_> = view.problems.iter().map(|p| (p.line, p.kind)).collect();
    use ProblemKind::*;
    assert_eq!(
        got,
        [
            (2, OrphanToolResult),
            (2, OrphanToolResult),
            (4, OrphanToolResult),
            (5, DuplicateToolResult),
            (5, OrphanToolResult)
        ]
    );
    view_is_legal(&t);
    // The store keeps everything.
    assert_eq!(t.messages.len(), 5);
}

/// Found by `any_record_graph_resumes_to_a_legal_view`: boundaries whose
/// logical parents name each other made `eras` loop forever.
#[test]
fn boundaries_whose_logical_parents_loop_end_the_history() {
    let t = import(&jsonl(&[
        boundary("b1", "b2", json!({"trigger": "auto", "preTokens": 1})),
        boundary("b2", "b1", json!({"trigger": "auto", "preTokens": 2})),
    ]));
    let eras: Vec<_> = t.eras().into_iter().map(|e| e.boundary).collect();
    assert_eq!(eras, [Some(0), Some(1)]);
    assert_eq!(t.resume().boundary.unwrap().uuid.as_str(), "b2");
}

#[test]
fn a_last_line_without_newline_is_read_when_whole() {
    let mut file = jsonl(&[user("u", None, json!("hi"))]);
    file.extend_from_slice(
        br#"{"type":"user","uuid":"v","parentUuid":"u","message":{"role":"user","content":"end"}}"#,
    );
    let t = import(&file);
    assert!(t.problems.is_empty());
    assert_eq!(uuids(&t), ["u", "v"]);
}

#[test]
fn parent_cycles_are_reported_by_uuid_and_never_hang() {
    // x names y (later) as its parent, y names x: a loop of two records; s
    // names itself.
    let t = import(&jsonl(&[
        user("u", None, json!("start")),  // 1
        user("x", Some("y"), json!("x")), // 2
        assistant(
            "y",
            Some("x"),
            "msg_y",
            json!({"type": "text", "text": "y"}),
            (1, 1),
        ), // 3
        user("s", Some("s"), json!("self")), // 4
    ]));
    use ProblemKind::*;
    assert_eq!(kinds(&t), [(3, ParentCycle), (4, ParentCycle)]);
    let loop_detail = &t.problems[0].detail;
    assert!(
        loop_detail.contains("`y`") && loop_detail.contains("= x"),
        "{loop_detail}"
    );
    assert!(
        t.problems[1].detail.contains("names the record itself"),
        "{}",
        t.problems[1].detail
    );
    // The self-link continues from the record before it; the loop stops
    // where it would repeat: every record once.
    view_is_legal(&t);
    assert_eq!(uuids(&t), ["x", "y", "s"]);
    assert_eq!(t.eras().len(), 1);
}

#[test]
fn unanswered_calls_are_dropped_by_default_or_answered_with_synthetic_error_results() {
    let t = import(&jsonl(&[
        user("u", None, json!("go")),                               // 1
        assistant("a", Some("u"), "msg_a", tool_use("t1"), (1, 1)), // 2: its result line was lost
        user("n", Some("a"), json!("next question")),               // 3
        assistant("b", Some("n"), "msg_b", tool_use("t2"), (1, 1)), // 4
        user("r", Some("b"), tool_result("t2")),                    // 5
        assistant("c", Some("r"), "msg_c", tool_use("t3"), (1, 1)), // 6: cut while the tool ran
    ]));
    view_is_legal(&t);
    // Drop (the default): both unanswered calls leave the view.
    assert_eq!(uuids(&t), ["u", "n", "b", "r"]);
    let dropped = t.resume();
    assert_eq!(
        dropped
            .problems
            .iter()
            .filter(|p| p.kind == ProblemKind::OrphanToolUse)
            .count(),
        2
    );
    // ErrorResult: kept, and answered where the API wants the answer.
    let answered = t.resume_with(Unanswered::ErrorResult);
    let uuids: Vec<&str> = answered
        .messages
        .iter()
        .map(|m| m.message.uuid.as_str())
        .collect();
    assert_eq!(uuids, ["u", "a", "n", "b", "r", "c", "c-unanswered"]);
    let next = &answered.messages[2].message;
    assert_eq!(next.tool_result_ids().collect::<Vec<_>>(), ["t1"]);
    let json = serde_json::to_value(&next.content).unwrap();
    assert_eq!(json[0]["is_error"], json!(true));
    assert_eq!(json[0]["content"], json!(UNANSWERED_RESULT));
    assert_eq!(
        json[1],
        json!({"type": "text", "text": "next question"}),
        "the prompt follows the result"
    );
    let last = &answered.messages[6];
    assert_eq!(last.message.role, Role::User);
    assert_eq!(last.message.tool_result_ids().collect::<Vec<_>>(), ["t3"]);
    assert_eq!(last.parent_uuid.as_ref().map(|u| u.as_str()), Some("c"));
    let problems: Vec<_> = answered
        .problems
        .iter()
        .filter(|p| p.kind == ProblemKind::OrphanToolUse)
        .collect();
    assert_eq!(problems.iter().map(|p| p.line).collect::<Vec<_>>(), [2, 6]);
    assert!(
        problems
            .iter()
            .all(|p| p.detail.contains("synthetic error `tool_result`")),
        "{problems:?}"
    );
}

/// Each `tool_use` of `view` is answered in the user messages right after
/// it (the API joins consecutive user messages).
fn answered_in_the_next_user_messages(view: &[Message]) -> Result<(), String> {
    for (i, m) in view.iter().enumerate() {
        let after: Vec<&str> = view[i + 1..]
            .iter()
            .take_while(|n| n.role == Role::User)
            .flat_map(|n| n.tool_result_ids())
            .collect();
        if let Some(id) = m.tool_use_ids().find(|id| !after.contains(id)) {
            return Err(format!(
                "tool_use `{id}` of message {i} is not answered right after it"
            ));
        }
    }
    Ok(())
}

#[test]
fn fixtures_with_300_flipped_bytes_and_200_half_cut_lines_resume_with_every_call_answered() {
    let files: Vec<Vec<u8>> = [SPOTTER, STATUS_LINE, FASTHOOKS, YEPANYWHERE, TO_HTML]
        .iter()
        .map(|name| fixture(name))
        .collect();
    let mut seed: u64 = 15;
    let mut next = |n: usize| {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (seed >> 33) as usize % n.max(1)
    };
    for round in 0..500 {
        let mut bytes = files[round % files.len()].clone();
        if round < 300 {
            let at = next(bytes.len());
            bytes[at] = next(256) as u8;
        } else {
            let starts: Vec<usize> = std::iter::once(0)
                .chain(
                    bytes
                        .iter()
                        .enumerate()
                        .filter(|(_, &b)| b == b'\n')
                        .map(|(i, _)| i + 1),
                )
                .filter(|&s| s < bytes.len())
                .collect();
            let at = starts[next(starts.len())];
            let end = bytes[at..]
                .iter()
                .position(|&b| b == b'\n')
                .map_or(bytes.len(), |p| at + p);
            bytes.drain(at + (end - at) / 2..end);
        }
        let t = import(&bytes);
        for mode in [Unanswered::Drop, Unanswered::ErrorResult] {
            let view: Vec<Message> = t
                .resume_with(mode)
                .messages
                .into_iter()
                .map(|m| std::sync::Arc::unwrap_or_clone(m.message))
                .collect();
            pairing_is_legal(&view).unwrap_or_else(|e| panic!("round {round} {mode:?}: {e}"));
            answered_in_the_next_user_messages(&view)
                .unwrap_or_else(|e| panic!("round {round} {mode:?}: {e}"));
            api_takes(&view).unwrap_or_else(|e| panic!("round {round} {mode:?}: {e}"));
        }
    }
}

/// An assistant record that says `text`.
fn said(uuid: &str, parent: Option<&str>, text: &str) -> serde_json::Value {
    assistant(
        uuid,
        parent,
        &format!("msg_{uuid}"),
        json!({"type": "text", "text": text}),
        (1, 1),
    )
}

#[test]
fn a_view_that_would_start_with_an_assistant_message_starts_with_a_user_one() {
    // Issue 27: a boundary whose summary record is lost, preserving an
    // assistant message first; and a chain whose first record names a
    // parent no record has, from an assistant message.
    let t = import(&jsonl(&[
        user("u", None, json!("go")),                               // 1
        assistant("a", Some("u"), "msg_a", tool_use("t1"), (1, 1)), // 2
        user("r", Some("a"), tool_result("t1")),                    // 3
        said("a2", Some("r"), "done"),                              // 4
        boundary(
            "b",
            "a2",
            json!({"trigger": "auto", "preTokens": 9,
                                    "preservedMessages": ["a", "r", "a2"]}),
        ), // 5, no summary
        user("n", Some("b"), json!("and now?")),                    // 6
    ]));
    view_is_legal(&t);
    let resumed = t.resume();
    assert_eq!(resumed.messages.first().map(|m| m.message.role), Some(Role::User));
    let kinds: Vec<ProblemKind> = resumed.problems.iter().map(|p| p.kind).collect();
    assert!(kinds.contains(&ProblemKind::AssistantFirst), "{kinds:?}");
    // The call's result goes with it; the rest stays.
    assert_eq!(uuids(&t), ["n"]);
    let t = import(&jsonl(&[
        said("x", Some("lost"), "hello"),
        user("y", Some("x"), json!("hi")),
    ]));
    view_is_legal(&t);
    assert_eq!(uuids(&t), ["y"]);
}

#[test]
fn duplicate_tool_use_ids_are_left_out_of_the_view_with_their_results() {
    // Issue 27: a resumed view kept two `tool_use` blocks with one id (in
    // one message, and in two), which the API refuses.
    let twice = json!({"type": "assistant", "uuid": "a", "parentUuid": "u", "isSidechain": false,
        "timestamp": "2026-02-12T16:13:26.000Z",
        "message": {"id": "msg_a", "role": "assistant", "model": "m", "content": [
            {"type": "tool_use", "id": "t1", "name": "Read", "input": {}},
            {"type": "tool_use", "id": "t1", "name": "Read", "input": {}},
            {"type": "tool_use", "id": "t2", "name": "Read", "input": {}}]}});
    let both = json!({"type": "user", "uuid": "r", "parentUuid": "a", "isSidechain": false,
        "timestamp": "2026-02-12T16:13:27.000Z",
        "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": "ok"},
            {"type": "tool_result", "tool_use_id": "t2", "content": "ok"}]}});
    let t = import(&jsonl(&[
        user("u", None, json!("go")),                               // 1
        twice,                                                      // 2
        both,                                                       // 3
        assistant("c", Some("r"), "msg_c", tool_use("t2"), (1, 1)), // 4: t2 again
        user("s", Some("c"), tool_result("t2")),                    // 5
        said("d", Some("s"), "done"),                               // 6
    ]));
    view_is_legal(&t);
    let resumed = t.resume();
    let dups: Vec<u32> = resumed
        .problems
        .iter()
        .filter(|p| p.kind == ProblemKind::DuplicateToolUse)
        .map(|p| p.line)
        .collect();
    assert_eq!(dups, [2, 4]);
    let first = &resumed.messages[1].message;
    assert_eq!(first.tool_use_ids().collect::<Vec<_>>(), ["t1", "t2"]);
    // The second call to t2 held nothing else: it goes, and its result too.
    assert_eq!(uuids(&t), ["u", "a", "r", "d"]);
}
