//! Precomputed summaries (SPEC R9) through the public engine API.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test helpers may fail loudly

use crate::common::{split, Allow, Stage};
use compaction_core::compact::{CompactOptions, HookOutcome, Purpose};
use compaction_core::engine::Answer;
use compaction_core::engine::{Engine, SidecarCheck};
use compaction_core::engine::{EngineSettings, Preset};
use compaction_core::message::Message;
use compaction_core::time::Timestamp;

fn settings() -> EngineSettings {
    let mut s = Preset::Seed.settings(200_000);
    s.snip = false;
    s.collapse.enabled = false;
    s
}

fn turns(e: &mut Engine, from: usize, to: usize, tokens: usize) {
    for t in from..to {
        e.append(Message::user(format!("p{t}"), format!("step {t}")))
            .unwrap();
        e.append(Message::assistant(format!("a{t}"), "w".repeat(tokens * 4 - 8)))
            .unwrap();
    }
}

/// An engine past the precompute line (144,000) with its precompute answered.
fn precomputed() -> (Engine, usize) {
    let mut e = Engine::new(settings()).unwrap();
    turns(&mut e, 0, 15, 10_000); // 150,000
    let d = e.before_call(None);
    let request = crate::common::precompute_of(&d.requests).expect("R9.1: asked at the precompute line");
    assert_eq!(request.purpose, Purpose::Precompute);
    assert!(d
        .steps
        .iter()
        .any(|s| s.rule == "R9" && s.reason.contains("background")));
    let summarised = request.messages.len();
    let before: Vec<Message> = e.view().sent_messages().cloned().collect();
    e.answer(request.id, Answer::text("<summary>steps 0 to 12</summary>"))
        .map(|o| o.steps)
        .unwrap();
    assert_eq!(
        e.view().sent_messages().cloned().collect::<Vec<_>>(),
        before,
        "the view does not change"
    );
    (e, summarised)
}

#[test]
fn r9_2_hit_reuses_the_summary_and_messages_since_join_the_tail() {
    let (mut e, summarised) = precomputed();
    assert_eq!(summarised, 26, "all but the two most recent turns");
    turns(&mut e, 15, 17, 10_000); // over the compact line: auto compaction
    let d = e.before_call(None);
    // The hit is taken once the PreCompact hooks allow the compaction.
    let (steps, stage) = crate::common::begun(&mut e, &d);
    let hit = steps.iter().find(|s| s.rule == "R9").unwrap();
    assert!(hit.reason.contains("precompute hit"), "{}", hit.reason);
    assert_eq!(hit.model_calls, 0);
    let Stage::Compacted { result } = stage else {
        panic!("no summary call on a hit: {stage:?}")
    };
    // R9.4: exactly the summarised messages are swapped; the 4 + 4 since stay.
    assert_eq!(
        result.boundary.compact_metadata.preserved_messages.len(),
        34 - summarised
    );
    assert!(result.summary.message.content.contains("steps 0 to 12"));
}

#[test]
fn r9_2_new_instructions_or_hook_requirements_miss() {
    let (mut e, _) = precomputed();
    let (steps, p) = split(
        e.compact(CompactOptions {
            instructions: Some("focus on the API".into()),
        })
        .allowed(&mut e),
    );
    assert!(steps
        .iter()
        .any(|s| s.reason == "precompute miss: the user gave new instructions"));
    assert!(matches!(p, Stage::NeedsSummary { .. }));

    let (mut e, _) = precomputed();
    let hook = HookOutcome {
        block: None,
        added_instructions: vec!["list tickets".into()],
    };
    let (steps, _) = split(
        e.compact(CompactOptions { instructions: None })
            .hooked(&mut e, hook),
    );
    assert!(steps
        .iter()
        .any(|s| s.reason == "precompute miss: a hook added requirements"));
}

#[test]
fn r9_2_the_point_gone_is_a_miss() {
    let mut s = settings();
    s.snip = true;
    let mut e = Engine::new(s).unwrap();
    turns(&mut e, 0, 15, 10_000);
    let request = crate::common::precompute_of(&e.before_call(None).requests).unwrap();
    e.answer(request.id, Answer::text("<summary>early work</summary>"))
        .map(|o| o.steps)
        .unwrap();
    // Over the compact line: Tier 2 snips the oldest turns, and with them
    // the start of what was precomputed.
    turns(&mut e, 15, 17, 10_000);
    let d = e.before_call(None);
    assert!(d.steps.iter().any(|s| s.rule == "R5.1"));
    let (steps, p) = split(e.compact(CompactOptions::default()).allowed(&mut e));
    assert!(steps.iter().any(|s| s
        .reason
        .contains("precompute miss: its messages no longer open the view")));
    assert!(
        matches!(p, Stage::NeedsSummary { .. }),
        "a miss asks for a new summary"
    );
}

#[test]
fn r9_3_sidecar_checks() {
    let (e, _) = precomputed();
    let now = Timestamp::parse("2026-11-29T12:00:00Z").unwrap();
    let sidecar = e.sidecar("session-1", "2.1.235", &now).unwrap();
    let fresh = || {
        let mut e = Engine::new(settings()).unwrap();
        turns(&mut e, 0, 15, 10_000);
        e
    };
    assert_eq!(
        fresh().load_sidecar(sidecar.clone(), "session-1", &now),
        SidecarCheck::Loaded
    );
    let rejected = |mut e: Engine, s, session: &str, now: &Timestamp| match e.load_sidecar(s, session, now) {
        SidecarCheck::Rejected { reason } => reason,
        SidecarCheck::Loaded => panic!("loaded"),
    };
    assert!(rejected(fresh(), sidecar.clone(), "session-2", &now).contains("another session"));
    let mut other_model = sidecar.clone();
    other_model.model = "other".into();
    assert!(rejected(fresh(), other_model, "session-1", &now).contains("another model"));
    let later = Timestamp::parse("2026-12-07T12:00:01Z").unwrap();
    assert!(rejected(fresh(), sidecar.clone(), "session-1", &later).contains("days old"));
    let mut grown = fresh();
    turns(&mut grown, 15, 31, 10_000);
    assert!(rejected(grown, sidecar.clone(), "session-1", &now).contains("grew"));
    let mut gone = sidecar.clone();
    gone.summarised.push("nowhere".into());
    assert!(rejected(fresh(), gone, "session-1", &now).contains("gone"));
    let mut shrunk = Engine::new(settings()).unwrap();
    turns(&mut shrunk, 0, 7, 10_000);
    assert!(rejected(shrunk, sidecar.clone(), "session-1", &now).contains("shrank"));
    // The client version alone is no reason to reject.
    let mut version = sidecar;
    version.client_version = "9.9.9".into();
    assert_eq!(
        fresh().load_sidecar(version, "session-1", &now),
        SidecarCheck::Loaded
    );
}

fn uuids(e: &Engine) -> Vec<compaction_core::message::Uuid> {
    e.view()
        .entries()
        .iter()
        .map(|en| en.message.uuid.clone())
        .collect()
}

#[test]
fn r9_4_a_summary_made_elsewhere_replaces_exactly_what_it_was_given() {
    use compaction_core::view::Source;
    let mut e = Engine::new(settings()).unwrap();
    turns(&mut e, 0, 6, 1_000);
    // The host sent the first 8 messages to the API's background
    // compaction; 4 more arrived meanwhile.
    let sent: Vec<_> = uuids(&e)[..8].to_vec();
    let since: Vec<_> = uuids(&e)[8..].to_vec();
    let (steps, p) = split(e.swap_in_summary(&sent, "<summary>turns 0 to 3</summary>"));
    assert_eq!(steps[0].rule, "R9.4");
    assert_eq!(steps[0].messages, sent);
    assert!(matches!(p, Stage::Compacted { .. }), "{p:?}");
    let after = uuids(&e);
    assert!(matches!(&e.view().entries()[0].source, Source::Summary { replaces } if replaces == &sent));
    assert_eq!(after[1..1 + since.len()], since[..], "the rest stays, in order");
    assert!(e.view().entries()[1 + since.len()..]
        .iter()
        .all(|en| en.source == Source::Attachment));
}

#[test]
fn r9_4_a_summary_that_no_longer_fits_the_view_changes_nothing() {
    let mut e = Engine::new(settings()).unwrap();
    turns(&mut e, 0, 6, 1_000);
    let all = uuids(&e);
    let cases: Vec<(Vec<_>, &str)> = vec![
        (all[1..4].to_vec(), "no longer open the view"),
        (Vec::new(), "no longer open the view"),
        (
            [all.clone(), vec!["gone".into()]].concat(),
            "no longer open the view",
        ),
    ];
    for (summarised, why) in cases {
        let before: Vec<Message> = e.view().sent_messages().cloned().collect();
        let (steps, p) = split(e.swap_in_summary(&summarised, "<summary>x</summary>"));
        assert!(
            matches!(&p, Stage::Failed { reason } if reason.contains(why)),
            "{p:?}"
        );
        assert_eq!(steps[0].rule, "R9.4");
        assert_eq!(e.view().sent_messages().cloned().collect::<Vec<_>>(), before);
    }
    // A compaction waiting for its answer refuses the swap.
    let (_, p) = split(e.compact(CompactOptions::default()).allowed(&mut e));
    assert!(matches!(p, Stage::NeedsSummary { .. }));
    let (_, p) = split(e.swap_in_summary(&all[..2], "<summary>x</summary>"));
    assert!(
        matches!(&p, Stage::Failed { reason } if reason.contains("already waiting")),
        "{p:?}"
    );
}

#[test]
fn r9_4_the_swap_never_cuts_a_tool_pair() {
    use compaction_core::message::{Block, Content, Role, ToolResultContent};
    let mut e = Engine::new(settings()).unwrap();
    e.append(Message::user("ask", "read it")).unwrap();
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
    e.append(Message::new(
        "result",
        Role::User,
        Content::Blocks(vec![Block::ToolResult {
            tool_use_id: "toolu_1".into(),
            content: ToolResultContent::Text("x".into()),
            is_error: None,
            extra: Default::default(),
        }]),
    ))
    .unwrap();
    e.append(Message::assistant("done", "ok")).unwrap();
    let (_, p) = split(e.swap_in_summary(&uuids(&e)[..2], "<summary>x</summary>"));
    assert!(
        matches!(&p, Stage::Failed { reason } if reason.contains("tool_use/tool_result")),
        "{p:?}"
    );
    let (_, p) = split(e.swap_in_summary(&uuids(&e)[..3], "<summary>x</summary>"));
    assert!(matches!(p, Stage::Compacted { .. }), "{p:?}");
}
