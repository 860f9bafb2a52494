//! The breakers through the engine (SPEC R10): a rapid refill counts after
//! any compaction (seed 002: "after a compact"), and only automatic
//! compactions count toward the failure breaker (a reactive one has its own
//! once-per-turn limit, R8.1).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test helpers may fail loudly

use compaction_core::breakers::Open;
use compaction_core::compact::{CompactOptions, Progress, SummaryRequest};
use compaction_core::engine::{drive, Answer, Engine, EngineSettings, Host, Preset};
use compaction_core::message::Message;

fn settings() -> EngineSettings {
    let mut s = Preset::Seed.settings(200_000);
    s.snip = false;
    s.collapse.enabled = false;
    s
}

fn turn(e: &mut Engine, t: usize, tokens: usize) {
    e.append(Message::user(format!("p{t}"), format!("turn {t}")))
        .unwrap();
    e.append(Message::assistant(format!("a{t}"), "w".repeat(tokens * 4)))
        .unwrap();
}

/// Every summary from the offline summariser, or every model down.
struct Models {
    down: bool,
}

impl Host for Models {
    type Error = std::convert::Infallible;

    fn summarize(&mut self, _: &SummaryRequest) -> Result<Answer, Self::Error> {
        Ok(if self.down {
            Answer::ModelUnavailable
        } else {
            Answer::Offline
        })
    }
}

fn ended(e: &mut Engine, down: bool) -> Progress {
    drive(e, &mut Models { down }).unwrap().compaction.unwrap()
}

#[test]
fn r10_2_a_refill_counts_after_a_manual_compaction_too() {
    let mut e = Engine::new(settings()).unwrap();
    let mut t = 0;
    for _ in 0..3 {
        turn(&mut e, t, 60_000);
        t += 1;
    }
    e.compact(CompactOptions::default());
    assert!(matches!(ended(&mut e, false), Progress::Compacted { .. }));
    // Three times the line is reached again within two turns of the last
    // compaction: the first of them follows the manual one.
    for refill in 1..=3 {
        for _ in 0..2 {
            turn(&mut e, t, 60_000);
            t += 1;
        }
        let d = e.before_call(None);
        assert!(d.count.tokens > e.lines().compact, "refill {refill}");
        if refill < 3 {
            assert_eq!(d.breaker, None, "refill {refill}");
            assert!(d.compaction.is_some(), "refill {refill}: auto compaction starts");
            assert!(matches!(ended(&mut e, false), Progress::Compacted { .. }));
        } else {
            assert_eq!(
                d.breaker,
                Some(Open::RapidRefill),
                "the third refill in a row opens it"
            );
            assert!(d.compaction.is_none());
        }
    }
    // R10.3: /compact still works.
    e.compact(CompactOptions::default());
    assert!(matches!(ended(&mut e, false), Progress::Compacted { .. }));
}

#[test]
fn r10_1_reactive_failures_do_not_open_the_auto_failure_breaker() {
    let mut e = Engine::new(settings()).unwrap();
    for t in 0..3 {
        turn(&mut e, t, 60_000);
    }
    // Three failed emergency compactions, one per turn (R8.1).
    for t in 3..6 {
        e.append(Message::user(format!("p{t}"), "go on")).unwrap();
        e.prompt_too_long();
        assert!(matches!(ended(&mut e, true), Progress::Failed { .. }), "turn {t}");
    }
    let d = e.before_call(None);
    assert_eq!(d.breaker, None, "reactive failures are not auto-compact failures");
    assert!(d.compaction.is_some(), "automatic compaction is still tried");
    // Three automatic failures in a row do open it.
    assert!(matches!(ended(&mut e, true), Progress::Failed { .. }));
    for _ in 0..2 {
        let d = e.before_call(None);
        assert!(d.compaction.is_some());
        assert!(matches!(ended(&mut e, true), Progress::Failed { .. }));
    }
    let d = e.before_call(None);
    assert_eq!(d.breaker, Some(Open::Failures));
    assert!(d.compaction.is_none());
}

/// One model call of an autonomous agent: a reply of `tokens` tokens that
/// calls a tool, and the tool's short result.
fn call(e: &mut Engine, i: usize, tokens: usize) {
    let id = format!("toolu_{i}");
    let reply = serde_json::json!({ "uuid": format!("a{i}"), "role": "assistant", "content": [
        { "type": "text", "text": "w".repeat(tokens * 4) },
        { "type": "tool_use", "id": id, "name": "Bash", "input": { "command": "ls" } },
    ] });
    let result = serde_json::json!({ "uuid": format!("r{i}"), "role": "user", "content": [
        { "type": "tool_result", "tool_use_id": id, "content": "ok" },
    ] });
    e.append(serde_json::from_value::<Message>(reply).unwrap())
        .unwrap();
    e.append(serde_json::from_value::<Message>(result).unwrap())
        .unwrap();
}

#[test]
fn r10_2_turns_are_model_calls_so_one_long_prompt_compacts_as_often_as_it_fills() {
    // One user prompt, then 120 tool calls: the context fills every dozen
    // calls. R10.2's turns are read as model calls (SPEC): compactions a
    // dozen calls apart are no thrashing, however few the prompts.
    let mut e = Engine::new(settings()).unwrap();
    e.append(Message::user("p0", "run the migration")).unwrap();
    let mut compactions = 0;
    for i in 0..120 {
        call(&mut e, i, 12_000);
        let d = e.before_call(None);
        assert_eq!(d.breaker, None, "call {i}, after {compactions} compaction(s)");
        if d.compaction.is_some() {
            assert!(
                matches!(ended(&mut e, false), Progress::Compacted { .. }),
                "call {i}"
            );
            compactions += 1;
        }
    }
    assert!(compactions >= 5, "{compactions} compactions");
}
