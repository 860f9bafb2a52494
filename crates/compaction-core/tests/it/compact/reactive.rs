//! The reactive tier (SPEC R8) through the public engine API: the
//! emergency compaction after a prompt-too-long, once per episode.

use super::{needs_summary, session, settings};
use crate::common::{files, split, Allow, Stage};
use compaction_core::engine::{Answer, Engine};
use compaction_core::message::{Block, Content, Message, Role, ToolResultContent};
use serde_json::json;

#[test]
fn r8_reactive_compacts_once_per_turn() {
    let mut e = Engine::new(settings()).unwrap();
    session(&mut e);
    let (steps, p) = split(e.prompt_too_long().allowed(&mut e));
    assert!(steps
        .iter()
        .all(|s| s.tier == compaction_core::step::Tier::Reactive));
    let (_, p) = e.answer(needs_summary(&p), Answer::Offline).map(split).unwrap();
    let Stage::NeedsFiles { request } = p else {
        panic!()
    };
    e.answer(request.id, files(&[])).map(split).unwrap();
    let (_, p) = split(e.prompt_too_long().allowed(&mut e));
    assert!(matches!(p, Stage::Failed { reason } if reason.contains("cannot continue")));
    // A new turn allows it again.
    e.append(Message::user("again", "continue")).unwrap();
    e.append(Message::assistant("ok", "sure")).unwrap();
    let (_, p) = split(e.prompt_too_long().allowed(&mut e));
    assert!(matches!(p, Stage::NeedsSummary { .. }));
}

#[test]
fn r8_1_an_episode_ends_with_the_retried_calls_reply_not_with_the_users_prompt() {
    // An agent's long run under one prompt: a 413, the emergency
    // compaction, the retry gets through (its reply and tool result are
    // appended), and a later call overflows again: a new episode, which
    // compacts, not the end of the session.
    let mut e = Engine::new(settings()).unwrap();
    session(&mut e);
    let (_, p) = split(e.prompt_too_long().allowed(&mut e));
    let (_, p) = e.answer(needs_summary(&p), Answer::Offline).map(split).unwrap();
    if let Stage::NeedsFiles { request } = p {
        e.answer(request.id, files(&[])).map(split).unwrap();
    }
    e.append(Message::new(
        "after-1",
        Role::Assistant,
        Content::Blocks(vec![Block::ToolUse {
            id: "toolu_after".into(),
            name: "Bash".into(),
            input: compaction_core::message::Json::from_value(&json!({"command": "ls"})),
            extra: Default::default(),
        }]),
    ))
    .unwrap();
    e.append(Message::new(
        "after-2",
        Role::User,
        Content::Blocks(vec![Block::ToolResult {
            tool_use_id: "toolu_after".into(),
            content: ToolResultContent::Text("a.rs".into()),
            is_error: None,
            extra: Default::default(),
        }]),
    ))
    .unwrap();
    let (_, p) = split(e.prompt_too_long().allowed(&mut e));
    assert!(matches!(p, Stage::NeedsSummary { .. }), "{p:?}");
}
