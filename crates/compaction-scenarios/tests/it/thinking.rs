//! The thinking scenario in the sandbox (SPEC R13.1): signed thinking
//! blocks reach the view, the `thinking` knob reaches the engine, and what
//! the page says became of each block is what the engine's view and its
//! R13.1 step say.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test helpers may fail loudly

use compaction_core::api::ThinkingMode;
use compaction_core::step::{Evidence, Owner, Step, Tier};
use compaction_scenarios::sandbox::{explore, scenario, Exploration, Fate, Knobs, Moment};

fn run(mode: ThinkingMode) -> Exploration {
    let s = scenario("thinking", 0).unwrap();
    let mut knobs = Knobs::of(&s);
    knobs.thinking = mode;
    explore(&s, &knobs).unwrap()
}

/// The event whose steps include the R13.1 step, and that step.
fn rewrite(e: &Exploration) -> (&Moment, &Step) {
    let found: Vec<_> = e
        .moments
        .iter()
        .flat_map(|m| m.frame.steps.iter().map(move |s| (m, s)))
        .filter(|(_, s)| s.rule == "R13.1")
        .collect();
    assert_eq!(found.len(), 1, "one rewrite, one R13.1 step");
    found[0]
}

fn fates(items: &[compaction_scenarios::sandbox::Item]) -> Vec<Fate> {
    items
        .iter()
        .flat_map(|i| i.thinking.iter().map(|t| t.fate))
        .collect()
}

fn how_many(fates: &[Fate], fate: Fate) -> usize {
    fates.iter().filter(|f| **f == fate).count()
}

#[test]
fn r13_1_the_scenario_starts_at_the_default_setting_and_every_reply_is_signed() {
    let s = scenario("thinking", 0).unwrap();
    assert_eq!(Knobs::of(&s).thinking, ThinkingMode::Strip);
    let e = run(ThinkingMode::Strip);
    assert_eq!(e.thinking, ThinkingMode::Strip);
    let (m, _) = rewrite(&e);
    let before = fates(&m.before);
    assert_eq!(
        before.len(),
        27,
        "a signed block in each of the 27 replies so far"
    );
    assert!(
        before.iter().all(|f| *f == Fate::Kept),
        "nothing rewritten yet: {before:?}"
    );
    let kinds: Vec<&str> = m
        .before
        .iter()
        .flat_map(|i| i.thinking.iter().map(|t| t.kind.as_str()))
        .collect();
    assert_eq!(kinds.iter().filter(|k| **k == "redacted_thinking").count(), 1);
    let redacted = m
        .before
        .iter()
        .flat_map(|i| &i.thinking)
        .find(|t| t.kind == "redacted_thinking");
    assert_eq!(
        redacted.unwrap().excerpt,
        "",
        "a redacted block shows no reasoning"
    );
    let shown = m
        .before
        .iter()
        .flat_map(|i| &i.thinking)
        .find(|t| t.kind == "thinking");
    assert!(
        shown
            .unwrap()
            .excerpt
            .starts_with("Step 0: jobs/import/step_00.py"),
        "{shown:?}"
    );
}

#[test]
fn r13_1_strip_drops_every_block_after_the_rewrite_whole_and_says_so() {
    let e = run(ThinkingMode::Strip);
    let (m, step) = rewrite(&e);
    assert_eq!(m.frame.kind, "call");
    // The rewrite is time-based clearing (R4.4), the step right before.
    let at = m.frame.steps.iter().position(|s| s.rule == "R13.1").unwrap();
    assert_eq!(m.frame.steps[at - 1].rule, "R4.4");
    assert_eq!((step.tier, step.owner), (Tier::Microcompact, Owner::Client));
    assert_eq!(step.evidence, Evidence::PublicApi);
    assert_eq!(step.blocks.len(), 26);
    assert!(
        step.reason.contains("dropped them whole (thinking: strip)"),
        "{}",
        step.reason
    );
    assert!(
        step.count_after.tokens < step.count_before.tokens,
        "dropping frees tokens"
    );
    let after = fates(&m.after);
    assert_eq!(
        (how_many(&after, Fate::Kept), how_many(&after, Fate::Dropped)),
        (1, 26)
    );
    // The page's dropped blocks are exactly the step's.
    let dropped: Vec<_> = m
        .after
        .iter()
        .filter(|i| i.thinking.iter().any(|t| t.fate == Fate::Dropped))
        .map(|i| i.uuid.clone())
        .collect();
    assert_eq!(dropped, step.messages);
    // The message ahead of the rewrite keeps its block.
    let kept = m
        .after
        .iter()
        .find(|i| i.thinking.iter().any(|t| t.fate == Fate::Kept));
    assert!(
        step.reason.contains(&format!("after {}", kept.unwrap().uuid.0)),
        "{}",
        step.reason
    );
}

#[test]
fn r13_1_drop_block_and_keep_keep_them_whole_and_name_them() {
    for (mode, says) in [
        (
            ThinkingMode::DropBlock,
            "so the server drops them (thinking: drop_block)",
        ),
        (ThinkingMode::Keep, "kept them (thinking: keep)"),
    ] {
        let e = run(mode);
        let (m, step) = rewrite(&e);
        assert!(step.reason.contains(says), "{mode:?}: {}", step.reason);
        assert_eq!(
            step.count_after.tokens, step.count_before.tokens,
            "{mode:?}: nothing dropped"
        );
        let after = fates(&m.after);
        assert_eq!(
            (how_many(&after, Fate::Kept), how_many(&after, Fate::Stale)),
            (1, 26),
            "{mode:?}"
        );
        let stale: Vec<_> = m
            .after
            .iter()
            .filter(|i| i.thinking.iter().any(|t| t.fate == Fate::Stale))
            .map(|i| i.uuid.clone())
            .collect();
        assert_eq!(stale, step.messages, "{mode:?}");
    }
}

#[test]
fn r13_1_replies_after_the_rewrite_are_signed_over_the_new_history_and_kept() {
    for mode in [ThinkingMode::Strip, ThinkingMode::DropBlock, ThinkingMode::Keep] {
        let e = run(mode);
        let last = e.moments.last().unwrap();
        let after = fates(&last.after);
        let tail: Vec<Fate> = after.iter().rev().take(2).copied().collect();
        assert_eq!(tail, [Fate::Kept, Fate::Kept], "{mode:?}: {after:?}");
        let gone = if mode == ThinkingMode::Strip {
            Fate::Dropped
        } else {
            Fate::Stale
        };
        assert_eq!(how_many(&after, gone), 26, "{mode:?}: what the rewrite did stays");
    }
}

#[test]
fn r13_1_the_setting_changes_nothing_in_a_scenario_without_thinking() {
    let s = scenario("tool-heavy", 0).unwrap();
    let plays: Vec<Exploration> = [ThinkingMode::Strip, ThinkingMode::DropBlock]
        .into_iter()
        .map(|mode| {
            let mut knobs = Knobs::of(&s);
            knobs.thinking = mode;
            explore(&s, &knobs).unwrap()
        })
        .collect();
    assert_eq!(plays[0].moments, plays[1].moments);
    assert!(plays[0].moments.iter().all(|m| fates(&m.after).is_empty()));
}
