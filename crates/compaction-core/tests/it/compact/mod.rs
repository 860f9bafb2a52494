//! Tier 4 and its neighbours through the public engine API: manual and
//! automatic compaction as a sans-IO exchange (SPEC R3.2, R7.1–R7.12), the
//! breakers (R10), and the reactive tier (R8) in [`reactive`].

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test helpers may fail loudly

mod reactive;

use crate::common::{files, split, Allow, Stage};
use compaction_core::breakers::Open;
use compaction_core::compact::attachments::Status;
use compaction_core::compact::{CompactOptions, FileAnswer, HookOutcome, Trigger};
use compaction_core::engine::Answer;
use compaction_core::engine::Engine;
use compaction_core::engine::{EngineSettings, Preset};
use compaction_core::groups::pairing_is_legal;
use compaction_core::message::{Block, Content, Message, Role, ToolResultContent, Usage};
use compaction_core::view::Source;
use compaction_core::Error;
use serde_json::json;

fn settings() -> EngineSettings {
    Preset::Seed.settings(200_000)
}

/// Seed 002's session in miniature: prompts, a Grep, Reads of files, a
/// correction, more Reads, an assistant judgement.
fn session(engine: &mut Engine) {
    let mut n = 0;
    let mut tool = |engine: &mut Engine, name: &str, path: &str, result: &str| {
        n += 1;
        let id = format!("toolu_{n}");
        let mut call = Message::new(
            format!("call-{n}"),
            Role::Assistant,
            Content::Blocks(vec![Block::ToolUse {
                id: id.clone(),
                name: name.into(),
                input: compaction_core::message::Json::from_value(&json!({"file_path": path})),
                extra: Default::default(),
            }]),
        );
        call.usage = Some(Box::new(Usage {
            input_tokens: 1_000 * n,
            output_tokens: 50,
            ..Usage::default()
        }));
        engine.append(call).unwrap();
        engine
            .append(Message::new(
                format!("result-{n}"),
                Role::User,
                Content::Blocks(vec![Block::ToolResult {
                    tool_use_id: id,
                    content: ToolResultContent::Text(result.into()),
                    is_error: None,
                    extra: Default::default(),
                }]),
            ))
            .unwrap();
    };
    engine
        .append(Message::user("ask", "Find out what /compact does in 2.1.235."))
        .unwrap();
    tool(
        engine,
        "Grep",
        "reverse/javascript/cli.readable.js",
        "261902 CRITICAL: Respond with TEXT ONLY.",
    );
    tool(
        engine,
        "Read",
        "reverse/javascript/cli.readable.js",
        "function IzS(text) { ... }",
    );
    engine
        .append(Message::user(
            "correct",
            "Do not only analyse the prompt; check preserved messages too.",
        ))
        .unwrap();
    tool(
        engine,
        "Read",
        "analysis/runtime-probes/agent-loop-tool-result-resume.json",
        "{\"probe\": true}",
    );
    tool(engine, "Edit", "docs/compact.md", "ok");
    engine
        .append(Message::assistant(
            "judgement",
            "Boundary keeps pre/post tokens and preserved uuids.",
        ))
        .unwrap();
}

fn needs_summary(p: &Stage) -> u64 {
    match p {
        Stage::NeedsSummary { request } => request.id,
        other => panic!("expected a summary request, got {other:?}"),
    }
}

fn view(engine: &Engine) -> Vec<Message> {
    engine.view().sent_messages().cloned().collect()
}

#[test]
fn r7_manual_compact_offline_end_to_end() {
    let mut e = Engine::new(settings()).unwrap();
    session(&mut e);
    let store_before = e.store().len();
    let (steps, p) = split(
        e.compact(CompactOptions {
            instructions: Some("keep the probe results".into()),
        })
        .allowed(&mut e),
    );
    let rules: Vec<_> = steps.iter().map(|s| s.rule).collect();
    assert_eq!(rules, ["R7.5", "R7.3"]);
    let Stage::NeedsSummary { request } = &p else {
        panic!("{p:?}")
    };
    assert!(request
        .prompt
        .starts_with("CRITICAL: Respond with TEXT ONLY. Do NOT call any tools."));
    assert!(request.prompt.contains("keep the probe results"));
    assert_eq!(request.messages.len(), 10, "all but the last legal group");
    assert_eq!(&*request.model, "session-model");

    let (steps, p) = e.answer(request.id, Answer::Offline).map(split).unwrap();
    assert_eq!(steps.iter().map(|s| s.rule).collect::<Vec<_>>(), ["R7.3", "R7.4"]);
    let Stage::NeedsFiles { request: files } = &p else {
        panic!("{p:?}")
    };
    assert_eq!(
        files.paths,
        [
            "docs/compact.md",
            "analysis/runtime-probes/agent-loop-tool-result-resume.json",
            "reverse/javascript/cli.readable.js"
        ]
    );
    // The old view is still in force while the engine waits.
    assert_eq!(e.view().len(), 11);

    let answers = [
        FileAnswer {
            path: "docs/compact.md".into(),
            content: Ok("# /compact\n".into()),
        },
        FileAnswer {
            path: "reverse/javascript/cli.readable.js".into(),
            content: Err("ENOENT".into()),
        },
    ];
    let (steps, p) = e
        .answer(files.id, crate::common::files(&answers))
        .map(split)
        .unwrap();
    assert_eq!(steps.iter().map(|s| s.rule).collect::<Vec<_>>(), ["R7.7", "R7.9"]);
    let Stage::Compacted { result } = p else {
        panic!("{p:?}")
    };
    let statuses: Vec<_> = result
        .attachments
        .iter()
        .map(|c| (c.path.as_str(), &c.status))
        .collect();
    assert!(matches!(
        statuses[0],
        ("docs/compact.md", Status::Restored { cut: false, .. })
    ));
    assert!(
        matches!(statuses[1], (_, Status::Failed { .. })),
        "not answered counts as failed"
    );
    assert!(matches!(statuses[2], (_, Status::Failed { reason }) if reason == "ENOENT"));

    // R7.8: summary, preserved, attachments.
    let v = view(&e);
    assert!(matches!(e.view().entries()[0].source, Source::Summary { .. }));
    assert!(v[0].content == Content::Text(result.summary.message.content.clone()));
    assert_eq!(v[1].uuid, "judgement".into(), "the last legal group is preserved");
    assert!(matches!(e.view().entries()[2].source, Source::Attachment));
    assert_eq!(v.len(), 3);
    pairing_is_legal(&v).unwrap();
    // R7.9: the boundary.
    let b = serde_json::to_value(&result.boundary).unwrap();
    assert_eq!(b["type"], "system");
    assert_eq!(b["subtype"], "compact_boundary");
    assert_eq!(b["parentUuid"], serde_json::Value::Null);
    assert_eq!(b["logicalParentUuid"], "judgement");
    assert_eq!(b["compactMetadata"]["trigger"], "manual");
    assert_eq!(b["compactMetadata"]["preservedMessages"], json!(["judgement"]));
    assert!(
        b["compactMetadata"]["preTokens"].as_u64().unwrap()
            > b["compactMetadata"]["postTokens"].as_u64().unwrap()
    );
    assert_eq!(
        serde_json::to_value(&result.summary).unwrap()["isCompactSummary"],
        true
    );
    assert!(result.retention.is_complete());
    assert_eq!(
        e.store().len(),
        store_before,
        "compaction adds nothing to the store and changes nothing in it"
    );
}

#[test]
fn r7_6_preserved_assistant_messages_have_usage_zeroed() {
    let mut s = settings();
    s.compact.preserve_groups = 3;
    let mut e = Engine::new(s).unwrap();
    session(&mut e);
    let (_, p) = split(e.compact(CompactOptions::default()).allowed(&mut e));
    let (_, p) = e
        .answer(needs_summary(&p), Answer::text("<summary>done</summary>"))
        .map(split)
        .unwrap();
    let Stage::NeedsFiles { request } = p else {
        panic!()
    };
    e.answer(request.id, files(&[])).map(split).unwrap();
    let preserved = view(&e).into_iter().find(|m| m.uuid == "call-4".into()).unwrap();
    assert_eq!(preserved.usage.as_deref(), Some(&Usage::default()));
    let stored = e.store().get(&"call-4".into()).unwrap();
    assert_eq!(
        stored.usage.as_ref().unwrap().input_tokens,
        4_000,
        "the store keeps the original usage"
    );
}

#[test]
fn r7_2_a_blocking_hook_keeps_the_history_and_writes_no_boundary() {
    let mut e = Engine::new(settings()).unwrap();
    session(&mut e);
    let before = view(&e);
    let hook = HookOutcome {
        block: Some("policy".into()),
        added_instructions: vec![],
    };
    let (steps, p) = split(
        e.compact(CompactOptions { instructions: None })
            .hooked(&mut e, hook),
    );
    assert!(matches!(p, Stage::Failed { .. }));
    assert_eq!(steps[0].rule, "R7.2");
    assert_eq!(view(&e), before);
    assert!(e.requests().is_empty());
}

#[test]
fn r7_2_hook_instructions_join_the_prompt() {
    let mut e = Engine::new(settings()).unwrap();
    session(&mut e);
    let hook = HookOutcome {
        block: None,
        added_instructions: vec!["mention the ticket number".into()],
    };
    let (_, p) = split(
        e.compact(CompactOptions { instructions: None })
            .hooked(&mut e, hook),
    );
    let Stage::NeedsSummary { request } = p else {
        panic!()
    };
    assert!(request.prompt.contains("mention the ticket number"));
}

#[test]
fn r7_10_model_fallback_chain_then_failure_keeps_the_view() {
    let mut s = settings();
    s.compact.fallback_models = vec!["backup".into()];
    let mut e = Engine::new(s).unwrap();
    session(&mut e);
    let before = view(&e);
    let (_, p) = split(e.compact(CompactOptions::default()).allowed(&mut e));
    let (steps, p) = e
        .answer(needs_summary(&p), Answer::ModelUnavailable)
        .map(split)
        .unwrap();
    assert_eq!(steps[0].rule, "R7.10");
    let Stage::NeedsSummary { request } = &p else {
        panic!()
    };
    assert_eq!(&*request.model, "backup");
    let (_, p) = e.answer(request.id, Answer::ModelUnavailable).map(split).unwrap();
    assert!(matches!(p, Stage::Failed { .. }));
    assert_eq!(
        view(&e),
        before,
        "a failed compaction leaves the view byte-identical"
    );
}

#[test]
fn r7_10_offline_fallback_only_when_the_host_opts_in_and_the_step_says_so() {
    let mut s = settings();
    s.compact.offline_fallback = true;
    let mut e = Engine::new(s).unwrap();
    session(&mut e);
    let (_, p) = split(e.compact(CompactOptions::default()).allowed(&mut e));
    let (steps, p) = e
        .answer(needs_summary(&p), Answer::ModelUnavailable)
        .map(split)
        .unwrap();
    assert!(steps[0].reason.contains("offline summariser"));
    assert_eq!(
        serde_json::to_value(&steps[0].evidence).unwrap()["kind"],
        "extension"
    );
    assert!(matches!(p, Stage::NeedsFiles { .. }));
}

#[test]
fn r7_4_an_empty_reply_fails_and_keeps_the_view() {
    let mut e = Engine::new(settings()).unwrap();
    session(&mut e);
    let before = view(&e);
    let (_, p) = split(e.compact(CompactOptions::default()).allowed(&mut e));
    let (_, p) = e
        .answer(needs_summary(&p), Answer::text("<analysis>x</analysis>  "))
        .map(split)
        .unwrap();
    assert!(matches!(p, Stage::Failed { reason } if reason.contains("empty")));
    assert_eq!(view(&e), before);
}

#[test]
fn r7_5_manual_prompt_too_long_preserves_more_groups_until_nothing_is_left() {
    let mut e = Engine::new(settings()).unwrap();
    session(&mut e);
    let before = view(&e);
    let (_, p) = split(e.compact(CompactOptions::default()).allowed(&mut e));
    let mut id = needs_summary(&p);
    let mut sizes = vec![];
    loop {
        let (_, p) = e.answer(id, Answer::PromptTooLong).map(split).unwrap();
        match p {
            Stage::NeedsSummary { request } => {
                sizes.push(request.messages.len());
                id = request.id;
            }
            Stage::Failed { .. } => break,
            other => panic!("{other:?}"),
        }
    }
    assert!(
        sizes.windows(2).all(|w| w[1] < w[0]),
        "each retry summarises less: {sizes:?}"
    );
    assert_eq!(view(&e), before);
}

#[test]
fn answers_must_name_the_pending_request() {
    let mut e = Engine::new(settings()).unwrap();
    session(&mut e);
    assert_eq!(
        e.answer(7, Answer::ModelUnavailable).map(split).unwrap_err(),
        Error::UnknownRequest { id: 7 }
    );
    let (_, p) = split(e.compact(CompactOptions::default()).allowed(&mut e));
    let id = needs_summary(&p);
    assert!(
        e.answer(id, files(&[])).map(split).is_err(),
        "a summary request is not a file request"
    );
    assert!(
        e.answer(id, Answer::Offline).map(split).is_ok(),
        "the run survives a wrong answer"
    );
}

fn long_session(engine: &mut Engine, turns: usize, chars: usize) {
    for t in 0..turns {
        engine
            .append(Message::user(
                format!("p{t}-{}", engine.store().len()),
                format!("turn {t}"),
            ))
            .unwrap();
        engine
            .append(Message::assistant(
                format!("a{t}-{}", engine.store().len()),
                "w".repeat(chars),
            ))
            .unwrap();
    }
}

#[test]
fn r7_auto_compaction_starts_from_the_cascade_and_keeps_two_turns() {
    let mut s = settings();
    s.snip = false;
    let mut e = Engine::new(s).unwrap();
    long_session(&mut e, 10, 80_000);
    let d = e.before_call(None);
    let (_, Stage::NeedsSummary { request }) = &crate::common::begun(&mut e, &d) else {
        panic!("{:?}", d.compaction)
    };
    assert_eq!(request.messages.len(), 16, "the two most recent turns are kept");
    let (_, p) = e.answer(request.id, Answer::Offline).map(split).unwrap();
    let Stage::Compacted { result } = p else {
        panic!("{p:?}")
    };
    assert_eq!(result.boundary.compact_metadata.trigger, Trigger::Auto);
    assert_eq!(e.view().len(), 5);
    assert!(e.before_call(None).count.tokens < e.lines().compact);
}

#[test]
fn r7_12_chained_compaction_summarises_the_earlier_summary() {
    let mut e = Engine::new(settings()).unwrap();
    session(&mut e);
    let (_, p) = split(e.compact(CompactOptions::default()).allowed(&mut e));
    let (_, p) = e.answer(needs_summary(&p), Answer::Offline).map(split).unwrap();
    let Stage::NeedsFiles { request } = p else {
        panic!()
    };
    e.answer(request.id, files(&[])).map(split).unwrap();
    let first_summary = e.view().entries()[0].message.uuid.clone();
    e.append(Message::user("next", "Now write the article.")).unwrap();
    e.append(Message::assistant("draft", "Draft written.")).unwrap();
    let (_, p) = split(e.compact(CompactOptions::default()).allowed(&mut e));
    let Stage::NeedsSummary { request } = p else {
        panic!()
    };
    assert_eq!(request.messages[0].uuid, first_summary);
    // No file was used since the first compaction: nothing to restore.
    let (_, p) = e.answer(request.id, Answer::Offline).map(split).unwrap();
    let Stage::Compacted { result } = p else {
        panic!("{p:?}")
    };
    let Source::Summary { replaces } = &e.view().entries()[0].source else {
        panic!()
    };
    assert!(
        replaces.contains(&first_summary),
        "lineage runs through the earlier summary"
    );
    assert!(result.boundary.compact_metadata.cumulative_dropped_tokens > 0);
}

#[test]
fn r10_failures_open_the_breaker_and_manual_compact_still_works() {
    let mut s = settings();
    s.snip = false;
    let mut e = Engine::new(s).unwrap();
    long_session(&mut e, 10, 80_000);
    for _ in 0..3 {
        let d = e.before_call(None);
        let (_, Stage::NeedsSummary { request }) = crate::common::begun(&mut e, &d) else {
            panic!()
        };
        e.answer(request.id, Answer::ModelUnavailable).map(split).unwrap();
    }
    let d = e.before_call(None);
    assert_eq!(d.breaker, Some(Open::Failures));
    assert!(d.compaction.is_none(), "no more automatic attempts");
    // R10.3: at the blocked line the call is refused; manual still works.
    long_session(&mut e, 1, 80_000);
    let d = e.before_call(None);
    assert!(matches!(
        d.status,
        compaction_core::engine::CallStatus::Blocked { .. }
    ));
    let (_, p) = split(e.compact(CompactOptions::default()).allowed(&mut e));
    assert!(matches!(p, Stage::NeedsSummary { .. }));
}

#[test]
fn r7_7_newer_client_preset_restores_paths_only() {
    let mut e = Engine::new(Preset::NewerClient.settings(200_000)).unwrap();
    session(&mut e);
    let (_, p) = split(e.compact(CompactOptions::default()).allowed(&mut e));
    let (_, p) = e.answer(needs_summary(&p), Answer::Offline).map(split).unwrap();
    let Stage::Compacted { result } = p else {
        panic!("no file request with path-only: {p:?}")
    };
    assert!(result.attachments.iter().all(|c| c.status == Status::PathOnly));
}

#[test]
fn r7_10_a_view_changed_under_a_waiting_compaction_abandons_it() {
    let mut e = Engine::new(settings()).unwrap();
    session(&mut e);
    let (_, p) = split(e.compact(CompactOptions::default()).allowed(&mut e));
    let Stage::NeedsSummary { request } = p else {
        panic!()
    };
    // A pinned message is unpinned, an expand of an unknown summary fails:
    // neither moves the view. Appending does not move it either.
    e.append(Message::user("more", "one more thing")).unwrap();
    let (_, p) = e.answer(request.id, Answer::Offline).map(split).unwrap();
    assert!(
        matches!(p, Stage::NeedsFiles { .. }),
        "appends do not abandon the run: {p:?}"
    );

    // A compaction waiting while an earlier compaction is expanded: the
    // positions it cut are gone, so it is abandoned and the view stays.
    let mut e = Engine::new(settings()).unwrap();
    session(&mut e);
    let (_, p) = split(e.compact(CompactOptions::default()).allowed(&mut e));
    let (_, p) = e.answer(needs_summary(&p), Answer::Offline).map(split).unwrap();
    let Stage::NeedsFiles { request } = p else {
        panic!()
    };
    let (_, p) = e.answer(request.id, files(&[])).map(split).unwrap();
    let Stage::Compacted { result } = p else { panic!() };
    e.append(Message::user("next", "and now?")).unwrap();
    e.append(Message::assistant("reply", "working")).unwrap();
    let (_, p) = split(e.compact(CompactOptions::default()).allowed(&mut e));
    let id = needs_summary(&p);
    e.expand(&result.summary.uuid).unwrap();
    let before = view(&e);
    let (steps, p) = e.answer(id, Answer::Offline).map(split).unwrap();
    assert!(
        matches!(p, Stage::Failed { reason } if reason.contains("view changed")),
        "{steps:?}"
    );
    assert_eq!(view(&e), before);
}

/// The first message of the view after a manual compaction answered
/// offline, files answered as missing.
fn compacted_summary(mut e: Engine) -> String {
    e.compact(CompactOptions::default());
    // Every request through the driver: offline summaries, no file read.
    let out = compaction_core::engine::drive(&mut e, &mut crate::common::Offline).unwrap();
    assert!(
        matches!(
            out.compaction,
            Some(compaction_core::compact::Progress::Compacted { .. })
        ),
        "{out:?}"
    );
    match &e.view().messages().next().unwrap().content {
        Content::Text(text) => text.clone(),
        other => panic!("{other:?}"),
    }
}

#[test]
fn r11_3_with_a_transcript_path_the_summary_names_it() {
    let mut with = settings();
    with.compact.transcript_path = Some("/home/u/.claude/projects/p/s.jsonl".into());
    let mut e = Engine::new(with).unwrap();
    session(&mut e);
    let text = compacted_summary(e);
    assert!(
        text.ends_with("read the full transcript at: /home/u/.claude/projects/p/s.jsonl"),
        "{text}"
    );
    // Without one, nothing is named.
    let mut e = Engine::new(settings()).unwrap();
    session(&mut e);
    assert!(!compacted_summary(e).contains("transcript"));
}
