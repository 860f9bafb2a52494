//! Property tests of the cascade's invariants over generated histories.
//! Cases: 1,000 by default; set `PROPTEST_CASES=100000` for a long run.
//! Failing cases are saved under `tests/it/properties.proptest-regressions`
//! and replayed first on every run (commit that file).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test helpers may fail loudly

use crate::common::{files, split, Offline, Stage};
use compaction_core::engine::Engine;
use compaction_core::engine::Preset;
use compaction_core::engine::{drive, Answer};
use compaction_core::groups::pairing_is_legal;
use compaction_core::message::{Block, Content, Message, Role, ToolResultContent, Usage};
use compaction_core::reduction::{reduce_content, ReductionSettings};
use compaction_core::step::Tier;
use compaction_core::time::Timestamp;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use serde_json::json;

/// One event of a generated session.
#[derive(Debug, Clone)]
enum Event {
    Prompt(String),
    Answer(String, Option<u64>),
    Tools(Vec<(String, String)>), // (tool name, result text), one assistant message, one user message
    Call(i64),                    // a before_call at this minute
    Overflow,                     // the API answers 413 (R8.1)
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z ]{0,40}",
        "[日😀é a-z]{0,30}",
        (1usize..12_000).prop_map(|n| "x".repeat(n)),
        (1usize..4_000).prop_map(|n| "日😀".repeat(n)),
    ]
}

fn event() -> impl Strategy<Value = Event> {
    prop_oneof![
        2 => text().prop_map(Event::Prompt),
        2 => (text(), prop::option::of(1_000u64..400_000)).prop_map(|(t, u)| Event::Answer(t, u)),
        4 => prop::collection::vec((prop::sample::select(vec!["Read", "Bash", "Grep", "TodoWrite", "Task"]), text()), 1..4)
            .prop_map(|calls| Event::Tools(calls.into_iter().map(|(n, t)| (n.to_owned(), t)).collect())),
        1 => (0i64..400).prop_map(Event::Call),
        1 => Just(Event::Overflow),
    ]
}

fn messages(events: &[Event]) -> Vec<Message> {
    let mut out = Vec::new();
    let mut n = 0;
    for (i, e) in events.iter().enumerate() {
        let ts = Timestamp::from_unix_ms(1_796_000_000_000 + i as i64 * 60_000);
        match e {
            Event::Prompt(t) => out.push(Message::user(format!("u{i}"), t.clone())),
            Event::Answer(t, usage) => {
                let mut m = Message::assistant(format!("a{i}"), t.clone());
                m.timestamp = Some(ts);
                m.usage = usage.map(|u| {
                    Box::new(Usage {
                        input_tokens: u,
                        ..Usage::default()
                    })
                });
                out.push(m);
            }
            Event::Tools(calls) => {
                let mut uses = Vec::new();
                let mut results = Vec::new();
                for (name, result) in calls {
                    n += 1;
                    let id = format!("toolu_{n}");
                    uses.push(Block::ToolUse {
                        id: id.clone(),
                        name: name.clone(),
                        input: compaction_core::message::Json::from_value(&json!({"n": n})),
                        extra: Default::default(),
                    });
                    results.push(Block::ToolResult {
                        tool_use_id: id,
                        content: ToolResultContent::Text(result.clone()),
                        is_error: None,
                        extra: Default::default(),
                    });
                }
                let mut call = Message::new(format!("c{i}"), Role::Assistant, Content::Blocks(uses));
                call.timestamp = Some(ts);
                out.push(call);
                out.push(Message::new(
                    format!("r{i}"),
                    Role::User,
                    Content::Blocks(results),
                ));
            }
            Event::Call(_) | Event::Overflow => {}
        }
    }
    out
}

/// Runs a session: appends, and calls before_call at each `Call` event.
/// Returns the engine and every decision's count before/after per step.
fn run(events: &[Event], window: u64) -> (Engine, Vec<compaction_core::engine::Decision>) {
    let mut settings = Preset::Seed.settings(window);
    settings.microcompact.first_after = 6;
    settings.microcompact.every = 3;
    settings.microcompact.keep_recent = 2;
    settings.microcompact.time_keep_recent = 2;
    let mut engine = Engine::new(settings).unwrap();
    let all = messages(events);
    let mut next = 0;
    let mut decisions = Vec::new();
    for (i, e) in events.iter().enumerate() {
        // Append what this event produced.
        while next < all.len() && message_event(&all[next]) <= i {
            engine.append(all[next].clone()).unwrap();
            next += 1;
        }
        if let Event::Call(minute) = e {
            let now = Timestamp::from_unix_ms(1_796_000_000_000 + (i as i64 + minute) * 60_000);
            let decision = engine.before_call(Some(&now));
            // Every request answered offline through the driver, so Tiers
            // 3 and 4 (and the precompute) run too.
            drive(&mut engine, &mut Offline).unwrap();
            decisions.push(decision);
        }
        if let Event::Overflow = e {
            // Tier 5, every stage answered offline.
            engine.prompt_too_long();
            drive(&mut engine, &mut Offline).unwrap();
        }
    }
    decisions.push(engine.before_call(None));
    (engine, decisions)
}

fn message_event(m: &Message) -> usize {
    m.uuid.as_str()[1..].parse().unwrap()
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|c| c.parse().ok())
            .unwrap_or(1_000),
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    /// Tool causality: every view the cascade leaves is pairing-legal and
    /// does not start with a tool result.
    #[test]
    fn pairing_is_always_legal(events in prop::collection::vec(event(), 1..40), window in 60_000u64..400_000) {
        let (engine, _) = run(&events, window);
        let view: Vec<Message> = engine.view().messages().cloned().collect();
        prop_assert!(pairing_is_legal(&view).is_ok(), "{:?}", pairing_is_legal(&view));
        let sent: Vec<Message> = engine.view().sent_messages().cloned().collect();
        prop_assert!(pairing_is_legal(&sent).is_ok());
    }

    /// The view's running estimate (and its images' and documents' part)
    /// is the sum of its entries' own, each what the estimator says of its
    /// message now: no change to the view leaves a stale figure behind (a
    /// resumed view, estimated from scratch, counts the same).
    #[test]
    fn the_running_estimate_is_the_entries_estimate(events in prop::collection::vec(event(), 1..40), window in 60_000u64..400_000) {
        let (engine, _) = run(&events, window);
        let view = engine.view();
        let estimator = view.estimator();
        for (i, e) in view.entries().iter().enumerate() {
            prop_assert_eq!(e.tokens, estimator.message(&e.message), "entry {} ({})", i, e.message.uuid.as_str());
            prop_assert_eq!(e.media, estimator.media(&e.message), "entry {}", i);
        }
        let sum: u64 = view.entries().iter().map(|e| e.tokens).sum();
        prop_assert_eq!(view.estimate(), sum);
    }

    /// Budget reduction and tiers 1–2 never raise the count.
    #[test]
    fn cheap_tiers_never_raise_the_count(events in prop::collection::vec(event(), 1..40), window in 60_000u64..400_000) {
        let (_, decisions) = run(&events, window);
        for d in decisions {
            for s in d.steps.iter().filter(|s| matches!(s.tier, Tier::BudgetReduction | Tier::Microcompact | Tier::Snip)) {
                prop_assert!(s.count_after.tokens <= s.count_before.tokens, "{s:?}");
            }
        }
    }

    /// The store never loses or alters a message.
    #[test]
    fn the_store_keeps_every_message_unchanged(events in prop::collection::vec(event(), 1..40), window in 60_000u64..400_000) {
        let (engine, _) = run(&events, window);
        let expected = messages(&events);
        let stored: Vec<Message> = engine.store().messages().iter().map(|m| (**m).clone()).collect();
        prop_assert_eq!(stored, expected);
    }

    /// User and assistant messages are never truncated individually: every
    /// view entry that came from the store has the stored text blocks.
    #[test]
    fn user_and_assistant_text_is_never_truncated(events in prop::collection::vec(event(), 1..40), window in 60_000u64..400_000) {
        let (engine, _) = run(&events, window);
        for entry in engine.view().entries().iter().filter(|e| e.source == compaction_core::view::Source::Stored) {
            let stored = engine.store().get(&entry.message.uuid).unwrap();
            if let (Content::Text(a), Content::Text(b)) = (&entry.message.content, &stored.content) {
                prop_assert_eq!(a, b);
            }
        }
    }

    /// Plan, then apply, gives the same decision; the plan changes nothing.
    #[test]
    fn plan_then_apply_equals_apply(events in prop::collection::vec(event(), 1..30), window in 60_000u64..400_000) {
        let (mut engine, _) = run(&events, window);
        let now = Timestamp::from_unix_ms(1_796_000_000_000 + 500 * 60_000);
        let before: Vec<Message> = engine.view().sent_messages().cloned().collect();
        let plan = engine.plan(Some(&now));
        prop_assert_eq!(engine.view().sent_messages().cloned().collect::<Vec<_>>(), before);
        prop_assert_eq!(plan, engine.before_call(Some(&now)));
    }

    /// R2.3: reduction cuts on character boundaries and keeps exactly head
    /// and tail characters; a reduced text is never reduced to something
    /// else by the engine (it is settled), and reducing the original again
    /// gives the same bytes.
    #[test]
    fn reduction_is_character_safe_and_deterministic(t in text()) {
        let s = ReductionSettings::default();
        let content = ToolResultContent::Text(t.clone());
        match reduce_content(&content, &s) {
            None => {
                let n = t.chars().count();
                prop_assert!(n <= s.max_chars || n - s.head_chars - s.tail_chars <= 30, "{n} characters not reduced");
            }
            Some((ToolResultContent::Text(out), removed)) => {
                let chars: Vec<char> = t.chars().collect();
                let head: String = chars[..s.head_chars].iter().collect();
                let tail: String = chars[chars.len() - s.tail_chars..].iter().collect();
                prop_assert_eq!(removed, chars.len() - s.head_chars - s.tail_chars);
                prop_assert_eq!(out.clone(), format!("{head}\n...[{removed} chars removed]...\n{tail}"));
                prop_assert_eq!(reduce_content(&content, &s).map(|(c, _)| c), Some(ToolResultContent::Text(out)));
            }
            Some(other) => prop_assert!(false, "text became {other:?}"),
        }
    }
}

/// A host's possible answers, for the compaction property.
#[derive(Debug, Clone)]
enum Reply {
    Offline,
    Unavailable,
    TooLong,
    Empty,
}

fn answer() -> impl Strategy<Value = Reply> {
    prop_oneof![
        Just(Reply::Offline),
        Just(Reply::Unavailable),
        Just(Reply::TooLong),
        Just(Reply::Empty)
    ]
}

proptest! {
    #![proptest_config(config())]

    /// A manual compaction driven by any sequence of answers either fails
    /// and leaves the view byte-identical, or ends with a pairing-legal view
    /// that starts with its summary, and expanding that summary restores
    /// the view before it; the store never changes.
    #[test]
    fn compaction_is_all_or_nothing_and_legal(
        events in prop::collection::vec(event(), 1..30),
        answers in prop::collection::vec(answer(), 1..6),
        block in any::<bool>(),
    ) {
        use compaction_core::compact::{CompactOptions, HookOutcome};
        use compaction_core::engine::Request;
        let (mut engine, _) = run(&events, 400_000);
        let before: Vec<Message> = engine.view().sent_messages().cloned().collect();
        let stored = engine.store().len();
        let hook = HookOutcome { block: block.then(|| "no".to_owned()), added_instructions: vec![] };
        let out = engine.compact(CompactOptions { instructions: None });
        let Some(Request::PreCompact(asked)) = out.requests.first() else {
            return Err(TestCaseError::fail("every compaction asks the PreCompact hooks first"));
        };
        let (_, mut progress) = split(engine.answer(asked.id, Answer::Hook(hook)).unwrap());
        let mut answers = answers.into_iter();
        let mut summary = None;
        let done = loop {
            progress = match progress {
                Stage::NeedsSummary { request } => match answers.next().unwrap_or(Reply::Offline) {
                    Reply::Offline => engine.answer(request.id, Answer::Offline).map(split).unwrap().1,
                    Reply::Unavailable => engine.answer(request.id, Answer::ModelUnavailable).map(split).unwrap().1,
                    Reply::TooLong => engine.answer(request.id, Answer::PromptTooLong).map(split).unwrap().1,
                    Reply::Empty => engine.answer(request.id, Answer::text(" ")).map(split).unwrap().1,
                },
                Stage::NeedsFiles { request } => engine.answer(request.id, files(&[])).map(split).unwrap().1,
                Stage::Compacted { result } => {
                    summary = Some(result.summary.uuid.clone());
                    break true;
                }
                Stage::Failed { .. } => break false,
                Stage::NeedsCollapse { .. } => {
                    return Err(TestCaseError::fail("a manual compaction asks for no segment"))
                }
            };
        };
        let after: Vec<Message> = engine.view().sent_messages().cloned().collect();
        if done {
            prop_assert!(pairing_is_legal(&after).is_ok(), "{:?}", pairing_is_legal(&after));
            let starts_with_summary =
                matches!(engine.view().entries()[0].source, compaction_core::view::Source::Summary { .. });
            prop_assert!(starts_with_summary, "the new view starts with its summary");
            // Expand (extension) gives the previous view back, exactly.
            engine.expand(summary.as_ref().unwrap()).unwrap();
            prop_assert_eq!(engine.view().sent_messages().cloned().collect::<Vec<_>>(), before);
        } else {
            prop_assert_eq!(after, before);
        }
        prop_assert_eq!(engine.store().len(), stored);
    }
}
