//! Our extensions (SPEC "(extension)"; ANCHORS.md §3): pinned content and
//! lineage with expand.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test helpers may fail loudly

use crate::common::{files, split, Allow, Stage};
use compaction_core::compact::CompactOptions;
use compaction_core::engine::Answer;
use compaction_core::engine::Engine;
use compaction_core::engine::Preset;
use compaction_core::groups::pairing_is_legal;
use compaction_core::message::{Block, Content, Message, Role, ToolResultContent};
use compaction_core::step::Tier;
use compaction_core::time::Timestamp;
use compaction_core::Error;
use serde_json::json;

fn tool_pair(n: usize, chars: usize) -> [Message; 2] {
    let id = format!("toolu_{n}");
    let mut call = Message::new(
        format!("call-{n}"),
        Role::Assistant,
        Content::Blocks(vec![Block::ToolUse {
            id: id.clone(),
            name: "Read".into(),
            input: compaction_core::message::Json::from_value(&json!({"file_path": format!("f{n}.rs")})),
            extra: Default::default(),
        }]),
    );
    call.timestamp = Some(Timestamp::from_unix_ms(0));
    let result = Message::new(
        format!("result-{n}"),
        Role::User,
        Content::Blocks(vec![Block::ToolResult {
            tool_use_id: id,
            content: ToolResultContent::Text("r".repeat(chars)),
            is_error: None,
            extra: Default::default(),
        }]),
    );
    [call, result]
}

fn sent(e: &Engine) -> Vec<Message> {
    e.view().sent_messages().cloned().collect()
}

fn compact_offline(e: &mut Engine) -> Stage {
    let (_, p) = split(e.compact(CompactOptions::default()).allowed(e));
    let Stage::NeedsSummary { request } = p else {
        panic!("{p:?}")
    };
    let (_, mut p) = e.answer(request.id, Answer::Offline).map(split).unwrap();
    if let Stage::NeedsFiles { request } = &p {
        p = e.answer(request.id, files(&[])).map(split).unwrap().1;
    }
    p
}

#[test]
fn pinning_an_unknown_message_is_an_error() {
    let mut e = Engine::new(Preset::Seed.settings(200_000)).unwrap();
    assert_eq!(
        e.pin(&"nope".into()).unwrap_err(),
        Error::UnknownMessage { uuid: "nope".into() }
    );
}

#[test]
fn a_turn_holding_a_pinned_message_is_never_snipped() {
    let mut e = Engine::new(Preset::Seed.settings(200_000)).unwrap();
    for t in 0..10 {
        e.append(Message::user(format!("p{t}"), format!("turn {t}")))
            .unwrap();
        e.append(Message::assistant(format!("a{t}"), "a".repeat(80_000)))
            .unwrap();
    }
    e.pin(&"p0".into()).unwrap();
    let d = e.before_call(None);
    let snip = d.steps.iter().find(|s| s.tier == Tier::Snip).unwrap();
    assert!(!snip.messages.contains(&"p0".into()));
    assert_eq!(snip.messages[0], "p1".into(), "the next oldest turn goes instead");
    assert_eq!(e.view().entries()[0].message.uuid, "p0".into());
    pairing_is_legal(&sent(&e)).unwrap();
}

#[test]
fn pinned_results_are_never_cleared_on_either_path() {
    let mut s = Preset::Seed.settings(200_000);
    s.microcompact.time_keep_recent = 0;
    let mut e = Engine::new(s.clone()).unwrap();
    e.append(Message::user("p", "go")).unwrap();
    for n in 0..4 {
        for m in tool_pair(n, 400) {
            e.append(m).unwrap();
        }
    }
    e.pin(&"result-1".into()).unwrap();
    e.before_call(Some(&Timestamp::from_unix_ms(100 * 60_000)));
    let texts: Vec<String> = sent(&e)
        .iter()
        .filter_map(|m| match m.content.blocks().first() {
            Some(Block::ToolResult {
                content: ToolResultContent::Text(t),
                ..
            }) => Some(t.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(texts[1].len(), 400, "the pinned result stays");
    assert!(texts
        .iter()
        .enumerate()
        .all(|(i, t)| i == 1 || t == "[content no longer available]"));

    // Cache-aware: the server clears the oldest by count, so a pin stops the range.
    let mut e = Engine::new(s).unwrap();
    e.append(Message::user("p", "go")).unwrap();
    for n in 0..50 {
        for m in tool_pair(n, 400) {
            e.append(m).unwrap();
        }
    }
    e.pin(&"call-10".into()).unwrap();
    let d = e.before_call(None);
    let step = d.steps.iter().find(|s| s.tier == Tier::Microcompact).unwrap();
    assert_eq!(
        step.blocks.len(),
        10,
        "results 0–9 only: result 10 answers a pinned call"
    );
    assert_eq!(
        serde_json::to_value(&d.context_management).unwrap()["edits"][0]["keep"]["value"],
        40
    );
}

#[test]
fn pinned_messages_follow_the_summary_verbatim_with_their_group() {
    let mut e = Engine::new(Preset::Seed.settings(200_000)).unwrap();
    e.append(Message::user("p", "first")).unwrap();
    for m in tool_pair(1, 100) {
        e.append(m).unwrap();
    }
    e.append(Message::user("q", "second")).unwrap();
    e.append(Message::assistant("a", "done")).unwrap();
    e.pin(&"result-1".into()).unwrap();
    let Stage::Compacted { .. } = compact_offline(&mut e) else {
        panic!()
    };
    let uuids: Vec<String> = sent(&e).iter().map(|m| m.uuid.0.clone()).collect();
    assert_eq!(&uuids[1..], ["call-1", "result-1", "a"]);
    pairing_is_legal(&sent(&e)).unwrap();
}

#[test]
fn expand_restores_the_view_a_compaction_replaced() {
    let mut e = Engine::new(Preset::Seed.settings(200_000)).unwrap();
    e.append(Message::user("p", "first")).unwrap();
    for n in 0..3 {
        for m in tool_pair(n, 9_000) {
            e.append(m).unwrap();
        }
    }
    e.append(Message::assistant("a", "done")).unwrap();
    let before = sent(&e);
    let Stage::Compacted { result } = compact_offline(&mut e) else {
        panic!()
    };
    e.append(Message::user("later", "and then?")).unwrap();
    let step = e.expand(&result.summary.uuid).unwrap();
    assert_eq!(step.messages.len(), before.len());
    let mut expected = before;
    expected.push(Message::user("later", "and then?"));
    assert_eq!(
        sent(&e),
        expected,
        "the reduced results come back as the view had them"
    );
    assert!(
        e.expand(&result.summary.uuid).is_err(),
        "the summary is gone from the view"
    );
}
