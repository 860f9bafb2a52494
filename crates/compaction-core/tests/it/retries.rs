//! R7.5's cut and its bounds: the auto path makes at most 4 summary
//! requests (1 + 3 truncation retries), `cut::truncate` drops whole groups
//! from the oldest end, partial compaction ("summarize from here"), and a
//! failure step reports the count of the view it left in force (R7.10),
//! never `0 → 0`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test helpers may fail loudly

use crate::common::{split, Allow, Stage};
use compaction_core::compact::{cut, CompactOptions, Direction, PartialCompact};
use compaction_core::engine::{Answer, Engine, EngineSettings, Preset, Request};
use compaction_core::groups::pairing_is_legal;
use compaction_core::message::{Block, Content, Json, Message, Role, ToolResultContent, Uuid};
use compaction_core::step::{Step, Tier};
use compaction_core::tokens::Estimator;
use compaction_core::view::{Source, View};
use std::sync::Arc;

fn no_tiers_2_3() -> EngineSettings {
    let mut s = Preset::Seed.settings(200_000);
    s.snip = false;
    s.collapse.enabled = false;
    s
}

/// `turns` user/assistant turns of `chars` characters each.
fn long_session(e: &mut Engine, turns: usize, chars: usize) {
    for t in 0..turns {
        e.append(Message::user(format!("p{t}"), format!("turn {t}")))
            .unwrap();
        e.append(Message::assistant(format!("a{t}"), "w".repeat(chars)))
            .unwrap();
    }
}

fn summary_request_id(requests: &[Request]) -> Option<u64> {
    requests.iter().find_map(|r| match r {
        Request::Summary(s) => Some(s.id),
        _ => None,
    })
}

/// The R7.10 failure step of `steps`.
fn failure_step(steps: &[Step]) -> &Step {
    steps
        .iter()
        .rev()
        .find(|s| s.rule == "R7.10")
        .expect("a failure step")
}

#[test]
fn r7_5_the_auto_path_makes_at_most_four_requests() {
    let mut e = Engine::new(no_tiers_2_3()).unwrap();
    long_session(&mut e, 30, 24_000); // 180,000 tokens
    let d = e.before_call(None);
    let out = compaction_core::engine::Outcome {
        steps: d.steps,
        requests: d.requests,
        compaction: d.compaction,
    }
    .allowed(&mut e);
    let mut requests = 0;
    let mut next = summary_request_id(&out.requests);
    let mut last = out;
    while let Some(id) = next {
        requests += 1;
        assert!(requests <= 10, "runaway retries");
        last = e.answer(id, Answer::PromptTooLong).unwrap();
        next = summary_request_id(&last.requests);
    }
    assert_eq!(requests, 4, "1 request + 3 truncation retries (seed 002)");
    let (steps, stage) = split(last);
    assert!(
        matches!(&stage, Stage::Failed { reason } if reason.contains("3 truncation retries")),
        "{stage:?}"
    );
    let truncations = steps
        .iter()
        .filter(|s| s.reason.contains("truncation 3 of at most 3"))
        .count();
    assert_eq!(truncations, 0, "the last answer truncates no more");
    assert!(failure_step(&steps).count_before.tokens > 170_000);
}

#[test]
fn r7_5_manual_retries_stop_when_nothing_is_left_to_shorten() {
    let mut e = Engine::new(no_tiers_2_3()).unwrap();
    long_session(&mut e, 4, 4_000);
    let (_, mut stage) = split(e.compact(CompactOptions::default()).allowed(&mut e));
    let mut requests = 0;
    while let Stage::NeedsSummary { request } = stage {
        requests += 1;
        assert!(requests <= 10, "runaway retries");
        stage = split(e.answer(request.id, Answer::PromptTooLong).unwrap()).1;
    }
    // 7 legal groups, one preserved: each retry preserves one more.
    assert!(requests <= 7, "{requests}");
    assert!(
        matches!(&stage, Stage::Failed { reason } if reason.contains("nothing is left")),
        "{stage:?}"
    );
}

#[test]
fn r7_5_a_request_over_the_window_is_truncated_before_it_is_sent() {
    let mut s = no_tiers_2_3();
    s.thresholds.window = 100_000; // budget 80,000, compact line 67,000
    let mut e = Engine::new(s).unwrap();
    // Every turn is 20,000 tokens; the auto cut keeps two: the prefix
    // (~120,000) plus the prompt is over the window.
    long_session(&mut e, 8, 80_000);
    let d = e.before_call(None);
    let out = compaction_core::engine::Outcome {
        steps: d.steps,
        requests: d.requests,
        compaction: d.compaction,
    }
    .allowed(&mut e);
    let (steps, stage) = split(out);
    let Stage::NeedsSummary { request } = stage else {
        panic!("{stage:?}")
    };
    assert!(
        request.estimated_tokens <= 100_000,
        "{}",
        request.estimated_tokens
    );
    assert!(
        steps
            .iter()
            .any(|s| s.reason.contains("truncation 1 of at most 3")),
        "{steps:?}"
    );
}

fn tool_turn(n: usize, chars: usize) -> Vec<Message> {
    let id = format!("toolu_{n}");
    vec![
        Message::user(format!("p{n}"), format!("read file {n}")),
        Message::new(
            format!("c{n}"),
            Role::Assistant,
            Content::Blocks(vec![Block::ToolUse {
                id: id.clone(),
                name: "Read".into(),
                input: Json::from_value(&serde_json::json!({"file_path": format!("f{n}.rs")})),
                extra: Default::default(),
            }]),
        ),
        Message::new(
            format!("r{n}"),
            Role::User,
            Content::Blocks(vec![Block::ToolResult {
                tool_use_id: id,
                content: ToolResultContent::Text("x".repeat(chars)),
                is_error: None,
                extra: Default::default(),
            }]),
        ),
    ]
}

#[test]
fn cut_truncate_drops_whole_groups_from_the_oldest_end() {
    let mut view = View::new(Estimator::default());
    for n in 0..4 {
        for m in tool_turn(n, 4_000) {
            view.push(Arc::new(m), Source::Stored, Vec::new());
        }
    }
    let prefix = 0..view.len();
    // Each turn is a prompt (its own group) and a tool pair (one group).
    let starts = view.segmentation().cut_points();
    assert_eq!(starts, [0, 1, 3, 4, 6, 7, 9, 10]);
    // A small gap drops the first group only.
    assert_eq!(cut::truncate(&view, &prefix, 1), Some(1..12));
    // A gap of one tool pair drops up to the end of that pair: never
    // between a tool_use and its result.
    let pair = cut::tokens(&view, 1..3);
    let next = cut::truncate(&view, &prefix, pair).unwrap();
    assert_eq!(next, 3..12);
    let kept: Vec<Message> = view.entries()[next]
        .iter()
        .map(|e| (*e.message).clone())
        .collect();
    pairing_is_legal(&kept).unwrap();
    // More than the prefix holds: nothing left to truncate.
    assert_eq!(cut::truncate(&view, &prefix, cut::tokens(&view, 0..12)), None);
    // A one-group prefix cannot be truncated.
    assert_eq!(cut::truncate(&view, &(10..12), 1), None);
}

fn partial_session() -> Engine {
    let mut e = Engine::new(no_tiers_2_3()).unwrap();
    for n in 0..6 {
        for m in tool_turn(n, 2_000) {
            e.append(m).unwrap();
        }
    }
    e
}

#[test]
fn r7_5_partial_compaction_from_here_keeps_what_came_before() {
    let mut e = partial_session();
    let before: Vec<Uuid> = e
        .view()
        .entries()
        .iter()
        .map(|x| x.message.uuid.clone())
        .collect();
    let out = e.compact_partial(PartialCompact {
        uuid: Uuid::from("p3"),
        direction: Direction::From,
        instructions: Some("keep the file names".into()),
    });
    assert!(
        matches!(out.requests.first(), Some(Request::PreCompact(_))),
        "the hook first"
    );
    let (_, stage) = split(out.allowed(&mut e));
    let Stage::NeedsSummary { request } = stage else {
        panic!("{stage:?}")
    };
    let asked: Vec<&str> = request.messages.iter().map(|m| m.uuid.as_str()).collect();
    assert_eq!(asked, ["p3", "c3", "r3", "p4", "c4", "r4", "p5", "c5", "r5"]);
    assert!(request.prompt.contains("keep the file names"));
    let (_, stage) = split(e.answer(request.id, Answer::Offline).unwrap());
    let stage = match stage {
        Stage::NeedsFiles { request } => split(e.answer(request.id, crate::common::files(&[])).unwrap()).1,
        other => other,
    };
    assert!(matches!(stage, Stage::Compacted { .. }), "{stage:?}");
    let after: Vec<Uuid> = e
        .view()
        .entries()
        .iter()
        .map(|x| x.message.uuid.clone())
        .collect();
    assert_eq!(after[..9], before[..9], "turns 0–2 verbatim, in order");
    assert!(matches!(e.view().entries()[9].source, Source::Summary { .. }));
    assert!(
        !after.iter().any(|u| u.as_str() == "p4"),
        "the summarised part is gone"
    );
    pairing_is_legal(&e.view().sent_messages().cloned().collect::<Vec<_>>()).unwrap();
}

#[test]
fn r7_5_partial_compaction_up_to_here_keeps_it_and_what_follows() {
    let mut e = partial_session();
    let out = e.compact_partial(PartialCompact {
        uuid: Uuid::from("p4"),
        direction: Direction::UpTo,
        instructions: None,
    });
    let (_, stage) = split(out.allowed(&mut e));
    let Stage::NeedsSummary { request } = stage else {
        panic!("{stage:?}")
    };
    assert_eq!(request.messages.len(), 12, "turns 0–3");
    crate::common::drive_offline(&mut e);
    let after: Vec<&str> = e
        .view()
        .entries()
        .iter()
        .map(|x| x.message.uuid.as_str())
        .collect();
    assert!(matches!(e.view().entries()[0].source, Source::Summary { .. }));
    let p4 = after.iter().position(|u| *u == "p4").unwrap();
    assert_eq!(after[p4..p4 + 6], ["p4", "c4", "r4", "p5", "c5", "r5"]);
}

#[test]
fn r7_5_partial_compaction_at_an_illegal_cut_fails_and_keeps_the_view() {
    let mut e = partial_session();
    let before: Vec<Message> = e.view().sent_messages().cloned().collect();
    for (uuid, direction) in [
        ("r2", Direction::From),
        ("nobody", Direction::UpTo),
        ("p0", Direction::UpTo),
    ] {
        let out = e.compact_partial(PartialCompact {
            uuid: Uuid::from(uuid),
            direction,
            instructions: None,
        });
        let (steps, stage) = split(out.allowed(&mut e));
        assert!(
            matches!(&stage, Stage::Failed { reason } if reason.contains("partial compaction")),
            "{uuid}: {stage:?}"
        );
        let failed = failure_step(&steps);
        assert_eq!(failed.count_before, e.count(), "{uuid}: the view's count, not 0");
        assert_eq!(e.view().sent_messages().cloned().collect::<Vec<_>>(), before);
    }
}

#[test]
fn r7_10_no_failure_step_reports_zero_on_a_non_empty_view() {
    // All models down (no offline fallback), an empty reply, too long with
    // nothing left to shorten: each leaves the view, and its step says the
    // view's count.
    for case in ["down", "empty", "too long"] {
        let mut e = Engine::new(no_tiers_2_3()).unwrap();
        long_session(&mut e, 2, 4_000);
        let count = e.count();
        assert!(count.tokens > 0);
        let (_, mut stage) = split(e.compact(CompactOptions::default()).allowed(&mut e));
        let mut steps = Vec::new();
        while let Stage::NeedsSummary { request } = stage {
            let answer = match case {
                "down" => Answer::ModelUnavailable,
                "empty" => Answer::text(""),
                _ => Answer::PromptTooLong,
            };
            let (more, next) = split(e.answer(request.id, answer).unwrap());
            steps.extend(more);
            stage = next;
        }
        assert!(matches!(stage, Stage::Failed { .. }), "{case}: {stage:?}");
        let failed = failure_step(&steps);
        assert_eq!(failed.tier, Tier::Compact);
        assert_eq!(
            (failed.count_before, failed.count_after),
            (count, count),
            "{case}"
        );
    }
}
