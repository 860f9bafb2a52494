//! The groups and the cut the sandbox draws (issue 26, point 2): the
//! brackets are the core's legal groups, the handle's value is "groups
//! preserved", and a cut between a call and its result is refused with
//! seed 002's reason.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test helpers may fail loudly
use compaction_scenarios::sandbox::{explore, scenario, Kind, Knobs, Moment, SEED_002_REASON};

fn the_compact(preserve: usize) -> Moment {
    let s = scenario("compact-analysis", 0).unwrap();
    let mut knobs = Knobs::of(&s);
    knobs.preserve_groups = preserve;
    let e = explore(&s, &knobs).unwrap();
    e.moments
        .into_iter()
        .find(|m| m.frame.kind == "compact")
        .expect("a /compact")
}

#[test]
fn the_compacts_groups_are_the_views_legal_groups_and_the_cut_is_groups_preserved() {
    let s = scenario("compact-analysis", 0).unwrap();
    let e = explore(&s, &Knobs::of(&s)).unwrap();
    let m = e.moments.iter().find(|m| m.frame.kind == "compact").unwrap();
    let g = m.groups.as_ref().expect("a compaction carries its groups");
    assert_eq!(Some(g.starts.len()), e.groups_at_compact);
    assert!(g.movable, "a manual /compact's cut is groups preserved");
    assert_eq!(g.end, m.before.len());
    // The system prompt's item is in no group.
    assert_eq!(m.before[0].kind, Kind::System);
    assert_eq!(g.group_of(0), None);
    assert_eq!(g.starts[0], 1);
    // The cut fell after the last summarised item, at a legal cut point,
    // and keeps as many groups as the setting says.
    let at = g.at.unwrap();
    assert!(m.after[1..]
        .iter()
        .any(|i| i.replaces.contains(&m.before[at - 1].uuid)));
    assert_eq!(g.preserved(), Some(s.settings.compact.preserve_groups));
    assert_eq!(g.preserved_at(at), Ok(s.settings.compact.preserve_groups));
}

#[test]
fn a_cut_between_a_tool_use_and_its_result_is_refused_with_seed_002s_reason() {
    let m = the_compact(1);
    let g = m.groups.as_ref().unwrap();
    let mut refused = 0;
    for (i, item) in m.before.iter().enumerate().skip(1) {
        if item.kind == Kind::ToolResult {
            // Its call is the message before it: the same group.
            assert_eq!(g.group_of(i), g.group_of(i - 1), "item {i}");
            let why = g.preserved_at(i).unwrap_err();
            assert!(why.contains(SEED_002_REASON), "{why}");
            assert!(why.contains("tool_result of `"), "{why}");
            refused += 1;
        }
    }
    assert!(refused > 10, "{refused} tool results");
    // Every legal cut but the first keeps the groups after it.
    for (k, &c) in g.cuts.iter().enumerate().skip(1) {
        assert_eq!(g.preserved_at(c), Ok(g.cuts.len() - k));
    }
    assert!(g.preserved_at(g.cuts[0]).is_err(), "nothing would be summarised");
    assert!(g.preserved_at(g.end).is_err(), "the last group is kept");
}

#[test]
fn moving_the_cut_to_a_legal_point_is_the_compaction_the_engine_runs() {
    let m = the_compact(1);
    let g = m.groups.as_ref().unwrap();
    // Four groups up: the setting that handle position names, run again,
    // cuts there.
    let target = g.cuts[g.cuts.len() - 4];
    let n = g.preserved_at(target).unwrap();
    assert_eq!(n, 4);
    let again = the_compact(n);
    let g2 = again.groups.as_ref().unwrap();
    assert_eq!(g2.at, Some(target));
    assert_eq!(g2.preserved(), Some(4));
    assert!(again.before[target..]
        .iter()
        .all(|i| !again.after.iter().any(|a| a.replaces.contains(&i.uuid))));
}

#[test]
fn events_that_did_not_compact_carry_no_groups() {
    let s = scenario("run-through", 0).unwrap();
    let e = explore(&s, &Knobs::of(&s)).unwrap();
    for m in &e.moments {
        let compacted = matches!(
            m.outcome,
            Some(compaction_scenarios::sandbox::Outcome::Compacted { .. })
        );
        assert_eq!(m.groups.is_some(), compacted, "{}", m.frame.kind);
        if let Some(g) = &m.groups {
            assert_eq!(
                g.movable,
                m.frame.kind != "call",
                "{}: auto compactions keep turns",
                m.frame.kind
            );
        }
    }
}
