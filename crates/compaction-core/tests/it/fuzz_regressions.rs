//! Regression tests for panics found by the `engine_ops`, `parse_summary`,
//! `transcript_import` and `message_json` fuzz targets
//! (`crates/compaction-fuzz`). Each test replays a minimised crash input as
//! the equivalent explicit sequence of public calls; the input itself is
//! kept under `crates/compaction-fuzz/regressions/`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test helpers may fail loudly

use crate::common::{split, Allow, Stage};
use compaction_core::engine::Answer;
use compaction_core::engine::Preset;
use compaction_core::engine::{Engine, Sidecar, SidecarCheck};
use compaction_core::groups::pairing_is_legal;
use compaction_core::message::{Block, Content, Message, Role, Usage};
use compaction_core::time::Timestamp;

/// `engine_ops` crash-699b5179: a sidecar written near the start of `i64`
/// milliseconds, loaded "now" near its end: the age subtraction overflowed
/// (`attempt to subtract with overflow`, precompute.rs). It must be
/// rejected as too old.
#[test]
fn load_sidecar_with_extreme_created_at_is_rejected_not_a_panic() {
    let mut e = Engine::new(Preset::Seed.settings(200_000)).unwrap();
    let sidecar = Sidecar {
        session_id: "session".into(),
        model: e.settings().compact.model.clone(),
        client_version: "2.1.0".into(),
        created_at: Timestamp::from_unix_ms(-7_161_677_110_969_605_277),
        tokens_at: 44_627_394_559,
        history_len: 0,
        summarised: Vec::new(),
        reply: String::new(),
    };
    let now = Timestamp::from_unix_ms(7_152_594_043_745_075_200);
    let check = e.load_sidecar(sidecar, "session", &now);
    match check {
        SidecarCheck::Rejected { reason } => assert!(reason.contains("days old"), "{reason}"),
        other => panic!("expected a rejection for age, got {other:?}"),
    }
}

/// `engine_ops` crash-76f8ee79 (minimised to 161 bytes): a reactive
/// compaction (`prompt_too_long`) waits for its summary; the next
/// `before_call` snips (Tier 2) turns out of the view that the pending
/// run's prefix indexes into, and building the run's request sliced past
/// the end of the view (`range end index 2 out of range for slice of length
/// 1`, compact/mod.rs `prefix_messages`). Snip must leave a view that a
/// pending compaction is cutting alone; the run then finishes normally.
#[test]
fn before_call_while_a_compaction_is_pending_does_not_snip_its_prefix() {
    let mut e = Engine::new(Preset::NewerClient.settings(100_000)).unwrap();
    let mut answer = Message::new(
        "a",
        Role::Assistant,
        Content::Blocks(vec![
            Block::Thinking {
                thinking: "hmm".into(),
                extra: Default::default(),
            },
            Block::text("x".repeat(13_110)),
        ]),
    );
    answer.usage = Some(Box::new(Usage {
        input_tokens: 858_993_459,
        output_tokens: 10,
        cache_creation_input_tokens: 858_993_459,
        cache_read_input_tokens: 3_486_921_267,
    }));
    e.append(answer).unwrap();
    e.append(Message::new(
        "p",
        Role::User,
        Content::Blocks(vec![Block::text("next")]),
    ))
    .unwrap();
    let mut extra = compaction_core::message::Extra::new();
    extra.insert(
        "source".into(),
        compaction_core::message::Json::from_value(&serde_json::json!({"type": "base64", "data": "AAAA"})),
    );
    e.append(Message::new(
        "img",
        Role::User,
        Content::Blocks(vec![Block::Image { extra }]),
    ))
    .unwrap();
    let (_, progress) = split(e.prompt_too_long().allowed(&mut e));
    let Stage::NeedsSummary { request } = progress else {
        panic!("expected a summary request, got {progress:?}");
    };
    let decision = e.before_call(Some(&Timestamp::from_unix_ms(0)));
    let sent: Vec<Message> = e.view().sent_messages().cloned().collect();
    assert!(pairing_is_legal(&sent).is_ok());
    // The run is still the one waiting, and its answer is taken.
    assert!(
        matches!(crate::common::stage(&decision.requests, decision.compaction), Stage::NeedsSummary { request: ref r } if r.id == request.id)
    );
    let (_, done) = e
        .answer(request.id, Answer::text("<summary>done</summary>"))
        .map(split)
        .unwrap();
    assert!(
        matches!(done, Stage::Compacted { .. } | Stage::NeedsFiles { .. }),
        "{done:?}"
    );
    assert_eq!(e.store().len(), 3);
}

/// `engine_ops` crash-ca5a4d20 (minimised to 120 bytes): an assistant
/// message stamped far in the future, then a call whose "now" is far in the
/// past: Tier 1's idle gap (`now − last assistant`) overflowed
/// (`attempt to subtract with overflow`, microcompact.rs). Timestamps are
/// input; both directions must give a decision.
#[test]
fn idle_gap_between_extreme_timestamps_is_not_a_panic() {
    for (stamped, now) in [
        (3_165_749_798_232_089_443, -8_825_501_086_245_354_107),
        (-8_825_501_086_245_354_107, 3_165_749_798_232_089_443),
    ] {
        let mut e = Engine::new(Preset::Seed.settings(131_082)).unwrap();
        let mut m = Message::new("a", Role::Assistant, Content::Blocks(Vec::new()));
        m.timestamp = Some(Timestamp::from_unix_ms(stamped));
        e.append(m).unwrap();
        let now = Timestamp::from_unix_ms(now);
        let planned = e.plan(Some(&now));
        let decided = e.before_call(Some(&now));
        assert_eq!(planned, decided);
    }
}

/// `engine_ops` crash-06e0d073 (minimised to 209 bytes): Tier 3 asks for
/// segment summaries, a reactive compaction (`prompt_too_long`) starts and
/// waits, then a segment answer collapses turns inside the run's prefix.
/// `pending_request()` (which `before_call` also calls) rebuilt the run's
/// request from view positions that no longer exist (`range end index 4
/// out of range for slice of length 3`, compact/mod.rs `prefix_messages`).
/// A run whose view moved has nothing valid to ask for; its answer reports
/// it abandoned.
#[test]
fn pending_request_after_a_collapse_moved_the_view_is_not_a_panic() {
    let mut s = Preset::Seed.settings(100_000);
    s.snip = false;
    s.thresholds.override_pct = Some(26.0); // Tier 3 starts over the compact line
    s.thresholds.warn_margin = 0;
    s.collapse.start_pct = 1;
    s.collapse.blocking_pct = 1;
    s.collapse.segment_turns = 1;
    s.collapse.min_segment_turns = 1;
    s.collapse.keep_recent_turns = 0;
    let mut e = Engine::new(s).unwrap();
    for t in 0..4 {
        e.append(Message::user(format!("p{t}"), "x".repeat(12_000)))
            .unwrap();
        e.append(Message::assistant(format!("a{t}"), "y".repeat(12_000)))
            .unwrap();
    }
    let decision = e.before_call(None);
    assert!(
        !crate::common::segments(&decision.requests).is_empty(),
        "Tier 3 asks for segment summaries"
    );
    // R8.1: the first 413 asks for the pending segments again (collapse
    // overflow recovery); left unanswered, the second compacts.
    let (_, progress) = split(e.prompt_too_long().allowed(&mut e));
    assert!(matches!(progress, Stage::NeedsCollapse { .. }), "{progress:?}");
    let (_, progress) = split(e.prompt_too_long().allowed(&mut e));
    let Stage::NeedsSummary { request } = progress else {
        panic!("expected a summary request, got {progress:?}");
    };
    assert!(crate::common::segments(&decision.requests).len() >= 2);
    for segment in &crate::common::segments(&decision.requests) {
        e.answer(segment.id, Answer::Offline).map(|o| o.steps).unwrap();
    }
    let _ = e.requests();
    let _ = e.plan(None);
    let _ = e.before_call(None);
    let sent: Vec<Message> = e.view().sent_messages().cloned().collect();
    assert!(pairing_is_legal(&sent).is_ok());
    // The old run's answer is refused or reports the run abandoned; the store is untouched.
    if let Ok((_, p)) = e
        .answer(request.id, Answer::text("<summary>x</summary>"))
        .map(split)
    {
        assert!(matches!(p, Stage::Failed { .. }), "{p:?}");
    }
    assert_eq!(e.store().len(), 8);
}

/// Found by `engine_ops` (crash-6c17dd83): a `tool_use` still waiting for
/// its result was summarised away by a reactive compaction, and the result
/// that arrived afterwards had no call before it in the view. No cut may
/// fall after a waiting `tool_use`.
#[test]
fn a_waiting_tool_use_is_never_cut_from_its_future_result() {
    use compaction_core::groups::pairing_is_legal;
    use compaction_core::message::{Block, Content, Message, Role, ToolResultContent};
    let mut e = compaction_core::engine::Engine::new(compaction_core::engine::Preset::Seed.settings(200_000))
        .unwrap();
    e.append(Message::new(
        "call",
        Role::Assistant,
        Content::Blocks(vec![Block::ToolUse {
            id: "toolu_1".into(),
            name: "Read".into(),
            input: compaction_core::message::Json::empty_object(),
            extra: Default::default(),
        }]),
    ))
    .unwrap();
    e.append(Message::user("text", "x".repeat(12_343))).unwrap();
    let (_, p) = split(e.prompt_too_long().allowed(&mut e));
    if let Stage::NeedsSummary { request } = p {
        e.answer(request.id, Answer::text("done")).map(split).unwrap();
    }
    e.append(Message::new(
        "result",
        Role::User,
        Content::Blocks(vec![Block::ToolResult {
            tool_use_id: "toolu_1".into(),
            content: ToolResultContent::Text(String::new()),
            is_error: None,
            extra: Default::default(),
        }]),
    ))
    .unwrap();
    let sent: Vec<Message> = e.view().sent_messages().cloned().collect();
    pairing_is_legal(&sent).unwrap();
}
