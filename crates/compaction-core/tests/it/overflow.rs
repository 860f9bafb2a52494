//! Tier 5's input (SPEC R8.1): an API error classified as prompt-too-long,
//! and the real size it states recalibrating the engine's count.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test helpers may fail loudly

use compaction_core::engine::Engine;
use compaction_core::engine::Preset;
use compaction_core::message::Message;
use compaction_core::overflow::{classify, ErrorFacts};
use compaction_core::step::Tier;
use compaction_core::tokens::Basis;

/// `turns` turns of about `tokens` estimated tokens each.
fn session(e: &mut Engine, turns: usize, tokens: usize) {
    for t in 1..=turns {
        e.append(Message::user(format!("p{t}"), format!("step {t}")))
            .unwrap();
        e.append(Message::assistant(format!("a{t}"), "w".repeat(tokens * 4 - 8)))
            .unwrap();
    }
}

#[test]
fn r8_1_the_size_the_error_states_becomes_the_count() {
    let mut s = Preset::Seed.settings(200_000);
    s.collapse.enabled = false;
    let mut e = Engine::new(s).unwrap();
    session(&mut e, 30, 1_000); // the estimate: ~30,000 tokens
    let estimated = e.count().tokens;
    assert!(estimated < 40_000, "{estimated}");

    // The API counts differently (a CJK paste, images): it refuses the call.
    let error = ErrorFacts {
        status: Some(400),
        kind: Some("invalid_request_error"),
        code: None,
        message: Some("prompt is too long: 236175 tokens > 200000 maximum"),
    };
    let stated = classify(&error).expect("a prompt-too-long");
    let out = e.prompt_too_long_at(stated.tokens.unwrap());
    let steps = out.steps;
    let progress = out.requests.first().cloned();
    assert_eq!((steps[0].tier, steps[0].rule), (Tier::Reactive, "R8.1"));
    assert!(steps[0].reason.contains("236175"), "{}", steps[0].reason);
    assert!(
        matches!(progress, Some(compaction_core::engine::Request::PreCompact(_))),
        "the emergency compaction, its PreCompact hook first: {progress:?}"
    );

    // Until the compaction lands, the count is the API's, plus what follows.
    let count = e.count();
    assert_eq!(count.tokens, 236_175);
    assert_eq!(count.basis, Basis::ReportedPlusEstimate);
}

#[test]
fn r8_1_appends_after_the_recalibration_add_their_estimate() {
    let mut e = Engine::new(Preset::Seed.settings(200_000)).unwrap();
    session(&mut e, 4, 1_000);
    let _ = e.prompt_too_long_at(150_000);
    e.append(Message::user("late", "w".repeat(4_000))).unwrap();
    let count = e.count().tokens;
    assert!((150_900..151_200).contains(&count), "{count}");
}

/// The count after two reports that each found the text since the last one
/// twice its estimate (a tokenizer that splits this text finer), and then
/// `late` estimated tokens more, at this window.
fn calibrated_count(window: u64, late: usize) -> u64 {
    use compaction_core::message::Usage;
    let mut s = Preset::Seed.settings(window);
    s.thresholds.max_output_tokens = Some(1_024);
    let mut e = Engine::new(s).unwrap();
    let reply = |uuid: &str, input_tokens: u64| {
        let mut m = Message::assistant(uuid, "ok");
        m.usage = Some(Box::new(Usage {
            input_tokens,
            output_tokens: 1,
            ..Usage::default()
        }));
        m
    };
    e.append(Message::user("u1", "start")).unwrap();
    e.append(reply("a1", 100)).unwrap();
    // 600 estimated tokens (2,400 characters), which the server counts at 1,200.
    e.append(Message::user("u2", "w".repeat(2_400))).unwrap();
    e.append(reply("a2", 1_301)).unwrap();
    e.append(Message::user("u3", "w".repeat(late * 4))).unwrap();
    e.count().tokens
}

#[test]
fn r1_6a_a_small_window_calibrates_from_a_twentieth_of_it() {
    // At 8,192 the calibration starts after 409 compared tokens: the 600
    // of the last report suffice, and the 400 appended since count double.
    let small = calibrated_count(8_192, 400);
    assert!((2_090..2_120).contains(&small), "{small}");
    // At 200,000 it waits for 2,000: the same 400 count at their estimate.
    let large = calibrated_count(200_000, 400);
    assert!((1_690..1_720).contains(&large), "{large}");
}
