//! The one protocol and its driver: every request listed in one place,
//! one `answer(id, Answer)`, the PreCompact hook before every compaction
//! (SPEC R7.2), and `drive` with a host whose errors it never swallows.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test helpers may fail loudly

use compaction_core::breakers::Open;
use compaction_core::compact::{
    CompactOptions, HookOutcome, PreCompactRequest, Progress, Purpose, SummaryRequest, Trigger,
};
use compaction_core::engine::{drive, Answer, DriveError, Engine, Host, Preset, Request};
use compaction_core::message::Message;
use compaction_core::Error;

/// `turns` user/assistant turns of `chars` characters each.
fn long_session(e: &mut Engine, turns: usize, chars: usize) {
    for t in 0..turns {
        e.append(Message::user(format!("p{t}"), format!("turn {t}")))
            .unwrap();
        e.append(Message::assistant(format!("a{t}"), "w".repeat(chars)))
            .unwrap();
    }
}

/// A host that records what it was asked, blocks or allows, and fails
/// its summaries when told to.
#[derive(Default)]
struct Recorder {
    hooks: Vec<PreCompactRequest>,
    /// The models asked for a compaction's summary, in order.
    models: Vec<String>,
    block: Option<String>,
    instructions: Vec<String>,
    fail: bool,
    /// With `fail`: compaction summaries answered before the failures start.
    answer_first: usize,
}

#[derive(Debug, PartialEq)]
struct Down(String);

impl Host for Recorder {
    type Error = Down;

    fn summarize(&mut self, request: &SummaryRequest) -> Result<Answer, Down> {
        if request.purpose == Purpose::Compact {
            self.models.push(request.model.to_string());
        }
        if self.fail && self.models.len() > self.answer_first {
            Err(Down(format!("{} is down", request.model)))
        } else {
            Ok(Answer::Offline)
        }
    }

    fn pre_compact(&mut self, request: &PreCompactRequest) -> Result<HookOutcome, Down> {
        self.hooks.push(request.clone());
        Ok(HookOutcome {
            block: self.block.clone(),
            added_instructions: self.instructions.clone(),
        })
    }
}

fn over_the_line(fallbacks: &[&str]) -> Engine {
    let mut settings = Preset::Seed.settings(200_000);
    settings.snip = false;
    settings.collapse.enabled = false;
    settings.compact.fallback_models = fallbacks.iter().map(|m| m.to_string()).collect();
    let mut e = Engine::new(settings).unwrap();
    long_session(&mut e, 12, 60_000);
    e
}

#[test]
fn r7_2_the_precompact_hook_is_asked_before_automatic_reactive_and_manual_compactions() {
    for how in ["auto", "reactive", "manual"] {
        let mut e = over_the_line(&[]);
        let requests = match how {
            "auto" => e.before_call(None).requests,
            "reactive" => e.prompt_too_long().requests,
            _ => {
                e.compact(CompactOptions {
                    instructions: Some("keep ids".into()),
                })
                .requests
            }
        };
        let Some(Request::PreCompact(asked)) = requests.first() else {
            panic!("{how}: the first request is the hook's: {requests:?}")
        };
        let expected = if how == "manual" {
            Trigger::Manual
        } else {
            Trigger::Auto
        };
        assert_eq!(asked.trigger, expected, "{how}");
        // Instructions the hook adds reach the summary prompt.
        let mut host = Recorder {
            instructions: vec!["mention the ticket".into()],
            ..Recorder::default()
        };
        let out = drive(&mut e, &mut host).unwrap();
        assert_eq!(host.hooks.len(), 1, "{how}: asked once");
        assert!(
            matches!(out.compaction, Some(Progress::Compacted { .. })),
            "{how}: {out:?}"
        );
        assert!(
            out.steps.iter().any(|s| s.rule == "R7.2"),
            "{how}: the step says so"
        );
    }
}

#[test]
fn r7_2_a_block_leaves_the_view_unchanged_and_writes_no_boundary_for_every_trigger() {
    for how in ["auto", "reactive", "manual"] {
        let mut e = over_the_line(&[]);
        let before: Vec<Message> = e.view().sent_messages().cloned().collect();
        match how {
            "auto" => drop(e.before_call(None)),
            "reactive" => drop(e.prompt_too_long()),
            _ => drop(e.compact(CompactOptions::default())),
        }
        let mut host = Recorder {
            block: Some("policy".into()),
            ..Recorder::default()
        };
        let out = drive(&mut e, &mut host).unwrap();
        assert!(
            matches!(&out.compaction, Some(Progress::Failed { reason }) if reason.contains("PreCompact")),
            "{how}: {out:?}"
        );
        assert!(host.models.is_empty(), "{how}: no summary is asked for");
        assert_eq!(
            e.view().sent_messages().cloned().collect::<Vec<_>>(),
            before,
            "{how}"
        );
        assert!(out.requests.is_empty(), "{how}");
    }
}

#[test]
fn answers_name_a_pending_request_of_their_kind_or_nothing_changes() {
    let mut e = over_the_line(&[]);
    let out = e.compact(CompactOptions::default());
    let id = out.requests[0].id();
    assert_eq!(
        e.answer(id + 100, Answer::allow()).unwrap_err(),
        Error::UnknownRequest { id: id + 100 }
    );
    let wrong = e.answer(id, Answer::Offline).unwrap_err();
    assert_eq!(
        wrong,
        Error::WrongAnswer {
            id,
            request: "preCompact",
            answer: "offline"
        }
    );
    assert_eq!(e.requests(), out.requests, "nothing changed");
    let next = e.answer(id, Answer::allow()).unwrap();
    assert!(
        matches!(next.requests.as_slice(), [Request::Summary(_)]),
        "{next:?}"
    );
    assert!(e.answer(id, Answer::allow()).is_err(), "answered once only");
}

#[test]
fn a_failing_summariser_moves_down_the_chain_once_per_model_then_drive_returns_its_error() {
    let mut e = over_the_line(&["fallback-a", "fallback-b"]);
    e.before_call(None);
    let mut host = Recorder {
        fail: true,
        ..Recorder::default()
    };
    let err = drive(&mut e, &mut host).unwrap_err();
    assert_eq!(
        host.models,
        ["session-model", "fallback-a", "fallback-b"],
        "each model once"
    );
    let DriveError::Host { kind, cause, .. } = err else {
        panic!("{err:?}")
    };
    assert_eq!((kind, cause), ("summary", Down("fallback-b is down".into())));
    assert!(
        e.requests().is_empty(),
        "the compaction failed, nothing is left pending"
    );
}

#[test]
fn r10_1_each_exhausted_chain_counts_once_toward_the_failure_breaker() {
    let mut e = over_the_line(&[]);
    let mut host = Recorder {
        fail: true,
        ..Recorder::default()
    };
    let mut failures = 0;
    for turn in 0..5 {
        e.append(Message::user(format!("more{turn}"), "again")).unwrap();
        let d = e.before_call(None);
        if d.breaker == Some(Open::Failures) {
            break;
        }
        assert!(drive(&mut e, &mut host).is_err());
        failures += 1;
    }
    assert_eq!(failures, 3, "R10.1: three consecutive failures open the breaker");
    assert_eq!(host.models.len(), 3, "one summary call per failed compaction");
}

#[test]
fn prepare_runs_the_cascade_answers_every_request_and_ends_under_the_line() {
    let mut e = over_the_line(&[]);
    let compact_line = e.lines().compact;
    let mut host = Recorder::default();
    let prepared = compaction_core::engine::prepare(&mut e, &mut host, None).unwrap();
    assert_eq!(prepared.compacted.len(), 1, "one compaction finished on the way");
    assert!(matches!(
        prepared.decision.compaction,
        Some(Progress::Compacted { .. })
    ));
    assert!(prepared.decision.requests.is_empty(), "nothing left pending");
    // Every step in order: the round's decision, then its answers (R7).
    let rules: Vec<&str> = prepared.decision.steps.iter().map(|s| s.rule).collect();
    assert!(rules.iter().any(|r| r.starts_with("R7")), "{rules:?}");
    assert!(prepared.decision.count.tokens < compact_line);
    assert!(e.count().tokens < compact_line);
    assert_eq!(host.hooks.len(), 1);
}

#[test]
fn prepare_ends_on_a_blocked_compaction_asking_the_hook_once() {
    let mut e = over_the_line(&[]);
    let before: Vec<_> = e.view().sent_messages().map(|m| m.uuid.clone()).collect();
    let mut host = Recorder {
        block: Some("not now".into()),
        ..Recorder::default()
    };
    let prepared = compaction_core::engine::prepare(&mut e, &mut host, None).unwrap();
    assert_eq!(host.hooks.len(), 1, "asked once, not once per round");
    assert!(prepared.compacted.is_empty());
    assert!(matches!(
        prepared.decision.compaction,
        Some(Progress::Failed { .. })
    ));
    let after: Vec<_> = e.view().sent_messages().map(|m| m.uuid.clone()).collect();
    assert_eq!(before, after, "a block leaves the view as it was");
}

#[test]
fn prepare_hands_the_host_its_error_after_one_call_per_model() {
    let mut e = over_the_line(&["fallback"]);
    let mut host = Recorder {
        fail: true,
        ..Recorder::default()
    };
    let err = compaction_core::engine::prepare(&mut e, &mut host, None).unwrap_err();
    assert!(
        matches!(err.error, DriveError::Host { cause: Down(_), .. }),
        "{err:?}"
    );
    assert!(err.compacted.is_empty(), "nothing finished");
    assert_eq!(host.models.len(), 2, "{:?}", host.models);
}

#[test]
fn prepare_stopped_by_the_host_hands_back_the_compactions_it_finished() {
    // A manual compaction asked for, then the session grows far past the
    // line: one preparation finishes the manual compaction, then starts the
    // automatic one, whose summary the host fails.
    let mut e = over_the_line(&[]);
    e.compact(CompactOptions::default());
    for t in 0..24 {
        e.append(Message::user(format!("q{t}"), format!("later turn {t}")))
            .unwrap();
        e.append(Message::assistant(format!("b{t}"), "v".repeat(60_000)))
            .unwrap();
    }
    let mut host = Recorder {
        fail: true,
        answer_first: 1,
        ..Recorder::default()
    };
    let err = compaction_core::engine::prepare(&mut e, &mut host, None).unwrap_err();
    assert!(
        matches!(err.error, DriveError::Host { cause: Down(_), .. }),
        "{err:?}"
    );
    assert_eq!(host.models.len(), 2, "{:?}", host.models);
    // The first compaction's view is in force: the error carries it, so a
    // host that persists the session can write its records.
    assert_eq!(err.compacted.len(), 1, "{err:?}");
    let summary = &err.compacted[0];
    assert!(
        e.view().sent_messages().any(|m| m.uuid == summary.summary.uuid),
        "the finished compaction's summary is in the view"
    );
}
