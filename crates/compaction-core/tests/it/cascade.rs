//! The cascade before a call, rule by rule (SPEC R1.6–R1.7, R2, R3.1, R4,
//! R5): hand-built histories through the public engine API.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test helpers may fail loudly

use compaction_core::engine::{CallStatus, Engine};
use compaction_core::engine::{EngineSettings, Preset};
use compaction_core::message::{Block, Content, Message, Role, ToolResultContent, Usage};
use compaction_core::step::{CacheEffect, Owner, Tier};
use compaction_core::time::Timestamp;
use serde_json::json;

fn settings() -> EngineSettings {
    Preset::Seed.settings(200_000)
}

fn engine() -> Engine {
    Engine::new(settings()).unwrap()
}

fn at(minute: i64) -> Timestamp {
    Timestamp::from_unix_ms(1_796_000_000_000 + minute * 60_000)
}

/// An assistant tool call and the user message with its result.
fn tool_pair(n: usize, tool: &str, result_chars: usize, minute: i64) -> [Message; 2] {
    let id = format!("toolu_{n:04}");
    let mut call = Message::new(
        format!("call-{n}"),
        Role::Assistant,
        Content::Blocks(vec![Block::ToolUse {
            id: id.clone(),
            name: tool.into(),
            input: compaction_core::message::Json::from_value(&json!({"file_path": format!("src/f{n}.rs")})),
            extra: Default::default(),
        }]),
    );
    call.timestamp = Some(at(minute));
    let result = Message::new(
        format!("result-{n}"),
        Role::User,
        Content::Blocks(vec![Block::ToolResult {
            tool_use_id: id,
            content: ToolResultContent::Text("r".repeat(result_chars)),
            is_error: None,
            extra: Default::default(),
        }]),
    );
    [call, result]
}

fn append_calls(engine: &mut Engine, range: std::ops::Range<usize>, tool: &str, chars: usize) {
    for n in range {
        for m in tool_pair(n, tool, chars, 0) {
            engine.append(m).unwrap();
        }
    }
}

fn result_text(m: &Message) -> String {
    match &m.content.blocks()[0] {
        Block::ToolResult {
            content: ToolResultContent::Text(t),
            ..
        } => t.clone(),
        other => panic!("not a text tool result: {other:?}"),
    }
}

#[test]
fn r2_2_oversized_results_are_reduced_in_the_view_and_kept_in_the_store() {
    let mut e = engine();
    e.append(Message::user("p", "grep for TODOs")).unwrap();
    append_calls(&mut e, 0..1, "Grep", 50_000);
    let d = e.before_call(None);
    let step = d
        .steps
        .iter()
        .find(|s| s.tier == Tier::BudgetReduction)
        .expect("a reduction step");
    assert_eq!(step.rule, "R2.2");
    assert!(
        step.reason.contains("46000 characters removed"),
        "{}",
        step.reason
    );
    let view_result = e.view().entries()[2].message.clone();
    assert!(result_text(&view_result).contains("\n...[46000 chars removed]...\n"));
    let stored = e.store().get(&"result-0".into()).unwrap();
    assert_eq!(result_text(stored).len(), 50_000, "the store keeps the original");
    // Reported once, not again on the next call.
    assert!(e
        .before_call(None)
        .steps
        .iter()
        .all(|s| s.tier != Tier::BudgetReduction));
}

#[test]
fn r4_3_cache_aware_first_fires_after_50_calls_clearing_30() {
    let mut e = engine();
    e.append(Message::user("p", "read everything")).unwrap();
    append_calls(&mut e, 0..49, "Read", 400);
    let d = e.before_call(None);
    assert!(
        d.steps.iter().all(|s| s.tier != Tier::Microcompact),
        "not before 50"
    );
    assert_eq!(d.context_management, None);

    append_calls(&mut e, 49..50, "Read", 400);
    let d = e.before_call(None);
    let step = d
        .steps
        .iter()
        .find(|s| s.tier == Tier::Microcompact)
        .expect("fires at 50");
    assert_eq!((step.rule, step.owner), ("R4.3", Owner::Server));
    assert_eq!(step.blocks.len(), 30);
    assert_eq!(
        step.cache,
        CacheEffect::ServerInvalidatesFrom {
            from: "result-0".into()
        }
    );
    assert_eq!(step.count_before.tokens - step.count_after.tokens, 30 * 100);
    let edit = serde_json::to_value(d.context_management.as_ref().unwrap()).unwrap();
    assert_eq!(
        edit,
        json!({"edits": [{
            "type": "clear_tool_uses_20250919",
            "trigger": {"type": "input_tokens", "value": 1},
            "keep": {"type": "tool_uses", "value": 20},
            "exclude_tools": [],
            "clear_tool_inputs": false
        }]})
    );
    // The client's copy is intact: it still sends the full results.
    let sent: Vec<&Message> = e.view().sent_messages().collect();
    assert_eq!(result_text(sent[2]).len(), 400);
    assert_eq!(result_text(&e.view().entries()[2].message), "");
    // The server keeps clearing the same 30 until the next firing at 75.
    append_calls(&mut e, 50..60, "Read", 400);
    let d = e.before_call(None);
    assert!(d.steps.iter().all(|s| s.tier != Tier::Microcompact));
    assert_eq!(
        serde_json::to_value(&d.context_management).unwrap()["edits"][0]["keep"]["value"],
        30
    );
    append_calls(&mut e, 60..75, "Read", 400);
    let d = e.before_call(None);
    let step = d
        .steps
        .iter()
        .find(|s| s.tier == Tier::Microcompact)
        .expect("fires again at 75");
    assert_eq!(step.blocks.len(), 25);
    assert_eq!(
        serde_json::to_value(&d.context_management).unwrap()["edits"][0]["keep"]["value"],
        20
    );
}

#[test]
fn r4_1_ineligible_tools_are_excluded_and_never_cleared() {
    let mut e = engine();
    e.append(Message::user("p", "go")).unwrap();
    append_calls(&mut e, 0..5, "TodoWrite", 400);
    append_calls(&mut e, 5..55, "Bash", 400);
    let d = e.before_call(None);
    let edit = serde_json::to_value(&d.context_management).unwrap();
    assert_eq!(edit["edits"][0]["exclude_tools"], json!(["TodoWrite"]));
    for i in 0..5 {
        assert_eq!(result_text(&e.view().entries()[2 + 2 * i].message).len(), 400);
    }
}

#[test]
fn r4_4_time_based_path_clears_with_the_sentinel_after_the_idle_gap_and_r4_5_is_canonical() {
    let mut s = settings();
    s.microcompact.time_keep_recent = 2;
    let mut e = Engine::new(s).unwrap();
    e.append(Message::user("p", "go")).unwrap();
    append_calls(&mut e, 0..5, "Read", 400);
    // 89 minutes idle: cache cold, but not yet the gap.
    let d = e.before_call(Some(&at(89)));
    assert!(d.steps.iter().all(|s| s.tier != Tier::Microcompact));
    let d = e.before_call(Some(&at(91)));
    let step = d
        .steps
        .iter()
        .find(|s| s.tier == Tier::Microcompact)
        .expect("fires after 90 min");
    assert_eq!((step.rule, step.owner), ("R4.4", Owner::Client));
    assert_eq!(step.blocks.len(), 3);
    assert_eq!(d.cleared_by_client, ["toolu_0000", "toolu_0001", "toolu_0002"]);
    let sent: Vec<Message> = e.view().sent_messages().cloned().collect();
    assert_eq!(result_text(&sent[2]), "[content no longer available]");
    assert_eq!(result_text(&sent[8]).len(), 400, "the most recent are kept");
    // Again: nothing changes, byte for byte.
    let d = e.before_call(Some(&at(200)));
    assert!(d.steps.iter().all(|s| s.tier != Tier::Microcompact));
    assert_eq!(e.view().sent_messages().cloned().collect::<Vec<_>>(), sent);
}

#[test]
fn r4_4_newer_client_preset_uses_60_minutes_keep_5_and_its_sentinel() {
    let mut e = Engine::new(Preset::NewerClient.settings(200_000)).unwrap();
    append_calls(&mut e, 0..8, "Read", 400);
    let d = e.before_call(Some(&at(61)));
    let step = d.steps.iter().find(|s| s.tier == Tier::Microcompact).unwrap();
    assert_eq!(step.blocks.len(), 3);
    assert_eq!(
        result_text(&e.view().entries()[1].message),
        "[Old tool result content cleared]"
    );
}

#[test]
fn r5_1_snip_deletes_oldest_whole_turns_until_under_the_line_never_the_current_one() {
    let mut e = engine();
    // Ten turns of ~20,000 tokens each: 200k, over the 167k compact line.
    for t in 0..10 {
        e.append(Message::user(format!("prompt-{t}"), format!("turn {t}")))
            .unwrap();
        e.append(Message::assistant(format!("answer-{t}"), "a".repeat(80_000)))
            .unwrap();
    }
    let d = e.before_call(None);
    let step = d.steps.iter().find(|s| s.tier == Tier::Snip).expect("snips");
    assert_eq!(step.rule, "R5.1");
    assert_eq!(
        step.messages,
        ["prompt-0", "answer-0", "prompt-1", "answer-1"].map(Into::into)
    );
    assert!(d.count.tokens <= e.lines().compact);
    assert_eq!(e.view().len(), 16);
    assert_eq!(e.store().len(), 20, "the store keeps snipped messages");
}

#[test]
fn r5_1_snip_never_splits_a_tool_pair() {
    let mut e = engine();
    e.append(Message::user("p0", "first")).unwrap();
    e.append(Message::assistant("a0", "a".repeat(800_000))).unwrap();
    append_calls(&mut e, 0..1, "Read", 100);
    e.append(Message::user("p1", "second")).unwrap();
    e.append(Message::assistant("a1", "b".repeat(400))).unwrap();
    e.before_call(None);
    let view: Vec<Message> = e.view().messages().cloned().collect();
    compaction_core::groups::pairing_is_legal(&view).unwrap();
    assert_eq!(view[0].uuid, "p1".into());
}

#[test]
fn r1_7_warn_and_blocked_statuses() {
    let mut e = engine();
    e.append(Message::user("p", "x".repeat(4 * 150_000))).unwrap();
    assert_eq!(
        e.before_call(None).status,
        CallStatus::Warn { tokens_left: 17_000 }
    );
    // Usage says 178,000: at or over blocked (177,000). A single turn cannot be snipped.
    let mut reply = Message::assistant("a", "ok");
    reply.usage = Some(Box::new(Usage {
        input_tokens: 1_000,
        cache_read_input_tokens: 177_000,
        ..Usage::default()
    }));
    e.append(reply).unwrap();
    let d = e.before_call(None);
    assert_eq!(d.status, CallStatus::Blocked { over_by: 1_001 });
    assert!(d.steps.iter().any(|s| s.rule == "R1.7"));
}

#[test]
fn r3_4_plan_changes_nothing_and_equals_the_call() {
    let mut e = engine();
    e.append(Message::user("p", "go")).unwrap();
    append_calls(&mut e, 0..50, "Read", 20_000);
    let before: Vec<Message> = e.view().messages().cloned().collect();
    let plan = e.plan(None);
    assert!(plan.steps.iter().any(|s| s.tier == Tier::Microcompact));
    assert_eq!(
        e.view().messages().cloned().collect::<Vec<_>>(),
        before,
        "plan changed the view"
    );
    let applied = e.before_call(None);
    assert_eq!(plan, applied);
}
