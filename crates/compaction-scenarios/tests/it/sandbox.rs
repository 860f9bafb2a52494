//! The sandbox's view of a scenario (SPEC R12): the knobs reach the engine
//! and every outcome the page shows is the engine's.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test helpers may fail loudly
use compaction_core::compact::attachments::Status;
use compaction_core::compact::HookOutcome;
use compaction_scenarios as scenarios;
use compaction_scenarios::sandbox::{
    explore, rebuild, scenario, Exploration, Goes, Kind, Knobs, Moment, Outcome, Part, PrecomputeSwitch,
    Rebuild, Segment,
};

fn run(name: &str, change: impl FnOnce(&mut Knobs)) -> Exploration {
    let s = scenario(name, 0).unwrap();
    let mut knobs = Knobs::of(&s);
    change(&mut knobs);
    let s = scenario(name, knobs.extra_groups).unwrap();
    explore(&s, &knobs).unwrap()
}

fn compacted(e: &Exploration) -> (usize, Vec<compaction_core::compact::attachments::Candidate>) {
    e.moments
        .iter()
        .find_map(|m| match &m.outcome {
            Some(Outcome::Compacted {
                preserved,
                attachments,
                ..
            }) => Some((*preserved, attachments.clone())),
            _ => None,
        })
        .expect("a compaction")
}

/// The manual `/compact` of a run (compact-analysis has one, followed by
/// the user's next prompt).
fn the_compact(e: &Exploration) -> &Moment {
    e.moments
        .iter()
        .find(|m| m.frame.kind == "compact")
        .expect("a /compact")
}

fn reasons(e: &Exploration) -> Vec<String> {
    e.moments
        .iter()
        .flat_map(|m| m.frame.steps.iter().map(|s| format!("{} {}", s.rule, s.reason)))
        .collect()
}

#[test]
fn r12_every_built_in_scenario_plays_with_its_own_knobs() {
    for s in scenarios::all() {
        let e = explore(&s, &Knobs::of(&s)).unwrap();
        assert!(!e.moments.is_empty(), "{}", s.name);
        let (frames, _) = scenarios::play(&s, &s.policy).unwrap();
        let ours: Vec<_> = e.moments.iter().map(|m| m.frame.clone()).collect();
        assert_eq!(ours, frames, "{}: the sandbox plays what play() plays", s.name);
    }
}

#[test]
fn r12_the_manual_compact_writes_a_boundary_with_summary_and_attachments() {
    let e = run("compact-analysis", |_| {});
    let m = the_compact(&e);
    assert_eq!(m.frame.kind, "compact");
    let Some(Outcome::Compacted {
        summary, preserved, ..
    }) = &m.outcome
    else {
        panic!("{:?}", m.outcome)
    };
    assert!(!summary.is_empty());
    assert!(*preserved >= 1);
    assert!(m
        .after
        .iter()
        .any(|i| i.kind == Kind::Summary && !i.replaces.is_empty()));
    assert!(m.after.iter().any(|i| i.kind == Kind::Attachment));
    assert!(m.summarised > 0);
    assert!(m.tiers.contains(&compaction_core::step::Tier::Compact));
}

#[test]
fn r7_5_preserving_more_groups_moves_the_cut_point() {
    let one = compacted(&run("compact-analysis", |k| k.preserve_groups = 1)).0;
    let three = compacted(&run("compact-analysis", |k| k.preserve_groups = 3)).0;
    assert!(three > one, "{three} > {one}");
}

#[test]
fn r12_more_message_groups_reach_the_engine() {
    let base = run("compact-analysis", |_| {}).groups_at_compact.unwrap();
    let more = run("compact-analysis", |k| k.extra_groups = 4)
        .groups_at_compact
        .unwrap();
    assert_eq!(more, base + 4);
}

#[test]
fn r7_2_a_blocking_hook_leaves_no_boundary_and_the_view_unchanged() {
    let e = run("compact-analysis", |k| {
        k.policy.hook = HookOutcome {
            block: Some("policy says no".into()),
            added_instructions: Vec::new(),
        }
    });
    let m = the_compact(&e);
    assert!(
        matches!(&m.outcome, Some(Outcome::Failed { reason }) if reason.contains("blocked by a PreCompact hook: policy says no")),
        "the blocked compaction is recorded as failed: {:?}",
        m.outcome
    );
    assert!(
        m.frame.steps.iter().any(|s| s.rule == "R7.2"),
        "the step says the hook blocked it"
    );
    assert_eq!(m.before, m.after);
    assert!(m.tiers.is_empty());
}

#[test]
fn r7_7_a_failing_read_is_not_restored_and_budgets_apply() {
    let e = run("compact-analysis", |k| {
        k.policy.failing_files = vec!["reverse/javascript/cli.readable.js".into()]
    });
    let (_, files) = compacted(&e);
    let f = files
        .iter()
        .find(|c| c.path == "reverse/javascript/cli.readable.js")
        .unwrap();
    assert!(matches!(f.status, Status::Failed { .. }), "{f:?}");

    let (_, files) = compacted(&run("compact-analysis", |k| k.attachments.max_files = 1));
    assert_eq!(
        files
            .iter()
            .filter(|c| matches!(c.status, Status::NotChosen))
            .count(),
        files.len() - 1
    );
}

#[test]
fn r9_precompute_hit_stale_and_moved_each_say_why() {
    let hit = reasons(&run("compact-analysis", |k| {
        k.precompute = PrecomputeSwitch::Ready;
        k.instructions = Some(String::new());
    }));
    assert!(hit.iter().any(|r| r.contains("precompute hit")), "{hit:#?}");
    let instructed = reasons(&run("compact-analysis", |k| {
        k.precompute = PrecomputeSwitch::Ready
    }));
    assert!(
        instructed
            .iter()
            .any(|r| r.contains("miss: the user gave new instructions")),
        "{instructed:#?}"
    );
    let stale = reasons(&run("compact-analysis", |k| {
        k.precompute = PrecomputeSwitch::Stale
    }));
    assert!(
        stale.iter().any(|r| r.contains("R9.3") && r.contains("days old")),
        "{stale:#?}"
    );
    let moved = reasons(&run("compact-analysis", |k| {
        k.precompute = PrecomputeSwitch::Moved;
        k.instructions = Some(String::new());
    }));
    assert!(
        moved.iter().any(|r| r.contains("no longer open the view")),
        "{moved:#?}"
    );
}

#[test]
fn r7_5_r7_10_retry_and_fallback_show_in_the_steps() {
    let retry = run("compact-analysis", |k| k.policy.first_request_too_long = true);
    let fallback = run("compact-analysis", |k| k.policy.primary_unavailable = true);
    let base = run("compact-analysis", |_| {});
    let n = |e: &Exploration| the_compact(e).frame.steps.len();
    assert!(n(&retry) > n(&base));
    assert!(n(&fallback) > n(&base));
    assert!(matches!(
        the_compact(&retry).outcome,
        Some(Outcome::Compacted { .. })
    ));
    assert!(matches!(
        the_compact(&fallback).outcome,
        Some(Outcome::Compacted { .. })
    ));
}

#[test]
fn r1_window_and_override_reach_the_lines() {
    let e = run("compact-analysis", |k| {
        k.window = 1_000_000;
        k.max_output_tokens = Some(32_000);
    });
    assert_eq!(e.lines.compact, 967_000);
    let e = run("tool-heavy", |k| k.override_pct = Some(50.0));
    assert_eq!(e.lines.override_applied_pct, Some(50.0));
}

#[test]
fn r12_an_unknown_scenario_is_none() {
    assert!(scenario("nope", 0).is_none());
}

#[test]
fn r11_an_imported_session_is_charted_with_its_real_boundaries() {
    use compaction_core::transcript::{import, replay::preset_for_version};
    use compaction_scenarios::sandbox::{session_chart, Mark};
    let dir = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../compaction-core/tests/fixtures/transcripts/"
    );
    let bytes = std::fs::read(format!(
        "{dir}wpfleger96__claude-code-status-line__session_with_compact.jsonl"
    ))
    .unwrap();
    let t = import(&bytes);
    let preset = preset_for_version(t.versions.first().map(String::as_str));
    let replay = t.replay(preset, preset.settings(200_000)).unwrap();
    let chart = session_chart(&t, &replay);
    let real = chart
        .marks
        .iter()
        .filter(|m| matches!(m, Mark::Real { .. }))
        .count();
    assert_eq!(real, t.boundaries.len());
    assert!(real > 0);
    assert!(chart.requests.iter().any(|r| r.reported.is_some()));
    for m in &chart.marks {
        let (Mark::Real { at, .. }
        | Mark::Predicted { at, .. }
        | Mark::Microcompact { at, .. }
        | Mark::Tier { at, .. }) = m;
        assert!(*at <= chart.requests.len());
    }
}

#[test]
fn r11_a_chart_laid_out_a_slice_at_a_time_is_the_chart_laid_out_at_once() {
    use compaction_core::transcript::{import, replay::preset_for_version};
    use compaction_scenarios::sandbox::{timeline_chart, Charting};
    let dir = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../compaction-core/tests/fixtures/transcripts/"
    );
    let mut charted = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "jsonl") {
            continue;
        }
        let t = import(&std::fs::read(&path).unwrap());
        let preset = preset_for_version(t.versions.first().map(String::as_str));
        let timeline = t.timeline();
        let replay = timeline.replay(preset, preset.settings(100_000)).unwrap();
        let whole = timeline_chart(&timeline, &replay);
        for budget in [1, 2, 7] {
            let mut charting = Charting::new(&timeline);
            let mut steps = 1;
            while !charting.step(&timeline, budget) {
                steps += 1;
            }
            assert!(
                steps >= timeline.len() / budget,
                "{path:?}: {steps} steps of {budget}"
            );
            assert_eq!(
                charting.finish(&timeline, &replay),
                whole,
                "{path:?}, {budget} a step"
            );
        }
        charted += usize::from(!whole.marks.is_empty());
    }
    assert!(charted >= 2, "{charted} fixtures with marks");
}

#[test]
fn r12_the_failure_diagram_lights_only_the_branch_taken() {
    use compaction_scenarios::sandbox::failure_stages;
    let lit = |change: fn(&mut Knobs)| failure_stages(the_compact(&run("compact-analysis", change)));
    assert_eq!(lit(|_| {}), Vec::<usize>::new());
    assert_eq!(lit(|k| k.policy.hook.block = Some("no".into())), [0]);
    assert_eq!(lit(|k| k.policy.first_request_too_long = true), [1]);
    assert_eq!(lit(|k| k.policy.primary_unavailable = true), [2]);
    assert_eq!(
        lit(|k| k.policy.failing_files = vec!["reverse/javascript/cli.readable.js".into()]),
        [3]
    );
    let breakers = run("breakers", |_| {});
    assert!(breakers.moments.iter().any(|m| failure_stages(m).contains(&4)));
}

#[test]
fn r12_labels_are_short_whatever_the_message() {
    use compaction_core::message::Message;
    use compaction_scenarios::sandbox::label;
    let long = Message::user("u", format!("Refactor  the\nmodule. {}", "word ".repeat(100_000)));
    let l = label(&long);
    assert!(l.starts_with("Refactor the module. word"), "{l}");
    assert!(l.ends_with('…') && l.chars().count() <= 90, "{l}");
    assert_eq!(label(&Message::user("v", "short")), "short");
    assert_eq!(label(&Message::user("w", "")), "");
}

/// The strip's total: every segment of a request.
fn total(segments: &[Segment]) -> u64 {
    segments.iter().map(|s| s.tokens).sum()
}

#[test]
fn r12_the_request_strip_draws_everything_the_count_counts() {
    for s in scenarios::all() {
        let e = explore(&s, &Knobs::of(&s)).unwrap();
        for m in &e.moments {
            if m.frame.count.basis != compaction_core::tokens::Basis::Estimated {
                continue;
            }
            assert_eq!(
                total(&m.request_after),
                m.frame.count.tokens,
                "{} event {}",
                s.name,
                m.frame.event
            );
            // A call's first step may be one of several budget reductions,
            // each counted from its own start: compare compactions only.
            // A 413 that stated the prompt's size counts from the API's
            // figure: the estimate plus what it undercounted.
            if m.frame.kind != "call" {
                assert_eq!(
                    total(&m.request_before) + m.undercount,
                    m.tokens_before,
                    "{} event {} (before)",
                    s.name,
                    m.frame.event
                );
            }
        }
    }
    // compact-analysis: the system parts are drawn, and each is the engine's.
    let e = run("compact-analysis", |_| {});
    let m = the_compact(&e);
    let system: Vec<(&str, u64)> = m
        .request_before
        .iter()
        .filter(|s| s.part == Part::System)
        .map(|s| (s.name.as_str(), s.tokens))
        .collect();
    assert_eq!(
        system,
        [("system prompt", 3_000), ("CLAUDE.md", 1_800), ("tools", 12_000)]
    );
    assert!(m.frame.count.basis == compaction_core::tokens::Basis::Estimated);
}

#[test]
fn r7_9_the_next_request_is_summary_preserved_attachments_then_new_input() {
    let e = run("compact-analysis", |_| {});
    let m = the_compact(&e);
    // Before: the conversation splits at the cut: summarised, then kept.
    let goes: Vec<(Part, Goes)> = m
        .request_before
        .iter()
        .filter(|s| s.part != Part::System)
        .map(|s| (s.part, s.goes))
        .collect();
    assert_eq!(
        goes,
        [
            (Part::Conversation, Goes::Summarised),
            (Part::Conversation, Goes::Kept)
        ]
    );
    // After: system, summary, the preserved tail, five restored files.
    let parts: Vec<Part> = m.request_after.iter().map(|s| s.part).collect();
    let mut want = vec![
        Part::System,
        Part::System,
        Part::System,
        Part::Summary,
        Part::Preserved,
    ];
    want.extend([Part::Attachment; 5]);
    assert_eq!(parts, want);
    let files: Vec<&str> = m
        .request_after
        .iter()
        .filter(|s| s.part == Part::Attachment)
        .map(|s| s.name.as_str())
        .collect();
    assert_eq!(files[0], "reverse/javascript/cli.readable.js");
    // The preserved tail is tagged as such in the view after, and only it.
    let Some(Outcome::Compacted { preserved, .. }) = &m.outcome else {
        panic!()
    };
    assert_eq!(m.after.iter().filter(|i| i.preserved).count(), *preserved);
    assert!(m.before.iter().all(|i| !i.preserved));
    // The user's next prompt: new input after the restored files.
    let next = e.moments.last().unwrap();
    assert_eq!(next.request_after.last().unwrap().part, Part::Since);
    assert!(next.stored > m.stored - 1);
}

#[test]
fn r7_7_each_attachment_budget_changes_the_next_request() {
    let tokens = |change: fn(&mut Knobs)| total(&the_compact(&run("compact-analysis", change)).request_after);
    let base = tokens(|_| {});
    for (name, changed) in [
        ("files restored 2", tokens(|k| k.attachments.max_files = 2)),
        ("files restored 6", tokens(|k| k.attachments.max_files = 6)),
        (
            "tokens per file 3,000",
            tokens(|k| k.attachments.per_file_tokens = 3_000),
        ),
        (
            "tokens per file 8,000",
            tokens(|k| k.attachments.per_file_tokens = 8_000),
        ),
        (
            "tokens for all files 12,000",
            tokens(|k| k.attachments.total_tokens = 12_000),
        ),
    ] {
        assert_ne!(changed, base, "{name}");
    }
    // At the defaults, the per-file budget cuts the two large files.
    let (_, files) = compacted(&run("compact-analysis", |_| {}));
    let cut = files
        .iter()
        .filter(|c| matches!(c.status, Status::Restored { cut: true, .. }))
        .count();
    assert_eq!(cut, 2, "{files:#?}");
    assert!(files.iter().any(|c| matches!(c.status, Status::NotChosen)));
}

#[test]
fn r12_every_step_of_the_manual_compact_moves_the_rebuild_on() {
    let e = run("compact-analysis", |_| {});
    let m = the_compact(&e);
    let stages: Vec<Rebuild> = (0..m.frame.steps.len()).map(|s| rebuild(m, Some(s))).collect();
    assert_eq!(
        stages,
        [
            Rebuild::Cut,
            Rebuild::Asked,
            Rebuild::Written,
            Rebuild::Parsed,
            Rebuild::Restored,
            Rebuild::Assembled
        ]
    );
    assert_eq!(rebuild(m, None), Rebuild::Assembled);
    // A blocked compaction rebuilds nothing.
    let blocked = run("compact-analysis", |k| k.policy.hook.block = Some("no".into()));
    let m = the_compact(&blocked);
    assert!((0..m.frame.steps.len()).all(|s| rebuild(m, Some(s)) == Rebuild::Before));
}
