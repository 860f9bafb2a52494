//! Tier 3, context collapse (SPEC R6) through the public engine API.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test helpers may fail loudly

use crate::common::{split, Allow, Stage};
use compaction_core::compact::Purpose;
use compaction_core::engine::Answer;
use compaction_core::engine::{CallStatus, Engine};
use compaction_core::engine::{EngineSettings, Preset};
use compaction_core::groups::pairing_is_legal;
use compaction_core::message::{Content, Message};
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

fn segments(turns: &[(usize, usize)]) -> Vec<Purpose> {
    turns
        .iter()
        .map(|&(first_turn, last_turn)| Purpose::CollapseSegment {
            first_turn,
            last_turn,
        })
        .collect()
}

#[test]
fn r6_1_non_blocking_over_the_compact_line_below_95_percent_one_request_per_segment() {
    let mut e = Engine::new(settings()).unwrap();
    session(&mut e, 30, 5_600); // 168,000: over the compact line (167,000), under 171,000 (95%)
    let d = e.before_call(None);
    assert_eq!(
        d.status,
        CallStatus::CompactionDue { over_by: 1_000 },
        "non-blocking: the call proceeds"
    );
    let step = d.steps.iter().find(|s| s.tier == Tier::Collapse).unwrap();
    assert_eq!((step.rule, step.model_calls), ("R6.1", 2));
    // 30 turns, the 10 most recent kept: 20 eligible, two segments of 8;
    // the last 4 are too few for a segment.
    let purposes: Vec<_> = crate::common::segments(&d.requests)
        .iter()
        .map(|r| r.purpose)
        .collect();
    assert_eq!(purposes, segments(&[(1, 8), (9, 16)]));
    assert_eq!(crate::common::segments(&d.requests)[0].messages.len(), 16);
    assert!(d.compaction.is_none(), "Tier 4 waits while Tier 3 can still help");

    // The first answer switches the view at once; the second stays pending.
    let before = e.count().tokens;
    let steps = e
        .answer(
            crate::common::segments(&d.requests)[0].id,
            Answer::text("set up the repo and the CI"),
        )
        .map(|o| o.steps)
        .unwrap();
    assert!(steps[0].count_after.tokens < before);
    let first = e.view().entries()[0].message.clone();
    assert_eq!(
        first.content,
        Content::Text("Turns 1–8: set up the repo and the CI".into())
    );
    let d2 = e.before_call(None);
    assert_eq!(crate::common::segments(&d2.requests).len(), 1);
    assert_eq!(
        crate::common::segments(&d2.requests)[0].id,
        crate::common::segments(&d.requests)[1].id,
        "not asked again"
    );
    pairing_is_legal(&e.view().sent_messages().cloned().collect::<Vec<_>>()).unwrap();
}

#[test]
fn r6_1_blocking_from_95_percent() {
    let mut e = Engine::new(settings()).unwrap();
    session(&mut e, 30, 5_800); // 174,000: over 171,000 (95%)
    let d = e.before_call(None);
    assert_eq!(d.status, CallStatus::WaitForCollapse { pending: 2 });
    for r in &crate::common::segments(&d.requests) {
        e.answer(r.id, Answer::Offline).map(|o| o.steps).unwrap();
    }
    let d = e.before_call(None);
    assert!(crate::common::segments(&d.requests).is_empty());
    assert_eq!(d.status, CallStatus::Proceed);
    assert_eq!(e.view().len(), 2 + 14 * 2);
}

#[test]
fn r6_2_a_collapse_is_a_projection_that_expand_rolls_back() {
    let mut e = Engine::new(settings()).unwrap();
    session(&mut e, 30, 5_600);
    let before: Vec<Message> = e.view().sent_messages().cloned().collect();
    let d = e.before_call(None);
    e.answer(crate::common::segments(&d.requests)[0].id, Answer::Offline)
        .map(|o| o.steps)
        .unwrap();
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
    assert!(crate::common::segments(&d.requests).is_empty());
    assert!(d.compaction.is_some(), "straight to Tier 4");
}

#[test]
fn r6_1_unusable_answers_drop_the_request_and_change_nothing() {
    let mut e = Engine::new(settings()).unwrap();
    session(&mut e, 30, 5_600);
    let d = e.before_call(None);
    let before: Vec<Message> = e.view().sent_messages().cloned().collect();
    let steps = e
        .answer(crate::common::segments(&d.requests)[0].id, Answer::text("  "))
        .map(|o| o.steps)
        .unwrap();
    assert!(steps[0].reason.contains("dropped"));
    let steps = e
        .answer(
            crate::common::segments(&d.requests)[1].id,
            Answer::ModelUnavailable,
        )
        .map(|o| o.steps)
        .unwrap();
    assert!(steps[0].reason.contains("dropped"));
    assert_eq!(e.view().sent_messages().cloned().collect::<Vec<_>>(), before);
    assert!(e
        .answer(
            crate::common::segments(&d.requests)[1].id,
            Answer::ModelUnavailable
        )
        .map(|o| o.steps)
        .is_err());
}

#[test]
fn r8_1_a_413_first_collapses_every_segment_whatever_the_line_then_compacts_then_ends() {
    let mut e = Engine::new(settings()).unwrap();
    session(&mut e, 30, 1_000); // 30,000 tokens: far under every line
    let d = e.before_call(None);
    assert!(
        crate::common::segments(&d.requests).is_empty(),
        "under 90%: Tier 3 is idle"
    );

    // 1st 413: collapse overflow recovery, regardless of the line.
    let (steps, p) = split(e.prompt_too_long().allowed(&mut e));
    assert_eq!((steps[0].tier, steps[0].rule), (Tier::Reactive, "R8.1"));
    let Stage::NeedsCollapse { requests } = p else {
        panic!("expected collapse recovery, got {p:?}")
    };
    let turns: Vec<_> = requests.iter().map(|r| r.purpose).collect();
    assert_eq!(turns, segments(&[(1, 8), (9, 16)]));
    let before = e.count().tokens;
    for r in &requests {
        e.answer(r.id, Answer::Offline).map(|o| o.steps).unwrap();
    }
    assert!(e.count().tokens < before, "the collapses shrank the view");
    pairing_is_legal(&e.view().sent_messages().cloned().collect::<Vec<_>>()).unwrap();

    // 2nd 413 in the same turn: the emergency compaction.
    let (steps, p) = split(e.prompt_too_long().allowed(&mut e));
    assert!(steps.iter().all(|s| s.tier == Tier::Reactive));
    let Stage::NeedsSummary { request } = p else {
        panic!("expected the emergency compaction, got {p:?}")
    };
    let (_, p) = e.answer(request.id, Answer::Offline).map(split).unwrap();
    assert!(
        matches!(p, Stage::Compacted { .. } | Stage::NeedsFiles { .. }),
        "{p:?}"
    );

    // 3rd: the session cannot continue.
    let (_, p) = split(e.prompt_too_long().allowed(&mut e));
    assert!(matches!(p, Stage::Failed { reason } if reason.contains("cannot continue")));

    // A new turn starts over with recovery when there is something to collapse.
    e.append(Message::user("next", "go on")).unwrap();
    let (_, p) = split(e.prompt_too_long().allowed(&mut e));
    assert!(!matches!(p, Stage::Failed { .. }), "{p:?}");
}

#[test]
fn r8_1_with_nothing_to_collapse_or_tier_3_off_the_413_compacts_at_once() {
    for off in [false, true] {
        let mut s = settings();
        s.collapse.enabled = !off;
        let mut e = Engine::new(s).unwrap();
        // 30 turns with Tier 3 off; 6 turns (all recent) with it on.
        session(&mut e, if off { 30 } else { 6 }, 1_000);
        let (_, p) = split(e.prompt_too_long().allowed(&mut e));
        assert!(matches!(p, Stage::NeedsSummary { .. }), "off={off}: {p:?}");
    }
}

#[test]
fn r8_1_a_413_while_segments_are_pending_asks_for_those_again() {
    let mut e = Engine::new(settings()).unwrap();
    session(&mut e, 30, 5_600); // over 90%: two segments pending
    let d = e.before_call(None);
    assert_eq!(crate::common::segments(&d.requests).len(), 2);
    let (_, p) = split(e.prompt_too_long().allowed(&mut e));
    let Stage::NeedsCollapse { requests } = p else {
        panic!("{p:?}")
    };
    let ids: Vec<u64> = requests.iter().map(|r| r.id).collect();
    assert_eq!(
        ids,
        crate::common::segments(&d.requests)
            .iter()
            .map(|r| r.id)
            .collect::<Vec<_>>()
    );
}

#[test]
fn r8_1_segments_asked_for_by_a_413_whose_messages_snip_deleted_are_dropped_and_tier_4_runs() {
    let mut e = Engine::new(Preset::Seed.settings(200_000)).unwrap();
    session(&mut e, 30, 1_000);
    let (_, p) = split(e.prompt_too_long().allowed(&mut e));
    assert!(matches!(p, Stage::NeedsCollapse { .. }), "{p:?}");
    // Before the answers come, a turn too big for the compact line: snip
    // deletes the oldest turns, which the pending segments summarise.
    e.append(Message::user("big", "paste")).unwrap();
    e.append(Message::assistant("huge", "w".repeat(170_000 * 4)))
        .unwrap();
    let d = e.before_call(None);
    assert!(d.steps.iter().any(|s| s.tier == Tier::Snip), "{:#?}", d.steps);
    assert!(
        d.steps.iter().any(|s| s.reason.contains("no longer asked for")),
        "{:#?}",
        d.steps
    );
    // Over the line, the engine is never left asking for nothing.
    assert!(d.count.tokens > d.lines.compact);
    assert!(
        !crate::common::segments(&d.requests).is_empty() || d.compaction.is_some(),
        "{:#?}",
        d.steps
    );
    for r in crate::common::segments(&d.requests) {
        assert!(r.messages.len() > 1);
    }
}

/// One R8.1 episode as the steps tell it: recovery, then the emergency
/// compaction saying why (refused again after recovery), an automatic
/// boundary, then the end; a new turn starts over at recovery, and a 413
/// with nothing to collapse says so and compacts at once.
#[test]
fn r8_1_each_stage_of_the_episode_says_why_and_a_new_turn_starts_over_at_recovery() {
    let mut e = Engine::new(settings()).unwrap();
    session(&mut e, 30, 1_000);
    let (_, p) = split(e.prompt_too_long().allowed(&mut e));
    let Stage::NeedsCollapse { requests } = p else {
        panic!("{}", short(&p))
    };
    for r in &requests {
        e.answer(r.id, Answer::Offline).map(|o| o.steps).unwrap();
    }
    let (steps, p) = split(e.prompt_too_long().allowed(&mut e));
    assert_eq!((steps[0].tier, steps[0].rule), (Tier::Reactive, "R8.1"));
    assert!(
        steps[0]
            .reason
            .contains("refused again after collapse overflow recovery")
            && steps[0].reason.contains("emergency compaction")
            && steps[0].reason.contains("once this turn"),
        "{}",
        steps[0].reason
    );
    let Stage::NeedsSummary { request } = p else {
        panic!("{}", short(&p))
    };
    let (_, mut p) = e.answer(request.id, Answer::Offline).map(split).unwrap();
    if let Stage::NeedsFiles { request } = p {
        p = e
            .answer(request.id, crate::common::files(&[]))
            .map(split)
            .unwrap()
            .1;
    }
    let Stage::Compacted { result } = p else {
        panic!("{}", short(&p))
    };
    assert_eq!(
        result.boundary.compact_metadata.trigger,
        compaction_core::compact::Trigger::Auto
    );
    let (steps, p) = split(e.prompt_too_long().allowed(&mut e));
    assert!(
        matches!(p, Stage::Failed { ref reason } if reason.contains("cannot continue")),
        "{}",
        short(&p)
    );
    assert!(
        steps[0].reason.contains("the host ends it"),
        "{}",
        steps[0].reason
    );

    // A new turn: a fresh episode, at recovery again once there are whole
    // turns to collapse.
    for t in 1..=30 {
        e.append(Message::user(format!("q{t}"), format!("again {t}")))
            .unwrap();
        e.append(Message::assistant(format!("b{t}"), "w".repeat(3_992)))
            .unwrap();
    }
    let (_, p) = split(e.prompt_too_long().allowed(&mut e));
    assert!(matches!(p, Stage::NeedsCollapse { .. }), "{}", short(&p));

    // Nothing to collapse: the step says so and the compaction starts.
    let mut e = Engine::new(settings()).unwrap();
    session(&mut e, 6, 1_000);
    let (steps, p) = split(e.prompt_too_long().allowed(&mut e));
    assert!(
        steps[0].reason.contains("there is nothing to collapse"),
        "{}",
        steps[0].reason
    );
    assert!(matches!(p, Stage::NeedsSummary { .. }), "{}", short(&p));
}

/// The start of a stage's debug text (a failing assertion stays readable).
fn short(p: &Stage) -> String {
    format!("{p:?}").chars().take(300).collect()
}
