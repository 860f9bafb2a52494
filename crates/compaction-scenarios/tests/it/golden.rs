//! Golden step traces (insta): every built-in scenario played through the
//! engine, and the manual compaction under each failure switch. A change in
//! behaviour shows up as a snapshot diff to review (`cargo insta review`,
//! or `INSTA_UPDATE=always` to accept).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test helpers may fail loudly

use compaction_core::compact::HookOutcome;
use compaction_core::groups::pairing_is_legal;
use compaction_core::message::Message;
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
    let (frames, _) = play(&scenarios::run_through(), &HostPolicy::default()).unwrap();
    let rules: Vec<&str> = frames
        .iter()
        .flat_map(|f| f.steps.iter().map(|s| s.rule))
        .collect();
    for rule in ["R2.2", "R4.3", "R5.1", "R1.7", "R7.9"] {
        assert!(rules.contains(&rule), "{rule} missing from {rules:?}");
    }
}

#[test]
fn long_collapse_collapses_then_compacts() {
    let (frames, _) = play(&scenarios::long_collapse(), &HostPolicy::default()).unwrap();
    let rules: Vec<&str> = frames
        .iter()
        .flat_map(|f| f.steps.iter().map(|s| s.rule))
        .collect();
    assert!(rules.contains(&"R6.1"), "{rules:?}");
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
