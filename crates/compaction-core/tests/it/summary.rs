//! The summary module (SPEC R7.3, R7.4, the offline summariser, the retention
//! check): prompt snapshots, the seed-002 scenario end to end, and property
//! tests of the parser and of offline summaries against the retention check.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test helpers may fail loudly

use compaction_core::message::{Block, Content, Message, Role, ToolResultContent};
use compaction_core::summary::{
    check_retention, offline_summary, parse_summary, summary_prompt, MissingPrompt, PromptOptions,
    RetentionReport, SECTIONS, SEED_VERBATIM_LINES,
};
use compaction_core::Error;
use proptest::prelude::*;
use serde_json::{json, Value};

fn all_options() -> PromptOptions {
    PromptOptions {
        manual_instructions: Some("保留用户的两次要求、关键源码位置、Probe 结果和剩余写作任务".into()),
        hook_instructions: vec![
            "Keep every migration file name.".into(),
            "Mention the failing test by name.".into(),
        ],
        retry: Some(RetentionReport {
            missing_prompts: vec![MissingPrompt {
                uuid: "u-0003".into(),
                text: "不要只分析提示词。继续确认当前手动 /compact 是否保留 tool_use/tool_result".into(),
            }],
            missing_paths: vec!["docs/compact.md".into()],
        }),
    }
}

// --- R7.3 the prompt ---

#[test]
fn prompt_with_default_options() {
    insta::assert_snapshot!("prompt_default", summary_prompt(&PromptOptions::default()));
}

#[test]
fn prompt_with_every_option() {
    insta::assert_snapshot!("prompt_all_options", summary_prompt(&all_options()));
}

#[test]
fn the_seed_lines_are_in_every_prompt_verbatim() {
    for options in [PromptOptions::default(), all_options()] {
        let prompt = summary_prompt(&options);
        for line in SEED_VERBATIM_LINES {
            assert!(
                prompt.lines().any(|l| l == *line),
                "seed line not verbatim on a line of its own: {line}"
            );
        }
    }
}

#[test]
fn the_prompt_names_the_nine_sections_of_the_seed() {
    // Seed 002's example Summary uses these headings, in this order.
    let prompt = summary_prompt(&PromptOptions::default());
    for (i, title) in SECTIONS.iter().enumerate() {
        assert!(prompt.contains(&format!("{}. {title}:", i + 1)), "{title}");
    }
    assert_eq!(SECTIONS[0], "Primary Request and Intent");
    assert_eq!(SECTIONS[8], "Optional Next Step");
}

// --- the seed-002 scenario, offline, end to end ---

fn tool_use(uuid: &str, id: &str, name: &str, input: Value) -> Message {
    Message::new(
        uuid,
        Role::Assistant,
        Content::Blocks(vec![Block::ToolUse {
            id: id.into(),
            name: name.into(),
            input: compaction_core::message::Json::from_value(&input),
            extra: Default::default(),
        }]),
    )
}

fn tool_result(uuid: &str, id: &str, text: &str, is_error: bool) -> Message {
    Message::new(
        uuid,
        Role::User,
        Content::Blocks(vec![Block::ToolResult {
            tool_use_id: id.into(),
            content: ToolResultContent::Text(text.into()),
            is_error: is_error.then_some(true),
            extra: Default::default(),
        }]),
    )
}

/// Seed 002's session: analysing `/compact` in the client's own bundle.
fn seed_002_session() -> Vec<Message> {
    let bundle = "reverse/javascript/cli.readable.js";
    let mut history = vec![
        Message::user(
            "u-0001",
            "找出 Claude Code 2.1.235 执行 /compact 后发生了什么。\n必须确认四件事:Summary 怎样生成、近期消息是否保留、文件怎样补回、Resume 怎样接续。",
        ),
        tool_use(
            "a-0002",
            "grep-compact",
            "Grep",
            json!({"pattern": "CRITICAL: Respond with TEXT ONLY|compact_boundary|messagesToPreserve", "path": bundle}),
        ),
        tool_result(
            "u-0002",
            "grep-compact",
            "261902  CRITICAL: Respond with TEXT ONLY. Do NOT call any tools.\n262271  messagesToPreserve: m.flat()",
            false,
        ),
        tool_use(
            "a-0003",
            "read-summary",
            "Read",
            json!({"file_path": bundle, "offset": 261901, "limit": 160}),
        ),
        tool_result("u-0003r", "read-summary", "function IzS(text) { … }", false),
        Message::user(
            "u-0003",
            "不要只分析提示词。继续确认当前手动 /compact 是否保留 tool_use/tool_result,\n压缩后会重新读取哪些文件,以及 compact_boundary 如何参与 Resume。",
        ),
    ];
    for (i, offset) in [232845, 262247, 263175, 211993].into_iter().enumerate() {
        let id = format!("read-{offset}");
        history.push(tool_use(
            &format!("a-1{i}"),
            &id,
            "Read",
            json!({"file_path": bundle, "offset": offset}),
        ));
        history.push(tool_result(&format!("u-1{i}"), &id, "…", false));
    }
    history.push(tool_use(
        "a-0020",
        "read-probe",
        "Read",
        json!({"file_path": "analysis/runtime-probes/agent-loop-tool-result-resume.json"}),
    ));
    history.push(tool_result("u-0020", "read-probe", "{…}", false));
    history.push(tool_use(
        "a-0021",
        "validate",
        "Bash",
        json!({"command": "python3 skill/claude-code-version-diff/scripts/validate_snapshot.py ."}),
    ));
    history.push(tool_result(
        "u-0021",
        "validate",
        "snapshot validation: PASS",
        false,
    ));
    history.push(tool_use(
        "a-0022",
        "draft",
        "Write",
        json!({"file_path": "docs/compact.md", "content": "# /compact"}),
    ));
    history.push(tool_result(
        "u-0022",
        "draft",
        "EACCES: permission denied, open 'docs/compact.md'\n    at open (node:fs)",
        true,
    ));
    history.push(Message::assistant(
        "a-0023",
        "已确认 Boundary 保存前后 token 和 preserved UUID;下一步把它与 Resume 修链放进文章。",
    ));
    history
}

#[test]
fn seed_002_session_offline_reply() {
    let history = seed_002_session();
    let options = PromptOptions {
        manual_instructions: Some("保留用户的两次要求、关键源码位置、Probe 结果和剩余写作任务".into()),
        ..PromptOptions::default()
    };
    let reply = offline_summary(&history, &options);
    insta::assert_snapshot!("offline_reply_seed_002", reply);
    let summary = parse_summary(&reply).unwrap();
    insta::assert_snapshot!("offline_summary_seed_002", summary);
    assert!(!summary.contains("<analysis>"));
    assert!(check_retention(&summary, &history).is_complete());
    // Deterministic: the same input, the same bytes.
    assert_eq!(offline_summary(&history, &options), reply);
}

#[test]
fn a_summary_that_loses_things_produces_a_retry_prompt() {
    let history = seed_002_session();
    let poor = "Summary:\n1. Primary Request and Intent:\n   找出 Claude Code 2.1.235 执行 /compact 后发生了什么。\n必须确认四件事:Summary 怎样生成、近期消息是否保留、文件怎样补回、Resume 怎样接续。";
    let report = check_retention(poor, &history);
    assert_eq!(report.missing_prompts.len(), 1);
    assert_eq!(report.missing_prompts[0].uuid.as_str(), "u-0003");
    assert_eq!(report.missing_paths, vec!["docs/compact.md".to_owned()]);
    insta::assert_json_snapshot!("retention_report_seed_002", report);

    let retry = summary_prompt(&PromptOptions {
        retry: Some(report),
        ..PromptOptions::default()
    });
    assert!(retry.contains("[u-0003] 不要只分析提示词。"));
    assert!(retry.contains("- docs/compact.md\n"));
}

#[test]
fn an_empty_reply_is_a_lowercase_error_naming_no_setting() {
    let err = parse_summary("<analysis>thought about it</analysis>\n").unwrap_err();
    assert_eq!(err, Error::EmptySummary);
    let message = err.to_string();
    assert!(message.starts_with("empty summary reply"), "{message}");
    assert_eq!(err.message_naming(|s| s.key().to_uppercase()), message);
    assert_eq!(err.setting(), None);
}

// --- properties ---

/// Text that is often awkward for the parser and the summariser: tags, odd
/// Unicode, whitespace, or anything at all.
fn awkward_text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("<analysis>".to_owned()),
        Just("</analysis>".to_owned()),
        Just("<summary>".to_owned()),
        Just("</summary>".to_owned()),
        Just("Summary:\n".to_owned()),
        Just(" \n\t\r ".to_owned()),
        Just("ΟΔΟΣ İ ß 😀 e\u{301} \u{200b}".to_owned()),
        "[a-zA-Z /._-]{0,12}",
        any::<String>(),
    ];
    prop::collection::vec(piece, 0..8).prop_map(|pieces| pieces.concat())
}

proptest! {
    #[test]
    fn parsing_never_panics_and_ok_is_never_blank(reply in awkward_text()) {
        if let Ok(summary) = parse_summary(&reply) {
            prop_assert!(!summary.trim().is_empty());
        }
    }

    #[test]
    fn the_first_analysis_block_never_survives(
        before in awkward_text(),
        secret in "[A-Z]{6}-SECRET",
        after in awkward_text(),
    ) {
        // The block is the first one: nothing before it opens another.
        let mut before = before;
        while before.contains("<analysis>") {
            before = before.replace("<analysis>", "");
        }
        prop_assume!(!format!("{before}{after}").contains(&secret));
        let reply = format!("{before}<analysis>{secret}</analysis>{after}");
        if let Ok(summary) = parse_summary(&reply) {
            prop_assert!(!summary.contains(&secret));
        }
    }
}

/// One tool call and its result.
#[derive(Debug, Clone)]
struct Call {
    name: &'static str,
    input: Value,
    result: String,
    is_error: bool,
}

/// One turn: a prompt (plain text, or text blocks beside an image), calls,
/// and maybe a closing assistant text.
#[derive(Debug, Clone)]
struct Turn {
    prompt: String,
    as_blocks: bool,
    calls: Vec<Call>,
    reply: Option<String>,
}

fn call() -> impl Strategy<Value = Call> {
    let name = prop::sample::select(vec![
        "Read",
        "Edit",
        "Write",
        "MultiEdit",
        "NotebookEdit",
        "Grep",
        "Glob",
        "Bash",
        "WebFetch",
    ]);
    let path_value = prop_oneof![
        4 => awkward_text().prop_map(Value::String),
        1 => Just(Value::Null),
        1 => any::<i32>().prop_map(|n| json!(n)),
    ];
    let key = prop::sample::select(vec!["file_path", "path", "notebook_path", "command"]);
    let input = prop_oneof![
        4 => prop::collection::vec((key, path_value), 0..3)
            .prop_map(|pairs| Value::Object(pairs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())),
        1 => awkward_text().prop_map(Value::String),
    ];
    (name, input, awkward_text(), any::<bool>()).prop_map(|(name, input, result, is_error)| Call {
        name,
        input,
        result,
        is_error,
    })
}

fn turn() -> impl Strategy<Value = Turn> {
    (
        awkward_text(),
        any::<bool>(),
        prop::collection::vec(call(), 0..4),
        prop::option::of(awkward_text()),
    )
        .prop_map(|(prompt, as_blocks, calls, reply)| Turn {
            prompt,
            as_blocks,
            calls,
            reply,
        })
}

fn history(turns: &[Turn]) -> Vec<Message> {
    let mut messages = Vec::new();
    for (t, turn) in turns.iter().enumerate() {
        let content = if turn.as_blocks {
            Content::Blocks(vec![
                Block::text(turn.prompt.clone()),
                Block::Image {
                    extra: Default::default(),
                },
                Block::text("second block"),
            ])
        } else {
            Content::Text(turn.prompt.clone())
        };
        messages.push(Message::new(format!("p{t}"), Role::User, content));
        for (c, call) in turn.calls.iter().enumerate() {
            let id = format!("t{t}-{c}");
            messages.push(tool_use(&format!("a{t}-{c}"), &id, call.name, call.input.clone()));
            messages.push(tool_result(
                &format!("r{t}-{c}"),
                &id,
                &call.result,
                call.is_error,
            ));
        }
        if let Some(reply) = &turn.reply {
            messages.push(Message::assistant(format!("x{t}"), reply.clone()));
        }
    }
    messages
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn offline_summaries_always_pass_the_retention_check(
        turns in prop::collection::vec(turn(), 0..6),
        manual in prop::option::of(awkward_text()),
        hooks in prop::collection::vec(awkward_text(), 0..2),
    ) {
        let messages = history(&turns);
        let options = PromptOptions { manual_instructions: manual, hook_instructions: hooks, retry: None };
        let reply = offline_summary(&messages, &options);
        prop_assert_eq!(&offline_summary(&messages, &options), &reply);
        let summary = parse_summary(&reply).expect("an offline reply always parses");
        prop_assert!(summary.starts_with("Summary:\n1. Primary Request and Intent:\n"));
        let mut from = 0;
        for (i, title) in SECTIONS.iter().enumerate() {
            let heading = format!("\n{}. {title}:\n", i + 1);
            let at = summary[from..].find(&heading);
            prop_assert!(at.is_some(), "missing {}", heading);
            from += at.unwrap_or(0) + heading.len();
        }
        let report = check_retention(&summary, &messages);
        prop_assert!(report.is_complete(), "{:?}", report);
    }
}
