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
