//! The cascade's order at default settings (SPEC R3.1, R6.1): snip and
//! collapse on together, as the seed preset ships them. A snip that gets
//! under the compact line ends the cascade; only when it cannot do Tier 3
//! and then Tier 4 fire, in that order.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test helpers may fail loudly

use crate::common::{begun, segments, Stage};
use compaction_core::engine::{drive, Answer, CallStatus, Engine, Preset, Request};
use compaction_core::message::{Message, Uuid};
use compaction_core::step::Tier;

fn turn(e: &mut Engine, t: usize, tokens: usize) {
    e.append(Message::user(format!("p{t}"), format!("step {t}")))
        .unwrap();
    e.append(Message::assistant(format!("a{t}"), "w".repeat(tokens * 4 - 8)))
        .unwrap();
}

#[test]
fn r3_1_a_snip_that_gets_under_the_line_ends_the_cascade_at_default_settings() {
    let settings = Preset::Seed.settings(200_000);
    assert!(
        settings.snip && settings.collapse.enabled,
        "the defaults run both"
    );
    let mut e = Engine::new(settings).unwrap();
    // The reproduction: ~183k of plain text in 60 turns.
    for t in 1..=60 {
        turn(&mut e, t, 3_050);
    }
    assert!(e.count().tokens > 180_000);
    let d = e.before_call(None);
    let tiers: Vec<Tier> = d.steps.iter().map(|s| s.tier).collect();
    assert!(tiers.contains(&Tier::Snip), "{tiers:?}");
    assert!(
        d.count.tokens <= e.lines().compact,
        "snip got under: {}",
        d.count.tokens
    );
    assert!(
        !tiers.contains(&Tier::Collapse),
        "no Tier 3 after a snip that got under: {tiers:?}"
    );
    assert!(segments(&d.requests).is_empty(), "no segment requests");
    assert!(d.compaction.is_none(), "no Tier 4");
    assert!(
        !d.requests
            .iter()
            .any(|r| matches!(r, Request::PreCompact(_) | Request::Summary(_))),
        "{:?}",
        d.requests
    );
}

#[test]
fn r3_1_when_snip_cannot_get_under_tier_3_then_tier_4_fire_in_order() {
    let mut e = Engine::new(Preset::Seed.settings(200_000)).unwrap();
    // Three old turns snip may delete; 24 turns holding pinned prompts it
    // may not (extension); the turn in progress, too big for snip to help.
    for t in 1..=3 {
        turn(&mut e, t, 1_000);
    }
    for t in 4..=27 {
        turn(&mut e, t, 1_200);
        e.pin(&Uuid::from(format!("p{t}").as_str())).unwrap();
    }
    turn(&mut e, 28, 160_000);
    let before = e.count().tokens;
    let d = e.before_call(None);
    let order: Vec<(Tier, &str)> = d.steps.iter().map(|s| (s.tier, s.rule)).collect();
    let snip = order
        .iter()
        .position(|&(t, _)| t == Tier::Snip)
        .expect("snip ran");
    let collapse = order
        .iter()
        .position(|&(t, r)| (t, r) == (Tier::Collapse, "R6.1"))
        .expect("Tier 3 ran");
    assert!(snip < collapse, "{order:?}");
    let snipped = &d.steps[snip];
    assert_eq!(snipped.messages.len(), 6, "the three unpinned turns went");
    assert!(snipped.count_after.tokens > e.lines().compact && snipped.count_after.tokens < before);
    // Turns 4–18 lie outside the 10 most recent: two segments; Tier 4 waits
    // while Tier 3 can still help.
    let asked: Vec<_> = segments(&d.requests);
    assert_eq!(asked.len(), 2);
    assert!(d.compaction.is_none(), "Tier 4 waits for Tier 3");
    assert!(matches!(d.status, CallStatus::Blocked { .. }), "{:?}", d.status);

    let at_collapse = e.count().tokens;
    for r in &asked {
        e.answer(r.id, Answer::Offline).unwrap();
    }
    assert!(e.count().tokens < at_collapse, "the collapses shrank the view");
    // The pinned prompts of the collapsed turns are still in the view.
    for t in 4..=27 {
        assert!(
            e.view().position(&Uuid::from(format!("p{t}").as_str())).is_some(),
            "p{t} pinned"
        );
    }
    assert!(e.count().tokens > e.lines().compact, "still over after Tier 3");

    // The next call: nothing left for snip or Tier 3, so Tier 4.
    let d = e.before_call(None);
    assert!(
        segments(&d.requests).is_empty(),
        "no second collapse of the pinned copies"
    );
    assert!(
        !d.steps
            .iter()
            .any(|s| matches!(s.tier, Tier::Snip | Tier::Collapse)),
        "{:?}",
        d.steps
    );
    let (steps, stage) = begun(&mut e, &d);
    assert!(matches!(stage, Stage::NeedsSummary { .. }), "{stage:?}");
    assert!(
        steps.iter().any(|s| (s.tier, s.rule) == (Tier::Compact, "R7.5")),
        "{steps:?}"
    );
    let out = drive(&mut e, &mut crate::common::Offline).unwrap();
    assert!(out.steps.iter().any(|s| s.rule == "R7.9"), "{:?}", out.steps);
}
