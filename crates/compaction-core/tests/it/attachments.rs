//! R7.7's attachments beyond files: plan, task state, skills, MCP and
//! post-compact hook output, through the public engine API.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test helpers may fail loudly

use crate::common::{split, Allow, Stage};
use compaction_core::compact::attachments::{Kind, Status};
use compaction_core::compact::{CompactOptions, ContextItem, FileAnswer, HookOutput};
use compaction_core::engine::Answer;
use compaction_core::engine::Engine;
use compaction_core::engine::{EngineSettings, Preset};
use compaction_core::message::{Block, Content, Message, Role, ToolResultContent};
use compaction_core::view::Source;
use compaction_core::Error;
use serde_json::{json, Value};

fn settings() -> EngineSettings {
    Preset::Seed.settings(200_000)
}

/// Appends one tool call and its result.
fn tool(e: &mut Engine, n: usize, name: &str, input: Value) {
    let id = format!("toolu_{n}");
    e.append(Message::new(
        format!("call-{n}"),
        Role::Assistant,
        Content::Blocks(vec![Block::ToolUse {
            id: id.clone(),
            name: name.into(),
            input: compaction_core::message::Json::from_value(&input),
            extra: Default::default(),
        }]),
    ))
    .unwrap();
    e.append(Message::new(
        format!("result-{n}"),
        Role::User,
        Content::Blocks(vec![Block::ToolResult {
            tool_use_id: id,
            content: ToolResultContent::Text("ok".into()),
            is_error: None,
            extra: Default::default(),
        }]),
    ))
    .unwrap();
}

/// A session that plans, keeps a task list, invokes two skills and reads
/// a file; then a last exchange.
fn session(e: &mut Engine) {
    e.append(Message::user("ask", "Port the parser to Rust."))
        .unwrap();
    tool(e, 1, "ExitPlanMode", json!({"plan": "1. old plan"}));
    tool(
        e,
        2,
        "ExitPlanMode",
        json!({"plan": "1. Read parser.js\n2. Write parser.rs"}),
    );
    tool(
        e,
        3,
        "TodoWrite",
        json!({"todos": [
            {"content": "Read parser.js", "status": "completed", "activeForm": "Reading"},
            {"content": "Write parser.rs", "status": "in_progress", "activeForm": "Writing"}
        ]}),
    );
    tool(e, 4, "Skill", json!({"skill": "rust-style"}));
    tool(e, 5, "Skill", json!({"skill": "pdf"}));
    tool(e, 6, "Skill", json!({"command": "unregistered"}));
    tool(e, 7, "Read", json!({"file_path": "src/parser.js"}));
    e.append(Message::user("next", "Go on.")).unwrap();
    e.append(Message::assistant("done", "Writing parser.rs now."))
        .unwrap();
}

/// Runs a manual compaction offline; files answered with `content`, hooks
/// with `hooks`.
fn compact(e: &mut Engine, hooks: &[HookOutput]) -> compaction_core::compact::Compacted {
    let (_, mut p) = split(e.compact(CompactOptions::default()).allowed(e));
    loop {
        p = match p {
            Stage::NeedsSummary { request } => e.answer(request.id, Answer::Offline).map(split).unwrap().1,
            Stage::NeedsFiles { request } => {
                let files: Vec<FileAnswer> = request
                    .paths
                    .iter()
                    .map(|p| FileAnswer {
                        path: p.clone(),
                        content: Ok(format!("// {p}")),
                    })
                    .collect();
                e.answer(
                    request.id,
                    Answer::Files {
                        files: files.clone(),
                        hooks: hooks.to_vec(),
                    },
                )
                .map(split)
                .unwrap()
                .1
            }
            Stage::Compacted { result } => return *result,
            other => panic!("{other:?}"),
        }
    }
}

fn attachment_texts(e: &Engine) -> Vec<String> {
    e.view()
        .entries()
        .iter()
        .filter(|en| en.source == Source::Attachment)
        .map(|en| match &en.message.content {
            Content::Text(t) => t.clone(),
            Content::Blocks(_) => String::new(),
        })
        .collect()
}

#[test]
fn r7_7_plan_and_task_state_come_from_the_history_after_the_files() {
    let mut e = Engine::new(settings()).unwrap();
    session(&mut e);
    let result = compact(&mut e, &[]);
    let kinds: Vec<(Kind, &str)> = result
        .attachments
        .iter()
        .map(|c| (c.kind, c.path.as_str()))
        .collect();
    assert_eq!(
        kinds,
        [
            (Kind::File, "src/parser.js"),
            (Kind::Plan, "plan"),
            (Kind::TaskState, "tasks"),
            (Kind::Skill, "unregistered"),
            (Kind::Skill, "pdf"),
            (Kind::Skill, "rust-style"),
        ]
    );
    let texts = attachment_texts(&e);
    assert!(
        texts[1].ends_with("1. Read parser.js\n2. Write parser.rs"),
        "the last plan: {texts:?}"
    );
    assert!(texts[2].ends_with("- [completed] Read parser.js\n- [in_progress] Write parser.rs"));
    // No skill content registered: each invoked skill failed, and says why.
    for c in &result.attachments[3..] {
        assert!(
            matches!(&c.status, Status::Failed { reason } if reason.contains("registered")),
            "{c:?}"
        );
    }
}

#[test]
fn r7_7_registered_context_overrides_the_history_and_skills_keep_their_budgets() {
    let mut s = settings();
    s.compact.attachments.skill_tokens = 100;
    s.compact.attachments.skills_total_tokens = 150;
    let mut e = Engine::new(s).unwrap();
    session(&mut e);
    e.set_context(vec![
        ContextItem {
            kind: Kind::Plan,
            name: "plan.md".into(),
            content: "the host's plan".into(),
        },
        ContextItem {
            kind: Kind::Skill,
            name: "pdf".into(),
            content: "p".repeat(1_000), // 250 tokens: cut to 100
        },
        ContextItem {
            kind: Kind::Skill,
            name: "rust-style".into(),
            content: "r".repeat(400), // 100 tokens: over the 50 left
        },
        ContextItem {
            kind: Kind::Mcp,
            name: "github".into(),
            content: "Use the github tools for PRs.".into(),
        },
    ])
    .unwrap();
    let result = compact(&mut e, &[]);
    let by = |kind: Kind, name: &str| {
        result
            .attachments
            .iter()
            .find(|c| c.kind == kind && c.path == name)
            .unwrap_or_else(|| panic!("{kind:?} {name} missing: {:?}", result.attachments))
            .status
            .clone()
    };
    assert!(matches!(
        by(Kind::Plan, "plan"),
        Status::Restored { cut: false, .. }
    ));
    assert!(attachment_texts(&e)
        .iter()
        .any(|t| t.ends_with("the host's plan")));
    assert!(matches!(by(Kind::Skill, "pdf"), Status::Restored { cut: true, tokens } if tokens > 100));
    assert!(matches!(
        by(Kind::Skill, "rust-style"),
        Status::OverBudget { tokens: 100 }
    ));
    assert!(matches!(by(Kind::Mcp, "github"), Status::Restored { .. }));
}

#[test]
fn r7_1_post_compact_hooks_run_after_the_attachments_even_with_paths_only() {
    let mut s = Preset::NewerClient.settings(200_000);
    s.compact.attachments.post_compact_hooks = true;
    let mut e = Engine::new(s).unwrap();
    session(&mut e);
    let (_, p) = split(e.compact(CompactOptions::default()).allowed(&mut e));
    let Stage::NeedsSummary { request } = p else {
        panic!("{p:?}")
    };
    let (_, p) = e.answer(request.id, Answer::Offline).map(split).unwrap();
    let Stage::NeedsFiles { request } = p else {
        panic!("the engine pauses for the hooks: {p:?}")
    };
    assert!(request.paths.is_empty() && request.post_compact_hooks);
    let hooks = [HookOutput {
        hook: "session-start".into(),
        output: "branch: main, 2 files changed".into(),
    }];
    let (steps, p) = e
        .answer(
            request.id,
            Answer::Files {
                files: Vec::new(),
                hooks: hooks.to_vec(),
            },
        )
        .map(split)
        .unwrap();
    let Stage::Compacted { result } = p else {
        panic!("{p:?}")
    };
    let last = result.attachments.last().unwrap();
    assert_eq!(
        (last.kind, last.path.as_str()),
        (Kind::HookOutput, "session-start")
    );
    assert!(attachment_texts(&e)
        .last()
        .unwrap()
        .ends_with("branch: main, 2 files changed"));
    let r77 = steps.iter().find(|s| s.rule == "R7.7").unwrap();
    assert!(r77.reason.contains("hookOutput session-start"), "{}", r77.reason);
}

#[test]
fn r7_7_only_plan_tasks_skills_and_mcp_can_be_registered() {
    let mut e = Engine::new(settings()).unwrap();
    let good = ContextItem {
        kind: Kind::Plan,
        name: "p".into(),
        content: "keep".into(),
    };
    e.set_context(vec![good.clone()]).unwrap();
    for kind in [Kind::File, Kind::HookOutput] {
        let bad = ContextItem {
            kind,
            name: "x".into(),
            content: String::new(),
        };
        let err = e.set_context(vec![good.clone(), bad]).unwrap_err();
        assert_eq!(
            err,
            Error::InvalidContext {
                index: 1,
                kind: kind.as_str()
            }
        );
    }
    // Nothing changed: the registered plan is still the one restored.
    session(&mut e);
    compact(&mut e, &[]);
    assert!(attachment_texts(&e).iter().any(|t| t.ends_with("\n\nkeep")));
}

/// `n` answered files of `chars` characters each, most recent first.
fn answered_files(n: usize, chars: usize) -> (Vec<String>, Vec<FileAnswer>) {
    let paths: Vec<String> = (0..n).map(|i| format!("src/file_{i:02}.rs")).collect();
    let answers = paths
        .iter()
        .map(|p| FileAnswer {
            path: p.clone(),
            content: Ok("x".repeat(chars)),
        })
        .collect();
    (paths, answers)
}

#[test]
fn r7_7_a_file_over_5000_tokens_is_cut_to_the_limit_with_a_marker() {
    use compaction_core::compact::attachments::{restore, AttachmentSettings};
    use compaction_core::tokens::Estimator;
    let estimator = Estimator::default();
    // 30,000 characters: 7,500 tokens; and one under the limit.
    let (paths, mut answers) = answered_files(2, 30_000);
    answers[1].content = Ok("y".repeat(8_000));
    let (outcomes, messages) = restore(&paths, &answers, &AttachmentSettings::default(), &estimator, "s");
    let Status::Restored { tokens, cut: true } = outcomes[0].status else {
        panic!("{:?}", outcomes[0])
    };
    let Message {
        content: Content::Text(body),
        ..
    } = &messages[0]
    else {
        panic!("{:?}", messages[0])
    };
    assert!(
        body.contains("[cut to 5000 tokens: 10000 more chars not restored]"),
        "{body}"
    );
    assert_eq!(
        body.matches('x').count(),
        20_000,
        "exactly 5,000 tokens of content"
    );
    assert!(
        (5_000..5_100).contains(&tokens),
        "the limit plus the marker: {tokens}"
    );
    assert_eq!(
        outcomes[1].status,
        Status::Restored {
            tokens: 2_000,
            cut: false
        }
    );
}

#[test]
fn r7_7_files_stop_at_the_50000_token_total_with_settings_that_reach_it() {
    use compaction_core::compact::attachments::{restore, AttachmentSettings};
    use compaction_core::tokens::Estimator;
    // At the defaults 5 files × 5,000 = 25,000 never reach the total: allow
    // 12 files, each cut to 5,000 tokens.
    let settings = AttachmentSettings {
        max_files: 12,
        ..AttachmentSettings::default()
    };
    assert_eq!((settings.per_file_tokens, settings.total_tokens), (5_000, 50_000));
    let (paths, answers) = answered_files(13, 24_000);
    let (outcomes, messages) = restore(&paths, &answers, &settings, &Estimator::default(), "s");
    let restored: Vec<u64> = outcomes
        .iter()
        .filter_map(|c| match c.status {
            Status::Restored { tokens, cut: true } => Some(tokens),
            _ => None,
        })
        .collect();
    let total: u64 = restored.iter().sum();
    assert!(total <= 50_000, "{total}");
    assert!(total + restored[0] > 50_000, "one more would pass the total");
    assert_eq!(restored.len(), 9, "{restored:?}");
    assert_eq!(messages.len(), 9);
    for c in &outcomes[9..12] {
        assert!(
            matches!(c.status, Status::OverBudget { tokens } if tokens == restored[0]),
            "{c:?}"
        );
    }
    assert_eq!(
        outcomes[12].status,
        Status::NotChosen,
        "the 13th is not among the 12 most recent"
    );
}
