//! Tier 3, context collapse (SPEC R6) through the public engine API.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test helpers may fail loudly

use compaction_core::compact::{Purpose, SummaryAnswer};
use compaction_core::engine::{CallStatus, Engine};
use compaction_core::groups::pairing_is_legal;
use compaction_core::message::{Content, Message};
use compaction_core::settings::{EngineSettings, Preset};
use compaction_core::step::Tier;

fn settings() -> EngineSettings {
    let mut s = Preset::Seed.settings(200_000);
    s.snip = false;
    s
}

/// `turns` turns of about `tokens` tokens each.
fn session(e: &mut Engine, turns: usize, tokens: usize) {
    for t in 1..=turns {
        e.append(Message::user(format!("p{t}"), format!("step {t}")))
            .unwrap();
        e.append(Message::assistant(format!("a{t}"), "w".repeat(tokens * 4 - 8)))
            .unwrap();
    }
}

#[test]
fn r6_1_non_blocking_from_90_percent_one_request_per_segment() {
    let mut e = Engine::new(settings()).unwrap();
    session(&mut e, 30, 5_500); // 165,000: over 162,000 (90%), under 171,000 (95%)
    let d = e.before_call(None);
    assert_eq!(
        d.status,
        CallStatus::Warn { tokens_left: 2_000 },
        "non-blocking: the call proceeds"
    );
    let step = d.steps.iter().find(|s| s.tier == Tier::Collapse).unwrap();
    assert_eq!((step.rule, step.model_calls), ("R6.1", 2));
    // 30 turns, the 10 most recent kept: 20 eligible, two segments of 8;
    // the last 4 are too few for a segment.
    let purposes: Vec<_> = d.collapse.iter().map(|r| r.purpose).collect();
    assert_eq!(
        purposes,
        [
            Purpose::CollapseSegment {
                first_turn: 1,
                last_turn: 8
            },
            Purpose::CollapseSegment {
                first_turn: 9,
                last_turn: 16
            }
        ]
    );
    assert_eq!(d.collapse[0].messages.len(), 16);
    assert!(d.compaction.is_none(), "Tier 4 waits while Tier 3 can still help");

    // The first answer switches the view at once; the second stays pending.
    let before = e.count().tokens;
    let steps = e
        .answer_collapse(
            d.collapse[0].id,
            SummaryAnswer::Text("set up the repo and the CI".into()),
        )
        .unwrap();
    assert!(steps[0].count_after.tokens < before);
    let first = e.view().entries()[0].message.clone();
    assert_eq!(
        first.content,
        Content::Text("Turns 1–8: set up the repo and the CI".into())
    );
    let d2 = e.before_call(None);
    assert_eq!(d2.collapse.len(), 1);
    assert_eq!(d2.collapse[0].id, d.collapse[1].id, "not asked again");
    pairing_is_legal(&e.view().sent_messages().cloned().collect::<Vec<_>>()).unwrap();
}

#[test]
fn r6_1_blocking_from_95_percent() {
    let mut e = Engine::new(settings()).unwrap();
    session(&mut e, 30, 5_800); // 174,000: over 171,000 (95%)
    let d = e.before_call(None);
    assert_eq!(d.status, CallStatus::WaitForCollapse { pending: 2 });
    for r in &d.collapse {
        e.answer_collapse_offline(r.id).unwrap();
    }
    let d = e.before_call(None);
    assert!(d.collapse.is_empty());
    assert_eq!(d.status, CallStatus::Proceed);
    assert_eq!(e.view().len(), 2 + 14 * 2);
}

#[test]
fn r6_2_a_collapse_is_a_projection_that_expand_rolls_back() {
    let mut e = Engine::new(settings()).unwrap();
    session(&mut e, 30, 5_500);
    let before: Vec<Message> = e.view().sent_messages().cloned().collect();
    let d = e.before_call(None);
    e.answer_collapse_offline(d.collapse[0].id).unwrap();
    let collapsed = e.view().entries()[0].message.uuid.clone();
    assert_eq!(e.store().len(), 60, "the originals stay");
    e.expand(&collapsed).unwrap();
    assert_eq!(e.view().sent_messages().cloned().collect::<Vec<_>>(), before);
}

#[test]
fn r6_1_the_tier_can_be_switched_off() {
    let mut s = settings();
    s.collapse.enabled = false;
    let mut e = Engine::new(s).unwrap();
    session(&mut e, 30, 5_800);
    let d = e.before_call(None);
    assert!(d.collapse.is_empty());
    assert!(d.compaction.is_some(), "straight to Tier 4");
}

#[test]
fn r6_1_unusable_answers_drop_the_request_and_change_nothing() {
    let mut e = Engine::new(settings()).unwrap();
    session(&mut e, 30, 5_500);
    let d = e.before_call(None);
    let before: Vec<Message> = e.view().sent_messages().cloned().collect();
    let steps = e
        .answer_collapse(d.collapse[0].id, SummaryAnswer::Text("  ".into()))
        .unwrap();
    assert!(steps[0].reason.contains("dropped"));
    let steps = e
        .answer_collapse(d.collapse[1].id, SummaryAnswer::ModelUnavailable)
        .unwrap();
    assert!(steps[0].reason.contains("dropped"));
    assert_eq!(e.view().sent_messages().cloned().collect::<Vec<_>>(), before);
    assert!(e
        .answer_collapse(d.collapse[1].id, SummaryAnswer::ModelUnavailable)
        .is_err());
}
