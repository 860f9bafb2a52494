//! Today's Messages API (SPEC R13): mid-conversation system messages and
//! tool changes (R13.3), through the public engine API.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test helpers may fail loudly

use crate::common::Offline;
use compaction_core::compact::{CompactOptions, Progress};
use compaction_core::engine::drive;
use compaction_core::engine::Engine;
use compaction_core::engine::Preset;
use compaction_core::groups::pairing_is_legal;
use compaction_core::message::{Message, Role};
use serde_json::json;

fn message(v: serde_json::Value) -> Message {
    serde_json::from_value(v).unwrap()
}

/// A turn: a prompt, a Read call, its result, a reply.
fn turn(n: usize, result_chars: usize) -> Vec<Message> {
    let id = format!("toolu_{n:04}");
    vec![
        message(
            json!({"uuid": format!("p{n}"), "role": "user", "content": format!("step {n}: read the next file")}),
        ),
        message(json!({"uuid": format!("c{n}"), "role": "assistant", "content": [
            {"type": "tool_use", "id": id, "name": "Read", "input": {"file_path": format!("src/f{n}.rs")}}
        ]})),
        message(json!({"uuid": format!("r{n}"), "role": "user", "content": [
            {"type": "tool_result", "tool_use_id": id, "content": "x".repeat(result_chars)}
        ]})),
        message(json!({"uuid": format!("a{n}"), "role": "assistant", "content": format!("read f{n}")})),
    ]
}

fn system_message(uuid: &str) -> Message {
    message(json!({"uuid": uuid, "role": "system", "content": [
        {"type": "text", "text": "From now on, answer in French."},
        {"type": "tool_addition", "tool": {"type": "tool_reference", "name": "Grep"}},
        {"type": "tool_removal", "tool": {"type": "tool_reference", "name": "Bash"}}
    ], "clear_at": "next_user_message"}))
}

/// Answers every request of a compaction offline until it ends, through
/// the driver.
fn finish(engine: &mut Engine) -> Option<Progress> {
    drive(engine, &mut Offline).unwrap().compaction
}

/// The uuids just before and after `uuid` in the view.
fn neighbours(engine: &Engine, uuid: &str) -> (Option<String>, Option<String>) {
    let uuids: Vec<String> = engine.view().messages().map(|m| m.uuid.0.clone()).collect();
    let at = uuids.iter().position(|u| u == uuid).expect("in the view");
    (
        at.checked_sub(1).map(|i| uuids[i].clone()),
        uuids.get(at + 1).cloned(),
    )
}

#[test]
fn r13_3_a_system_message_is_accepted_counted_and_kept_in_place_by_every_tier() {
    let mut settings = Preset::Seed.settings(200_000);
    settings.microcompact.context_editing = false;
    let mut e = Engine::new(settings).unwrap();
    let mut all = Vec::new();
    for n in 0..200 {
        all.extend(turn(n, 3_900));
        if n == 197 {
            all.push(system_message("sys"));
        }
    }
    let before_system = all.iter().position(|m| m.uuid.0 == "sys").unwrap();
    let text = serde_json::to_string(&all[before_system]).unwrap();
    for m in all {
        e.append(m).unwrap();
    }
    let tokens_with = e.count().tokens;
    // Counted: its text and its tool changes.
    assert!(e.breakdown().system >= 20, "{:?}", e.breakdown());
    assert_eq!(e.view().position(&"sys".into()), Some(before_system));
    // Snip (the count is over the compact line) removes old turns; the
    // system message stays between the same neighbours, byte for byte.
    let expect = (Some("a197".to_owned()), Some("p198".to_owned()));
    let d = e.before_call(None);
    assert!(d.count.tokens < tokens_with, "a tier fired");
    assert!(
        d.steps.iter().any(|s| s.rule == "R5.1"),
        "snip fired: {:?}",
        d.steps
    );
    assert_eq!(neighbours(&e, "sys"), expect);
    // /compact keeps the last group: the system message is in the prefix
    // or the tail, never moved; here the tail holds it when it is the last
    // turn's neighbour.
    e.compact(CompactOptions::default());
    let done = finish(&mut e);
    assert!(matches!(done, Some(Progress::Compacted { .. })), "{done:?}");
    let view: Vec<Message> = e.view().messages().cloned().collect();
    pairing_is_legal(&view).unwrap();
    if let Some(at) = e.view().position(&"sys".into()) {
        assert_eq!(serde_json::to_string(&view[at]).unwrap(), text);
        assert_eq!(neighbours(&e, "sys").1, expect.1);
    }
}

#[test]
fn r13_3_a_system_message_between_a_tool_call_and_its_result_keeps_the_pair_one_group() {
    let mut e = Engine::new(Preset::Seed.settings(200_000)).unwrap();
    let mut t = turn(0, 10);
    t.insert(2, system_message("sys"));
    for m in t {
        e.append(m).unwrap();
    }
    let groups = e.view().segmentation().group_starts().to_vec();
    // prompt | call, system, result | reply
    assert_eq!(groups, vec![0, 1, 4]);
    assert_eq!(e.view().messages().nth(2).unwrap().role, Role::System);
}

const COMPACTION: &str = r#"{"type":"compaction","content":"Summary: the user is refactoring utils.py; f0..f99 were read.","encrypted_content":"ZW5jcnlwdGVk","signature":"c2lnbmVk","tool_changes":[]}"#;

fn compaction_reply(uuid: &str) -> Message {
    let text = format!(
        r#"{{"uuid":"{uuid}","role":"assistant","content":[{COMPACTION},{{"type":"text","text":"Continuing."}}],"usage":{{"input_tokens":900,"output_tokens":40,"iterations":[{{"type":"compaction","input_tokens":150000,"output_tokens":2000}},{{"type":"message","input_tokens":2100,"output_tokens":40}}]}}}}"#
    );
    serde_json::from_str(&text).unwrap()
}

fn first_block_text(e: &Engine) -> String {
    serde_json::to_string(&e.view().messages().next().unwrap().content.blocks()[0]).unwrap()
}

#[test]
fn r13_2_a_compaction_block_99k_tokens_in_starts_the_view_the_count_and_every_tier() {
    let mut settings = Preset::Seed.settings(200_000);
    settings.microcompact.context_editing = false;
    let mut e = Engine::new(settings).unwrap();
    let mut n = 0;
    while e.count().tokens < 99_000 {
        for m in turn(n, 3_900) {
            e.append(m).unwrap();
        }
        n += 1;
    }
    let before: Vec<String> = e.view().messages().map(|m| m.uuid.0.clone()).collect();
    e.append(compaction_reply("cmp")).unwrap();
    // The view starts with the block, byte for byte; what came before is in
    // the store only, and the count covers the block's message only (its
    // last `message` iteration: 2,100 + its reply).
    assert_eq!(e.view().len(), 1);
    assert_eq!(first_block_text(&e), COMPACTION);
    assert!(e.count().tokens < 2_500, "{:?}", e.count());
    assert_eq!(e.store().len(), before.len() + 1);
    let d = e.before_call(None);
    let step = d
        .steps
        .iter()
        .find(|s| s.rule == "R13.2")
        .expect("a step says so");
    assert!(
        step.reason
            .contains(&format!("the {} message(s) before it", before.len())),
        "{}",
        step.reason
    );
    assert!(
        d.betas.contains(&"compact-2026-01-12".to_owned()),
        "{:?}",
        d.betas
    );
    // Fill again past the compact line: snip works on what follows the
    // block, never the block or what preceded it.
    for k in n..n + 190 {
        for m in turn(k, 3_900) {
            e.append(m).unwrap();
        }
    }
    let d = e.before_call(None);
    assert!(d.steps.iter().any(|s| s.rule == "R5.1"), "snip fired");
    for s in &d.steps {
        assert!(s.messages.iter().all(|u| !before.contains(&u.0)), "{s:?}");
    }
    assert_eq!(e.view().messages().next().unwrap().uuid.0, "cmp");
    assert_eq!(first_block_text(&e), COMPACTION);
}

#[test]
fn r13_2_server_compaction_sends_the_edit_and_its_answer_starts_the_view() {
    let mut settings = Preset::Seed.settings(200_000);
    settings.microcompact.context_editing = false;
    settings.snip = false;
    settings.collapse.enabled = false;
    settings.api.compaction = compaction_core::api::CompactionMode::Server;
    let mut e = Engine::new(settings).unwrap();
    for n in 0..180 {
        for m in turn(n, 3_900) {
            e.append(m).unwrap();
        }
    }
    let d = e.before_call(None);
    assert!(d.count.tokens > d.lines.compact);
    assert!(d.compaction.is_none(), "no client summary request");
    let cm = serde_json::to_value(d.context_management.as_ref().unwrap()).unwrap();
    assert_eq!(
        cm,
        json!({"edits": [{"type": "compact_20260112", "trigger": {"type": "input_tokens", "value": 167_000}}]})
    );
    assert_eq!(
        d.betas,
        vec!["compact-2026-01-12", "context-management-2025-06-27"]
    );
    assert!(d.steps.iter().any(|s| s.rule == "R13.2"));
    e.append(compaction_reply("server-1")).unwrap();
    assert_eq!(e.view().messages().next().unwrap().uuid.0, "server-1");
    assert_eq!(first_block_text(&e), COMPACTION);
    let d = e.before_call(None);
    assert!(d.count.tokens < d.lines.warn);
}

#[test]
fn r9_4_a_compaction_block_swapped_in_replaces_exactly_what_it_summarised_and_nothing_is_inserted() {
    let mut e = Engine::new(Preset::Seed.settings(200_000)).unwrap();
    for n in 0..6 {
        for m in turn(n, 100) {
            e.append(m).unwrap();
        }
    }
    let uuids: Vec<_> = e.view().messages().map(|m| m.uuid.clone()).collect();
    let block: compaction_core::message::Block = serde_json::from_str(COMPACTION).unwrap();
    let out = e.swap_in_compaction(&uuids[..16], block);
    let (steps, progress) = (out.steps, out.compaction);
    assert!(
        matches!(progress, Some(Progress::Compacted { .. })),
        "{progress:?} {steps:?}"
    );
    let after: Vec<_> = e.view().messages().map(|m| m.uuid.clone()).collect();
    assert_eq!(
        after[1..],
        uuids[16..],
        "the turns after follow the block directly"
    );
    assert_eq!(first_block_text(&e), COMPACTION);
    // A text block is not a compaction block: refused, the view stays.
    let refused = e.swap_in_compaction(&after[..1], compaction_core::message::Block::text("x"));
    assert!(matches!(refused.compaction, Some(Progress::Failed { .. })));
    assert_eq!(e.view().len(), after.len());
}

#[test]
fn r13_4_applied_edits_that_differ_from_the_prediction_replace_it_with_a_step() {
    let mut e = Engine::new(Preset::Seed.settings(200_000)).unwrap();
    for n in 0..60 {
        for m in turn(n, 2_000) {
            e.append(m).unwrap();
        }
    }
    let d = e.before_call(None);
    let cleared = d
        .steps
        .iter()
        .find(|s| s.rule == "R4.3")
        .expect("server clearing");
    assert_eq!(cleared.blocks.len(), 40);
    assert!(d.betas.contains(&"context-management-2025-06-27".to_owned()));
    let predicted = e.count().tokens;
    // The server cleared 30, not 40.
    let applied: Vec<compaction_core::api::applied::AppliedEdit> = serde_json::from_value(json!([
        {"type": "clear_tool_uses_20250919", "cleared_tool_uses": 30, "cleared_input_tokens": 15_000}
    ]))
    .unwrap();
    let step = e.applied_edits(&applied).expect("a step");
    assert_eq!(step.rule, "R13.4");
    assert_eq!(step.blocks.len(), 10);
    assert!(
        e.count().tokens > predicted,
        "ten results are back in what the model sees"
    );
    // The prediction held now: no step; and the next decision reports it.
    assert!(e.applied_edits(&applied).is_none());
    let d = e.before_call(None);
    assert!(d.steps.iter().any(|s| s.rule == "R13.4"));
    let cm = serde_json::to_value(d.context_management.unwrap()).unwrap();
    assert_eq!(cm["edits"][0]["keep"]["value"], 30);
}

#[test]
fn r13_4_applied_edits_with_the_usage_they_came_with_leave_the_reported_count() {
    let mut e = Engine::new(Preset::Seed.settings(200_000)).unwrap();
    for n in 0..60 {
        for m in turn(n, 2_000) {
            e.append(m).unwrap();
        }
    }
    let d = e.before_call(None);
    assert!(
        d.steps.iter().any(|s| s.rule == "R4.3"),
        "server clearing predicted"
    );
    // The response reports its prompt as the server counted it, having
    // cleared nothing; its applied_edits say so.
    e.append(message(
        json!({"uuid": "reply", "role": "assistant", "content": "done",
        "usage": {"input_tokens": 40_000, "output_tokens": 10}}),
    ))
    .unwrap();
    let reported = e.count().tokens;
    let applied: Vec<compaction_core::api::applied::AppliedEdit> = serde_json::from_value(json!([
        {"type": "clear_tool_uses_20250919", "cleared_tool_uses": 0, "cleared_input_tokens": 0}
    ]))
    .unwrap();
    let step = e.applied_edits(&applied).expect("the prediction changed: a step");
    assert_eq!(step.blocks.len(), 40, "the results are back in the view");
    // The 40,000 already counted those results: restoring them in the view
    // must not add them a second time.
    assert_eq!(e.count().tokens, reported);
}

#[test]
fn r13_2_on_demand_compaction_is_its_own_request_never_with_context_management() {
    let mut e = Engine::new(Preset::Seed.settings(200_000)).unwrap();
    for n in 0..60 {
        for m in turn(n, 2_000) {
            e.append(m).unwrap();
        }
    }
    let d = e.before_call(None);
    assert!(
        d.context_management.is_some(),
        "the call itself clears on the server"
    );
    let r = e.compaction_request(Some("Keep ticket ids.")).expect("a request");
    let body = serde_json::to_value(&r).unwrap();
    assert_eq!(
        body["compaction"],
        json!({"type": "summarize", "instructions": "Keep ticket ids."})
    );
    assert_eq!(
        r.betas,
        vec!["compact-2026-09-04"],
        "no context-management beta: no edit goes with it"
    );
    assert!(body.get("contextManagement").is_none());
    let view: Vec<_> = e.view().messages().map(|m| m.uuid.clone()).collect();
    assert_eq!(r.summarised, view);
    // Blank instructions are absent, as the API reads them.
    let blank = serde_json::to_value(e.compaction_request(Some("  ")).unwrap()).unwrap();
    assert_eq!(blank["compaction"], json!({"type": "summarize"}));
    // The block it returns replaces exactly what was sent.
    let block: compaction_core::message::Block = serde_json::from_str(COMPACTION).unwrap();
    let out = e.swap_in_compaction(&r.summarised, block);
    assert!(matches!(out.compaction, Some(Progress::Compacted { .. })));
    assert_eq!(e.view().len(), 1);
    assert_eq!(first_block_text(&e), COMPACTION);
    assert!(e
        .before_call(None)
        .betas
        .contains(&"compact-2026-01-12".to_owned()));
    // A view ending with an unanswered tool call cannot be compacted.
    e.append(message(json!({"uuid": "call", "role": "assistant", "content": [
        {"type": "tool_use", "id": "toolu_x", "name": "Read", "input": {}}
    ]})))
    .unwrap();
    assert!(e.compaction_request(None).is_none());
}
