//! `explore_at` (one event laid out) against `explore` (every event laid
//! out): the event it lays out is the same moment, field for field, and
//! every other moment has the same frame, count, tiers and outcome.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test helpers may fail loudly
use compaction_scenarios as scenarios;
use compaction_scenarios::sandbox::{default_moment, explore, explore_at, scenario, Knobs, Moment};

/// The fields every moment of `explore_at` keeps.
fn light(m: &Moment) -> impl PartialEq + std::fmt::Debug + '_ {
    (
        &m.frame,
        m.tokens_before,
        &m.tiers,
        &m.outcome,
        m.stored,
        m.undercount,
    )
}

fn check(s: &scenarios::Scenario, knobs: &Knobs) {
    let all = explore(s, knobs).unwrap();
    let n = all.moments.len();
    let mut ats: Vec<Option<usize>> = (0..n).map(Some).collect();
    ats.extend([None, Some(n + 3)]);
    for at in ats {
        // A wrong guess for `None` plays again; a right one does not.
        for guess in [0, n.saturating_sub(1)] {
            let (one, shown) = explore_at(s, knobs, at, guess).unwrap();
            let expected = at.map_or(default_moment(&all.moments), |a| a.min(n.saturating_sub(1)));
            assert_eq!(shown, expected, "{} at {at:?}", s.name);
            assert_eq!(one.moments.len(), n);
            for (i, (a, b)) in all.moments.iter().zip(&one.moments).enumerate() {
                if i == shown {
                    assert_eq!(a, b, "{}: moment {i} laid out", s.name);
                } else {
                    assert_eq!(light(a), light(b), "{}: moment {i}", s.name);
                    assert!(b.before.is_empty() && b.request_after.is_empty() && b.groups.is_none());
                }
            }
            assert_eq!(
                (one.name, &one.lines, one.messages, one.groups_at_compact),
                (all.name, &all.lines, all.messages, all.groups_at_compact)
            );
            assert_eq!(one.chapters, all.chapters);
        }
    }
}

#[test]
fn one_event_laid_out_is_the_same_as_all_of_them() {
    for s in scenarios::all() {
        check(&s, &Knobs::of(&s));
    }
}

#[test]
fn with_the_controls_changed() {
    let s = scenario("compact-analysis", 12).unwrap();
    let mut knobs = Knobs::of(&s);
    knobs.extra_groups = 12;
    knobs.preserve_groups = 4;
    knobs.attachments.per_file_tokens = 900;
    knobs.policy.failing_files = vec!["src/compact.ts".to_owned()];
    check(&s, &knobs);
    let s = scenario("run-through", 0).unwrap();
    let mut knobs = Knobs::of(&s);
    knobs.window = 150_000;
    check(&s, &knobs);
}
