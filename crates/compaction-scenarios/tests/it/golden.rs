//! Golden step traces (insta): every built-in scenario played through the
//! engine, and the manual compaction under each failure switch. A change in
//! behaviour shows up as a snapshot diff to review (`cargo insta review`,
//! or `INSTA_UPDATE=always` to accept).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test helpers may fail loudly

use compaction_core::compact::HookOutcome;
use compaction_core::groups::pairing_is_legal;
use compaction_core::message::Message;
use compaction_core::step::{Step, Tier};
use compaction_scenarios::{self as scenarios, play, Frame, HostPolicy};
use serde_json::{json, Value};

/// A frame as one line per step: what a reader checks in a review.
fn trace(frames: &[Frame]) -> Value {
    Value::Array(
        frames
            .iter()
            .map(|f| {
                json!({
                    "event": f.event,
                    "kind": f.kind,
                    "status": f.status,
                    "count": f.count.tokens,
                    "viewLen": f.view_len,
                    "steps": f.steps.iter().map(|s| format!(
                        "{:?} {} {:?} {}→{}: {}",
                        s.tier, s.rule, s.owner, s.count_before.tokens, s.count_after.tokens, s.reason
                    )).collect::<Vec<_>>(),
                })
            })
            .collect(),
    )
}

fn golden(name: &str, policy: &HostPolicy, snapshot: &str) {
    let scenario = scenarios::by_name(name).unwrap();
    let (frames, engine) = play(&scenario, policy).unwrap();
    let view: Vec<Message> = engine.view().sent_messages().cloned().collect();
    pairing_is_legal(&view).unwrap();
    insta::assert_json_snapshot!(snapshot, trace(&frames));
}

#[test]
fn each_name_builds_the_scenario_it_names() {
    let names: Vec<&str> = scenarios::names().collect();
    let built: Vec<&str> = scenarios::all().iter().map(|s| s.name).collect();
    assert_eq!(names, built);
    for name in names {
        assert_eq!(scenarios::by_name(name).unwrap().name, name);
    }
    assert!(scenarios::by_name("no-such-scenario").is_none());
}

#[test]
fn every_scenario() {
    for s in scenarios::all() {
        golden(s.name, &s.policy, &format!("scenario_{}", s.name));
    }
}

#[test]
fn run_through_reaches_every_tier_of_seed_000() {
    let scenario = scenarios::run_through();
    assert_eq!(
        scenario.settings,
        compaction_core::engine::Preset::Seed.settings(200_000),
        "at default settings"
    );
    let (frames, _) = play(&scenario, &HostPolicy::default()).unwrap();
    let steps: Vec<&Step> = frames.iter().flat_map(|f| &f.steps).collect();
    let first = |tier: Tier, rule: &str| {
        steps
            .iter()
            .position(|s| s.tier == tier && s.rule == rule)
            .unwrap_or_else(|| panic!("{tier:?} {rule} missing"))
    };
    let reduction = first(Tier::BudgetReduction, "R2.2");
    let microcompact = first(Tier::Microcompact, "R4.3");
    let snip = first(Tier::Snip, "R5.1");
    let collapse = first(Tier::Collapse, "R6.1");
    let compact = first(Tier::Compact, "R7.9");
    let reactive = first(Tier::Reactive, "R8.1");
    assert!(
        reduction < microcompact
            && microcompact < snip
            && snip < collapse
            && collapse < compact
            && compact < reactive,
        "seed 000's order: {reduction} {microcompact} {snip} {collapse} {compact} {reactive}"
    );
    // A snip that gets under the line ends the cascade: the calls where it
    // did show no Tier 3 or Tier 4 step.
    for f in &frames {
        let snipped_under = f
            .steps
            .iter()
            .any(|s| s.tier == Tier::Snip && s.count_after.tokens <= 167_000);
        if snipped_under {
            assert!(
                !f.steps
                    .iter()
                    .any(|s| matches!(s.tier, Tier::Collapse | Tier::Compact) && s.rule != "R9"),
                "event {}: {:?}",
                f.event,
                f.steps
            );
        }
    }
    // Tier 3 fired in a call where snip could not get under.
    let collapse_frame = frames
        .iter()
        .find(|f| {
            f.steps
                .iter()
                .any(|s| s.tier == Tier::Collapse && s.model_calls > 0)
        })
        .unwrap();
    assert!(collapse_frame
        .steps
        .iter()
        .any(|s| s.tier == Tier::Snip && s.count_after.tokens > 167_000));
    // Tier 5: the 413's collapse overflow recovery or emergency compaction.
    assert!(frames.iter().any(|f| f.kind == "413"));
}

#[test]
fn long_collapse_collapses_then_compacts() {
    let (frames, _) = play(&scenarios::long_collapse(), &HostPolicy::default()).unwrap();
    let steps: Vec<&Step> = frames.iter().flat_map(|f| &f.steps).collect();
    let collapsed = steps
        .iter()
        .position(|s| s.tier == Tier::Collapse && s.count_after.tokens < s.count_before.tokens)
        .expect("a segment collapsed");
    let compacted = steps
        .iter()
        .position(|s| s.tier == Tier::Compact && s.rule == "R7.9")
        .expect("then a compaction");
    assert!(collapsed < compacted, "{collapsed} < {compacted}");
}

#[test]
fn manual_compact_under_each_failure_switch() {
    let switches = [
        (
            "hook_blocks",
            HostPolicy {
                hook: HookOutcome {
                    block: Some("policy".into()),
                    ..Default::default()
                },
                ..Default::default()
            },
        ),
        (
            "hook_adds_instructions",
            HostPolicy {
                hook: HookOutcome {
                    block: None,
                    added_instructions: vec!["list open tickets".into()],
                },
                ..Default::default()
            },
        ),
        (
            "primary_unavailable",
            HostPolicy {
                primary_unavailable: true,
                ..Default::default()
            },
        ),
        (
            "request_too_long",
            HostPolicy {
                first_request_too_long: true,
                ..Default::default()
            },
        ),
        (
            "file_read_fails",
            HostPolicy {
                failing_files: vec!["reverse/javascript/cli.readable.js".into()],
                ..Default::default()
            },
        ),
        (
            "all_models_down",
            HostPolicy {
                all_models_down: true,
                ..Default::default()
            },
        ),
    ];
    for (name, policy) in switches {
        golden("compact-analysis", &policy, &format!("compact_analysis_{name}"));
    }
}
