//! Scenario data a reader can believe (issue 26, point 6): a 413 only when
//! the API really counts the request over the window, no compaction that
//! grows the request without a word why, no rebuild stage lit for a
//! compaction that never built one; seed 000's phases as chapters and
//! what each tier costs.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test helpers may fail loudly
use compaction_core::step::Tier;
use compaction_scenarios as scenarios;
use compaction_scenarios::sandbox::{
    explain, explore, lit, scenario, Cost, Exploration, Knobs, Outcome, FLOWS,
};

fn run(name: &str, change: impl FnOnce(&mut Knobs)) -> Exploration {
    let s = scenario(name, 0).unwrap();
    let mut knobs = Knobs::of(&s);
    change(&mut knobs);
    explore(&s, &knobs).unwrap()
}

#[test]
fn the_run_through_413_is_a_request_the_api_counts_over_the_window() {
    let e = run("run-through", |_| {});
    let (i, m) = e
        .moments
        .iter()
        .enumerate()
        .find(|(_, m)| m.frame.kind == "413")
        .expect("a 413");
    let window = e.lines.window;
    let estimate = m.tokens_before - m.undercount;
    assert!(
        m.tokens_before > window,
        "the API's count {} is over the window {window}",
        m.tokens_before
    );
    assert!(
        estimate < e.lines.compact,
        "the engine's estimate {estimate} let the call go"
    );
    // The call just before went out: the engine saw no reason to stop it.
    let call = &e.moments[i - 1];
    assert_eq!(call.frame.kind, "call");
    assert!(!scenarios::sandbox::is_blocked(call.frame.status.as_ref()));
    // The emergency compaction leaves a request that fits even at the
    // API's count.
    assert!(matches!(m.outcome, Some(Outcome::Compacted { .. })));
    assert!(m.frame.count.tokens + m.undercount <= window);
    let note = explain(m, window).expect("the screen says why");
    assert!(
        note.contains("413") && note.contains(&scenarios::figures::grouped(m.tokens_before)),
        "{note}"
    );
    // overflow: a paste the API counts over the window by itself; each of
    // the three 413s is a request really over it, the first one sent at
    // an estimate under the compact line.
    let o = run("overflow", |_| {});
    let refusals: Vec<_> = o.moments.iter().filter(|m| m.frame.kind == "413").collect();
    assert_eq!(refusals.len(), 3);
    assert!(refusals
        .iter()
        .all(|m| m.tokens_before > o.lines.window && m.undercount > 0));
    assert!(refusals[0].tokens_before - refusals[0].undercount < o.lines.compact);
    assert!(matches!(refusals[2].outcome, Some(Outcome::Failed { .. })));
    // In a window the real request fits, the API takes the call: no 413.
    let wide = run("run-through", |k| k.window = 400_000);
    assert!(wide.moments.iter().all(|m| m.frame.kind != "413"));
}

#[test]
fn no_built_in_compaction_grows_the_request_and_one_that_does_says_why() {
    for s in scenarios::all() {
        let e = explore(&s, &Knobs::of(&s)).unwrap();
        for m in &e.moments {
            if let Some(Outcome::Compacted {
                pre_tokens,
                post_tokens,
                ..
            }) = &m.outcome
            {
                assert!(
                    post_tokens < pre_tokens,
                    "{} event {}: {pre_tokens} → {post_tokens}",
                    s.name,
                    m.frame.event
                );
                assert_eq!(
                    explain(m, e.lines.window).is_some(),
                    m.undercount > 0,
                    "{}",
                    s.name
                );
            }
        }
    }
    // Chained: each pass summarises the summary before it, which grows.
    let e = run("chained", |_| {});
    let summaries: Vec<u64> = e
        .moments
        .iter()
        .filter_map(|m| match &m.outcome {
            Some(Outcome::Compacted { summary, .. }) => Some(summary.len() as u64),
            _ => None,
        })
        .collect();
    assert_eq!(summaries.len(), 3);
    assert!(summaries.windows(2).all(|w| w[0] < w[1]), "{summaries:?}");
    // A compaction that grows is explained with what it added.
    let mut m = e.moments.iter().find(|m| m.outcome.is_some()).unwrap().clone();
    if let Some(Outcome::Compacted {
        pre_tokens,
        post_tokens,
        ..
    }) = &mut m.outcome
    {
        std::mem::swap(pre_tokens, post_tokens);
    }
    let note = explain(&m, e.lines.window).unwrap();
    assert!(
        note.contains("larger") && note.contains("restored files"),
        "{note}"
    );
}

#[test]
fn a_failed_compact_lights_no_rebuild_stage() {
    let rebuild = FLOWS.iter().find(|f| f.id == "rebuild").unwrap();
    let manual = FLOWS.iter().find(|f| f.id == "manual").unwrap();
    let e = run("breakers", |_| {});
    let failed = e.moments.iter().find(|m| m.frame.kind == "compact").unwrap();
    assert!(matches!(failed.outcome, Some(Outcome::Failed { .. })));
    assert!(
        failed.frame.steps.iter().any(|s| rebuild.stage_of(s).is_some()),
        "its steps name rebuild stages"
    );
    for step in 0..failed.frame.steps.len() {
        assert_eq!(
            lit(rebuild, &failed.frame.steps[..=step], failed),
            Vec::<usize>::new(),
            "step {step}"
        );
    }
    // The manual path still shows how far it got.
    assert!(!lit(manual, &failed.frame.steps, failed).is_empty());
    // A compaction that finished lights its rebuild.
    let done = run("compact-analysis", |_| {});
    let compact = done.moments.iter().find(|m| m.frame.kind == "compact").unwrap();
    let mut stages = lit(rebuild, &compact.frame.steps, compact);
    stages.dedup();
    assert_eq!(stages, [1, 0, 2, 3]);
}

#[test]
fn seed_000s_phases_are_chapters_and_each_tier_has_its_cost() {
    let e = run("run-through", |_| {});
    let names: Vec<&str> = e.chapters.iter().map(|c| c.name).collect();
    // Phases 1–5, then Tier 5's 413.
    assert_eq!(names.len(), 6, "{names:?}");
    assert_eq!(e.chapters[0].first, 0);
    assert_eq!(e.chapters.last().unwrap().end, e.moments.len());
    assert!(e.chapters.windows(2).all(|w| w[0].end == w[1].first));
    let chapter_of = |tier: Tier| {
        let i = e.moments.iter().position(|m| m.tiers.contains(&tier)).unwrap();
        e.chapters
            .iter()
            .find(|c| (c.first..c.end).contains(&i))
            .unwrap()
            .name
    };
    assert!(chapter_of(Tier::Microcompact).starts_with('2'));
    assert!(chapter_of(Tier::Snip).starts_with('3'));
    // Seed 000: phase 3 is Tier 1 then Tier 2 in one call (microcompact
    // runs, the count stays over, snip gets it under, Tiers 3–4 do not
    // run); phase 4 repeats it.
    for phase in ['3', '4'] {
        let c = e.chapters.iter().find(|c| c.name.starts_with(phase)).unwrap();
        let pair = e.moments[c.first..c.end]
            .iter()
            .find(|m| m.tiers == [Tier::Microcompact, Tier::Snip])
            .unwrap_or_else(|| panic!("phase {phase}: no call with microcompact then snip"));
        assert!(
            pair.frame.count.tokens <= e.lines.compact,
            "phase {phase}: snip gets under the line"
        );
        let micro = pair
            .frame
            .steps
            .iter()
            .find(|s| s.tier == Tier::Microcompact)
            .unwrap();
        assert!(
            micro.count_after.tokens > e.lines.compact,
            "phase {phase}: microcompact alone is not enough"
        );
        // Every count the chart draws stays inside the window.
        assert!(pair.tokens_before < e.lines.window);
    }
    assert!(chapter_of(Tier::Collapse).starts_with('5'));
    assert!(chapter_of(Tier::Compact).starts_with('5'));
    assert!(chapter_of(Tier::Reactive).starts_with("413"));
    let costs: Vec<(Tier, Cost)> = e.moments.iter().flat_map(|m| m.costs()).collect();
    let cost = |tier: Tier| costs.iter().find(|(t, _)| *t == tier).unwrap().1;
    assert_eq!(cost(Tier::Compact), Cost::ModelCall);
    assert_eq!(cost(Tier::Collapse), Cost::ModelCall);
    assert_eq!(cost(Tier::Snip), Cost::CacheBroken);
    assert_eq!(cost(Tier::Microcompact), Cost::CacheBroken);
    assert_eq!(Cost::CacheKept.label(), "no model call · cache kept");
    // Other scenarios are one chapter.
    assert!(run("chained", |_| {}).chapters.is_empty());
}
