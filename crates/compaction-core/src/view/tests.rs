//! Unit tests of the active view (R1.6, R1.6a).

use super::*;
use crate::message::Usage;

fn msg(uuid: &str, chars: usize) -> Arc<Message> {
    Arc::new(Message::user(uuid, "x".repeat(chars)))
}

fn with_usage(uuid: &str, chars: usize, prompt: u64) -> Arc<Message> {
    let mut m = Message::assistant(uuid, "y".repeat(chars));
    m.usage = Some(Box::new(Usage {
        input_tokens: prompt,
        ..Usage::default()
    }));
    Arc::new(m)
}

#[test]
fn r1_6_without_usage_the_whole_view_is_estimated() {
    let mut v = View::new(Estimator::default());
    v.push(msg("a", 400), Source::Stored, vec![]);
    assert_eq!(
        v.count(50),
        TokenFigure {
            tokens: 150,
            basis: Basis::Estimated
        }
    );
}

#[test]
fn r1_6_last_usage_plus_estimate_of_what_followed() {
    let mut v = View::new(Estimator::default());
    v.push(msg("a", 4_000), Source::Stored, vec![]);
    v.push(with_usage("b", 40, 5_000), Source::Stored, vec![]);
    v.push(msg("c", 80), Source::Stored, vec![]);
    // 5,000 reported + the reply (10) + the new message (20).
    assert_eq!(
        v.count(999),
        TokenFigure {
            tokens: 5_030,
            basis: Basis::ReportedPlusEstimate
        }
    );
}

#[test]
fn r1_6_the_replys_reported_output_counts_when_bigger_than_its_estimate() {
    let mut v = View::new(Estimator::default());
    let mut reply = Message::assistant("b", "y".repeat(40)); // 10 estimated
    reply.usage = Some(Box::new(Usage {
        input_tokens: 5_000,
        output_tokens: 900,
        ..Usage::default()
    }));
    v.push(Arc::new(reply), Source::Stored, vec![]);
    assert_eq!(v.count(0).tokens, 5_000 + 900);
}

#[test]
fn r1_6_a_snapshot_output_counts_the_replys_calls_and_signed_thinking() {
    use crate::message::{Block, Content, Extra, Json};
    let mut v = View::new(Estimator::default());
    let mut signature = Extra::new();
    signature.insert(
        "signature".to_owned(),
        Json::from_value(&serde_json::Value::String("s".repeat(256 + 5_000))),
    );
    let mut reply = Message::assistant("b", "");
    reply.content = Content::Blocks(vec![
        // 40 characters of shown thinking: 10, but the signature says 1,000.
        Block::Thinking {
            thinking: "t".repeat(40),
            extra: signature,
        },
        Block::ToolUse {
            id: "toolu_1".to_owned(),
            name: "Read".to_owned(),
            input: Json::from_value(&serde_json::json!({})),
            extra: Extra::new(),
        },
    ]);
    // A streaming snapshot: 3 output tokens recorded.
    reply.usage = Some(Box::new(Usage {
        input_tokens: 5_000,
        output_tokens: 3,
        ..Usage::default()
    }));
    v.push(Arc::new(reply), Source::Stored, vec![]);
    // Read (1) + {} (1) + the call's framing (87) + the thinking (1,000).
    assert_eq!(v.count(0).tokens, 5_000 + 1 + 1 + 87 + 1_000);
}

#[test]
fn r1_6_freeing_before_the_request_lowers_the_reported_part() {
    let mut v = View::new(Estimator::default());
    v.push(msg("a", 4_000), Source::Stored, vec![]);
    v.push(with_usage("b", 40, 5_000), Source::Stored, vec![]);
    v.patch(0, msg("a", 40), &[0]);
    assert_eq!(v.count(0).tokens, 5_000 - 990 + 10);
    v.remove(0..1);
    assert_eq!(v.count(0).tokens, 5_000 - 1_000 + 10);
}

#[test]
fn r1_6_a_streaming_snapshot_smaller_than_the_reply_counts_the_estimate() {
    let mut v = View::new(Estimator::default());
    let mut reply = Message::assistant("b", "y".repeat(4_000)); // 1,000 estimated
    reply.usage = Some(Box::new(Usage {
        input_tokens: 5_000,
        output_tokens: 3, // a streaming snapshot
        ..Usage::default()
    }));
    v.push(Arc::new(reply), Source::Stored, vec![]);
    assert_eq!(v.count(0).tokens, 5_000 + 1_000);
}

#[test]
fn r1_6_a_snapshot_taken_as_it_stands_leaves_the_replys_content_out() {
    // Claude Code 2.1.14 – 2.1.29 counted a reply's usage as recorded.
    let mut v = View::new(Estimator {
        reported_output_as_is: true,
        ..Estimator::claude_code()
    });
    let mut reply = Message::assistant("b", "y".repeat(4_000)); // 1,000 estimated
    reply.usage = Some(Box::new(Usage {
        input_tokens: 5_000,
        output_tokens: 3, // a streaming snapshot
        ..Usage::default()
    }));
    v.push(Arc::new(reply), Source::Stored, vec![]);
    v.push(msg("c", 80), Source::Stored, vec![]);
    // The snapshot (3), not the reply's 1,000, and what followed (20).
    assert_eq!(v.count(0).tokens, 5_000 + 3 + 20);
    // A larger report counts as reported either way.
    let mut reply = Message::assistant("d", "y".repeat(40));
    reply.usage = Some(Box::new(Usage {
        input_tokens: 6_000,
        output_tokens: 900,
        ..Usage::default()
    }));
    v.push(Arc::new(reply), Source::Stored, vec![]);
    assert_eq!(v.count(0).tokens, 6_000 + 900);
}

#[test]
fn r1_6a_reported_usage_calibrates_the_estimate_since() {
    let mut v = View::new(Estimator::default());
    v.push(with_usage("a", 40, 10_000), Source::Stored, vec![]);
    // 2,990 estimated after the report (10 + 2,980); the next report
    // says they were 4,485 tokens: a factor of 1.5.
    v.push(msg("b", 11_920), Source::Stored, vec![]);
    v.push(with_usage("c", 40, 14_485), Source::Stored, vec![]);
    assert_eq!(
        v.calibration(),
        Calibration {
            real: 4_485,
            estimated: 2_990
        }
    );
    v.push(msg("d", 4_000), Source::Stored, vec![]);
    // 14,485 + (10 + 1,000) × 1.5, rounded up.
    assert_eq!(v.count(0).tokens, 14_485 + 1_515);
    // Off: the raw estimate.
    let mut off = View::new(Estimator {
        calibrate: false,
        ..Estimator::default()
    });
    for m in [
        with_usage("a", 40, 10_000),
        msg("b", 11_920),
        with_usage("c", 40, 14_485),
        msg("d", 4_000),
    ] {
        off.push(m, Source::Stored, vec![]);
    }
    assert_eq!(off.count(0).tokens, 14_485 + 1_010);
}

#[test]
fn r1_6a_a_compactions_new_view_compares_no_report_twice() {
    let mut v = View::new(Estimator::default());
    v.push(with_usage("a", 40, 10_000), Source::Stored, vec![]);
    v.push(msg("b", 11_920), Source::Stored, vec![]);
    v.push(with_usage("c", 40, 14_485), Source::Stored, vec![]);
    let before = v.calibration();
    assert_eq!(before.real, 4_485);
    // A summary, then the kept tail: "b" between the two reports again.
    v.replace(vec![
        (msg("summary", 400), Source::Stored),
        (with_usage("a", 40, 10_000), Source::Stored),
        (msg("b", 11_920), Source::Stored),
        (with_usage("c", 40, 14_485), Source::Stored),
    ]);
    assert_eq!(v.calibration(), before, "the pair a..c was compared once already");
}

#[test]
fn r1_6a_calibration_waits_for_enough_tokens_and_is_clamped() {
    let estimator = Estimator::default();
    // Under 2,000 estimated tokens compared: no correction.
    let few = Calibration {
        real: 9_000,
        estimated: 1_999,
    };
    assert_eq!(few.apply(1_000, &estimator), 1_000);
    // Real four times the estimate: at most double.
    let high = Calibration {
        real: 8_000,
        estimated: 2_000,
    };
    assert_eq!(high.apply(1_000, &estimator), 2_000);
    let low = Calibration {
        real: 100,
        estimated: 2_000,
    };
    assert_eq!(low.apply(1_000, &estimator), 500);
}

#[test]
fn r1_6a_a_shrunk_prompt_or_an_edit_between_reports_is_no_sample() {
    let mut v = View::new(Estimator::default());
    v.push(with_usage("a", 40, 10_000), Source::Stored, vec![]);
    v.push(msg("b", 11_920), Source::Stored, vec![]);
    // The server cleared: the prompt shrank.
    v.push(with_usage("c", 40, 9_000), Source::Stored, vec![]);
    assert_eq!(v.calibration(), Calibration::default());
    v.push(msg("d", 4_000), Source::Stored, vec![]);
    v.patch(0, msg("a", 4), &[0]); // before the report: a rewrite
    v.push(with_usage("e", 40, 12_000), Source::Stored, vec![]);
    assert_eq!(v.calibration(), Calibration::default());
}

#[test]
fn r1_6a_an_uncalibrated_margin_covers_a_provider_counting_more() {
    let estimator = Estimator {
        uncalibrated_margin_pct: 15,
        ..Estimator::default()
    };
    // No usage at all: the whole estimate (system included) plus 15 %.
    let mut v = View::new(estimator.clone());
    v.push(msg("a", 40_000), Source::Stored, vec![]);
    // 10,000 estimated + 1,000 system, plus 15 %.
    assert_eq!(v.count(1_000).tokens, 12_650);
    // A provider counting 10 % over characters / 4 is under the count.
    assert!(12_100 <= v.count(1_000).tokens);
    // The margin shrinks with the tokens compared: half-way to the
    // calibration's 2,000, half the margin; gone once calibrated.
    let half = Calibration {
        real: 1_100,
        estimated: 1_000,
    };
    assert_eq!(half.apply(10_000, &estimator), 10_750);
    let full = Calibration {
        real: 2_200,
        estimated: 2_000,
    };
    assert_eq!(full.apply(10_000, &estimator), 11_000);
    // Off without calibration (a replay counts as the client did).
    let off = Estimator {
        calibrate: false,
        ..estimator
    };
    assert_eq!(half.apply(10_000, &off), 10_000);
    // The default keeps Claude Code's count.
    assert_eq!(half.apply(10_000, &Estimator::default()), 10_000);
}
