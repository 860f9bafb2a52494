//! A scenario's kept estimates (`Scenario::estimates`), as the sandbox
//! uses them: every scenario played again and again under changed
//! controls, each play reading the estimates the last one kept, gives what
//! a play with none kept gives, field for field; so do estimates kept
//! under another estimate rule.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test helpers may fail loudly
use compaction_scenarios as scenarios;
use compaction_scenarios::sandbox::{explore, journal, Knobs};
use compaction_scenarios::Scenario;

/// `s` with no estimates kept.
fn fresh(s: &Scenario) -> Scenario {
    Scenario {
        estimates: Default::default(),
        ..s.clone()
    }
}

/// The controls a visitor moves, a few settings each.
fn knob_sets(s: &Scenario) -> Vec<Knobs> {
    let base = Knobs::of(s);
    let mut out = vec![base.clone()];
    for window in [150_000, 210_000, 270_000] {
        out.push(Knobs {
            window,
            ..base.clone()
        });
    }
    let mut k = base.clone();
    k.preserve_groups = 3;
    k.attachments.per_file_tokens = 900;
    out.push(k);
    out.push(base);
    out
}

#[test]
fn plays_reading_kept_estimates_give_what_plays_without_them_give() {
    for s in scenarios::all() {
        // Twice over: the second round finds every estimate kept.
        for round in 0..2 {
            for knobs in knob_sets(&s) {
                match (explore(&s, &knobs), explore(&fresh(&s), &knobs)) {
                    (Ok(a), Ok(b)) => assert_eq!(a, b, "{} round {round} window {}", s.name, knobs.window),
                    (a, b) => assert_eq!(a.err().map(|e| e.to_string()), b.err().map(|e| e.to_string())),
                }
                for moment in [0, 5, 40] {
                    let a = journal(&s, &knobs, moment).ok().flatten();
                    let b = journal(&fresh(&s), &knobs, moment).ok().flatten();
                    assert_eq!(a, b, "{} journal at {moment}", s.name);
                }
            }
        }
    }
}

#[test]
fn estimates_kept_under_another_rule_are_made_again() {
    for s in scenarios::all() {
        for chars in [4, 3, 4, 2] {
            // A clone shares the estimates kept.
            let mut s = s.clone();
            s.settings.estimator.chars_per_token = chars;
            let knobs = Knobs::of(&s);
            assert_eq!(
                explore(&s, &knobs).ok(),
                explore(&fresh(&s), &knobs).ok(),
                "{} at {chars} characters a token",
                s.name
            );
        }
    }
}
