//! Signed thinking (SPEC R13.1) against a model of the API's conversation
//! check: every reply's thinking block is signed over exactly what came
//! before it in the request that produced it (the messages' role and
//! content, and the earlier blocks of its own message), and a request may
//! keep a block only if that prefix is unchanged, unless it carries
//! `drop_block` with its beta. A host loop drives the engine through every
//! tier: plans and calls at the lines, automatic compaction, `/compact`,
//! 413 recovery, time-based clearing, snip and collapse.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test helpers may fail loudly

use std::hash::{Hash, Hasher};

use compaction_core::api::{ThinkingMode, BETA_THINKING_BINDING};
use compaction_core::compact::{CompactOptions, Progress};
use compaction_core::engine::Preset;
use compaction_core::engine::{Decision, Engine};
use compaction_core::message::{Block, Content, Extra, Json, Message, Role, ToolResultContent};
use compaction_core::time::Timestamp;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

/// The signature the model gives a block after `before` and, in its own
/// message, `blocks`.
fn signature(before: &[Message], blocks: &[Block]) -> String {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for m in before {
        m.role.as_str().hash(&mut h);
        serde_json::to_string(&m.content).unwrap_or_default().hash(&mut h);
    }
    serde_json::to_string(blocks).unwrap_or_default().hash(&mut h);
    format!("{:016x}", h.finish())
}

/// Thinking blocks of `request` whose prefix is not what they were signed
/// over.
fn failing(request: &[Message]) -> Vec<String> {
    let mut out = Vec::new();
    for (i, m) in request.iter().enumerate() {
        for (j, b) in m.content.blocks().iter().enumerate() {
            if let Block::Thinking { extra, .. } = b {
                let sig = extra.str_field("signature").map(|s| s.into_owned());
                if sig.as_deref() != Some(signature(&request[..i], &m.content.blocks()[..j]).as_str()) {
                    out.push(format!("{} block {j}", m.uuid));
                }
            }
        }
    }
    out
}

/// The API's tool-loop check: when the request ends with the results of
/// the last assistant message's `tool_use` blocks (an active tool loop),
/// that message must start with a thinking block (the model's reply did),
/// passed back whole ("a final assistant message must start with a
/// thinking block, preceding the lastmost set of tool_use and tool_result
/// blocks"). Dropping it is refused just as keeping it with a changed
/// prefix is.
fn open_loop_unsigned(request: &[Message]) -> Option<String> {
    let [.., a, last] = request else {
        return None;
    };
    let answers = last.role == Role::User
        && last
            .content
            .blocks()
            .iter()
            .any(|b| matches!(b, Block::ToolResult { .. }));
    if !answers || a.role != Role::Assistant || a.tool_use_ids().next().is_none() {
        return None;
    }
    let starts = matches!(a.content.blocks().first(), Some(Block::Thinking { .. }));
    (!starts).then(|| {
        format!(
            "{}: the open tool loop's assistant message lost its thinking",
            a.uuid
        )
    })
}

/// The model's reply to `request`: a signed thinking block, then `rest`.
fn reply(uuid: String, request: &[Message], rest: Block, minute: i64) -> Message {
    let mut extra = Extra::new();
    extra.insert(
        "signature".into(),
        Json::from_value(&serde_json::json!(signature(request, &[]))),
    );
    let thinking = Block::Thinking {
        thinking: format!("thinking about {uuid}"),
        extra,
    };
    let mut m = Message::new(uuid, Role::Assistant, Content::Blocks(vec![thinking, rest]));
    m.timestamp = Some(at(minute));
    m
}

fn at(minute: i64) -> Timestamp {
    Timestamp::from_unix_ms(1_796_000_000_000 + minute * 60_000)
}

/// The host: answers every request offline and checks each request the
/// engine hands out before it "goes to the API".
struct Host {
    engine: Engine,
    mode: ThinkingMode,
    requests: usize,
}

impl Host {
    fn check(&mut self, what: &str, request: &[Message], drop_block: bool) -> Result<(), TestCaseError> {
        self.requests += 1;
        // Every request starts as the API requires: with the user's message;
        // a summary request holds no `system` role (the plain API's).
        prop_assert_eq!(
            request.first().map(|m| m.role),
            Some(Role::User),
            "{}: first role",
            what
        );
        if what != "model request" {
            prop_assert!(
                request.iter().all(|m| m.role != Role::System),
                "{what}: a system role"
            );
        }
        if self.mode == ThinkingMode::Keep {
            return Ok(());
        }
        let bad = failing(request);
        prop_assert!(
            bad.is_empty() || drop_block,
            "{what}: {} kept thinking block(s) with a changed prefix: {bad:?}",
            bad.len()
        );
        if what == "model request" && !drop_block {
            let open = open_loop_unsigned(request);
            prop_assert!(open.is_none(), "{what}: {open:?}");
        }
        Ok(())
    }

    /// Answers every pending request offline (hooks allowed, no file
    /// read), checking each summary request's messages.
    fn settle(&mut self) -> Result<(), TestCaseError> {
        use compaction_core::engine::{Answer, Request};
        for _ in 0..64 {
            let Some(request) = self.engine.requests().into_iter().next() else {
                return Ok(());
            };
            let answer = match &request {
                Request::PreCompact(_) => Answer::allow(),
                Request::Files(_) => Answer::Files {
                    files: Vec::new(),
                    hooks: Vec::new(),
                },
                Request::Summary(r) | Request::CollapseSegment(r) | Request::Precompute(r) => {
                    self.check(request.kind(), &r.messages, false)?;
                    Answer::Offline
                }
            };
            self.engine.answer(request.id(), answer).unwrap();
        }
        Ok(())
    }

    fn answer(&mut self, _d: &Decision) -> Result<(), TestCaseError> {
        self.settle()
    }

    /// One model call at `minute`: the cascade, its requests answered, the
    /// request checked; the request sent.
    fn call(&mut self, minute: i64, overflow: bool) -> Result<Vec<Message>, TestCaseError> {
        let d = self.engine.before_call(Some(&at(minute)));
        self.answer(&d)?;
        if overflow || matches!(d.status, compaction_core::engine::CallStatus::Blocked { .. }) {
            self.engine.prompt_too_long();
            self.settle()?;
        }
        let d = if overflow {
            self.engine.before_call(Some(&at(minute)))
        } else {
            d
        };
        let drop_block = d.thinking.is_some() && d.betas.iter().any(|b| b == BETA_THINKING_BINDING);
        let request: Vec<Message> = self.engine.view().sent_messages().cloned().collect();
        self.check("model request", &request, drop_block)?;
        Ok(request)
    }
}

fn tool_result(n: usize, chars: usize) -> Message {
    Message::new(
        format!("r{n}"),
        Role::User,
        Content::Blocks(vec![Block::ToolResult {
            tool_use_id: format!("toolu_{n:04}"),
            content: ToolResultContent::Text("x".repeat(chars)),
            is_error: None,
            extra: Extra::new(),
        }]),
    )
}

#[allow(clippy::too_many_arguments)]
fn session(
    mode: ThinkingMode,
    window: u64,
    tiers: u8,
    sizes: &[usize],
    idle: &[bool],
    overflow: &[bool],
    manual: &[bool],
) -> Result<usize, TestCaseError> {
    let mut settings = Preset::Seed.settings(window);
    settings.api.thinking = mode;
    settings.snip = tiers & 1 != 0;
    settings.collapse.enabled = tiers & 2 != 0;
    settings.microcompact.context_editing = tiers & 4 != 0;
    settings.compact.offline_fallback = true;
    let mut host = Host {
        engine: Engine::new(settings).unwrap(),
        mode,
        requests: 0,
    };
    let mut minute = 0;
    for (n, &size) in sizes.iter().enumerate() {
        minute += if idle[n] { 120 } else { 1 };
        let mut prompt = Message::user(format!("p{n}"), format!("step {n}: read src/f{n}.rs"));
        prompt.timestamp = Some(at(minute));
        host.engine.append(prompt).unwrap();
        if manual[n] {
            host.engine.compact(CompactOptions::default());
            host.settle()?;
        }
        let request = host.call(minute, false)?;
        let call = Block::ToolUse {
            id: format!("toolu_{n:04}"),
            name: "Read".into(),
            input: Json::from_value(&serde_json::json!({"file_path": format!("src/f{n}.rs")})),
            extra: Extra::new(),
        };
        host.engine
            .append(reply(format!("c{n}"), &request, call, minute))
            .unwrap();
        host.engine.append(tool_result(n, size)).unwrap();
        let request = host.call(minute, overflow[n])?;
        let done = Block::text(format!("fixed f{n}"));
        host.engine
            .append(reply(format!("a{n}"), &request, done, minute))
            .unwrap();
    }
    Ok(host.requests)
}

fn mode() -> impl Strategy<Value = ThinkingMode> {
    prop_oneof![
        Just(ThinkingMode::Strip),
        Just(ThinkingMode::DropBlock),
        Just(ThinkingMode::Keep)
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// R13.1: whatever the tiers do, no request the engine produces keeps a
    /// thinking block whose prefix changed, unless it carries drop_block
    /// with its beta.
    #[test]
    fn r13_1_no_request_keeps_a_thinking_block_whose_prefix_changed(
        mode in mode(),
        window in prop::sample::select(vec![24_000u64, 48_000, 200_000]),
        tiers in 0u8..8,
        turns in 10usize..60,
        sizes in prop::collection::vec(prop::sample::select(vec![200usize, 3_000, 9_000, 30_000]), 60),
        idle in prop::collection::vec(prop::bool::weighted(0.1), 60),
        overflow in prop::collection::vec(prop::bool::weighted(0.05), 60),
        manual in prop::collection::vec(prop::bool::weighted(0.05), 60),
    ) {
        let requests = session(mode, window, tiers, &sizes[..turns], &idle, &overflow, &manual)?;
        prop_assert!(requests >= 2 * turns);
    }
}

/// The same check on issue 14's measurement: a history loaded in bulk (its
/// results reduced after the model read them), planned at 200k and
/// compacted by `/compact`.
#[test]
fn r13_1_a_loaded_history_planned_and_compacted_keeps_no_stale_thinking() {
    for mode in [ThinkingMode::Strip, ThinkingMode::DropBlock] {
        let mut history: Vec<Message> = Vec::new();
        for n in 0..120 {
            history.push(Message::user(format!("p{n}"), format!("step {n}")));
            let call = Block::ToolUse {
                id: format!("toolu_{n:04}"),
                name: "Read".into(),
                input: Json::from_value(&serde_json::json!({})),
                extra: Extra::new(),
            };
            let r = reply(format!("c{n}"), &history, call, 0);
            history.push(r);
            history.push(tool_result(n, if n % 3 == 0 { 9_000 } else { 3_000 }));
            let r = reply(format!("a{n}"), &history, Block::text("x".repeat(3_600)), 0);
            history.push(r);
        }
        assert!(failing(&history).is_empty(), "the model's own history passes");
        let mut settings = Preset::Seed.settings(200_000);
        settings.api.thinking = mode;
        let mut engine = Engine::new(settings).unwrap();
        for m in history {
            engine.append(m).unwrap();
        }
        let d = engine.plan(None);
        let mut probe = engine.clone();
        probe.before_call(None);
        let view: Vec<Message> = probe.view().sent_messages().cloned().collect();
        let bad = failing(&view);
        match mode {
            ThinkingMode::Strip => {
                assert!(bad.is_empty(), "{bad:?}");
                // The replies read those results whole: under strip their
                // reduction is undone rather than costing every later block.
                assert!(!d.steps.iter().any(|s| s.rule == "R2.2"), "{:?}", d.steps);
                for step in d.steps.iter().filter(|s| s.rule == "R13.1") {
                    assert!(!step.blocks.is_empty());
                }
            }
            _ => {
                assert!(!bad.is_empty());
                assert_eq!(
                    d.thinking,
                    Some(compaction_core::api::ThinkingParams::drop_block())
                );
                assert!(d.betas.iter().any(|b| b == BETA_THINKING_BINDING));
            }
        }
        engine.compact(CompactOptions::default());
        let out = compaction_core::engine::drive(&mut engine, &mut crate::common::Offline).unwrap();
        assert!(
            matches!(out.compaction, Some(Progress::Compacted { .. })),
            "{out:?}"
        );
        let view: Vec<Message> = engine.view().sent_messages().cloned().collect();
        if mode == ThinkingMode::Strip {
            assert!(failing(&view).is_empty());
        }
    }
}

/// Issue 14: a history loaded in bulk that ends in an open tool loop (the
/// last reply's `tool_use` answered by the last message) under `strip`, at
/// every window: the request keeps that reply's thinking whole over an
/// unchanged prefix, before and after the compaction the lines ask for
/// (which summarises the loop too rather than preserving it after a
/// summary).
#[test]
fn r13_1_an_open_tool_loop_keeps_its_thinking_through_every_tier() {
    for window in [24_000u64, 48_000, 200_000] {
        let mut history: Vec<Message> = Vec::new();
        for n in 0..60 {
            history.push(Message::user(format!("p{n}"), format!("step {n}")));
            let call = Block::ToolUse {
                id: format!("toolu_{n:04}"),
                name: "Read".into(),
                input: Json::from_value(&serde_json::json!({})),
                extra: Extra::new(),
            };
            let r = reply(format!("c{n}"), &history, call, n as i64);
            history.push(r);
            history.push(tool_result(n, if n % 3 == 0 { 9_000 } else { 3_000 }));
            if n < 59 {
                let r = reply(
                    format!("a{n}"),
                    &history,
                    Block::text("x".repeat(3_600)),
                    n as i64,
                );
                history.push(r);
            }
        }
        let mut settings = Preset::Seed.settings(window);
        settings.compact.offline_fallback = true;
        let mut engine = Engine::new(settings).unwrap();
        for m in history {
            engine.append(m).unwrap();
        }
        let sent = |e: &Engine| -> Vec<Message> { e.view().sent_messages().cloned().collect() };
        let d = engine.before_call(Some(&at(24 * 60)));
        let mut host = Host {
            engine,
            mode: ThinkingMode::Strip,
            requests: 0,
        };
        host.answer(&d).unwrap();
        let request = sent(&host.engine);
        assert!(failing(&request).is_empty(), "{window}: {:?}", failing(&request));
        assert_eq!(open_loop_unsigned(&request), None, "{window}");
        // The API's overflow on it: the emergency compaction summarises the
        // loop; what is sent after it is legal too.
        host.engine.prompt_too_long();
        host.settle().unwrap();
        let request = sent(&host.engine);
        assert!(failing(&request).is_empty(), "{window}: after 413");
        assert_eq!(open_loop_unsigned(&request), None, "{window}: after 413");
    }
}

/// A loaded history (a resumed Claude Code session) whose replies do not
/// all think: a large result read by a reply without thinking, another read
/// by a reply with signed thinking that opens a tool loop. The signed reply
/// read both results whole, so both reductions are undone, and nothing
/// before its block changed: the request keeps it (an open loop's block
/// must stay: the API refuses the loop without it). Before the fix the
/// first reduction's rewrite outlived its undoing, and the open loop's
/// block was dropped over an unchanged prefix.
#[test]
fn r13_1_reductions_undone_under_a_signed_reply_leave_no_rewrite_behind() {
    let call = |n: usize| Block::ToolUse {
        id: format!("toolu_{n:04}"),
        name: "Bash".into(),
        input: Json::from_value(&serde_json::json!({"command": "ls"})),
        extra: Extra::new(),
    };
    let unsigned = |n: usize| Message::new(format!("c{n}"), Role::Assistant, Content::Blocks(vec![call(n)]));
    let mut history = vec![Message::user("p0", "go")];
    history.push(unsigned(0));
    history.push(tool_result(0, 5_000));
    history.push(unsigned(1));
    history.push(tool_result(1, 5_000));
    let r = reply("c2".into(), &history, call(2), 0);
    history.push(r);
    history.push(tool_result(2, 10));
    assert!(failing(&history).is_empty(), "the model's own history passes");
    let mut engine = Engine::new(Preset::Seed.settings(200_000)).unwrap();
    for m in history.clone() {
        engine.append(m).unwrap();
    }
    let d = engine.before_call(None);
    let request: Vec<Message> = engine.view().sent_messages().cloned().collect();
    assert_eq!(request, history, "nothing to rewrite: {:?}", d.steps);
    assert!(failing(&request).is_empty());
    assert_eq!(open_loop_unsigned(&request), None);
    assert!(
        !d.steps.iter().any(|s| s.rule == "R13.1" || s.rule == "R2.2"),
        "{:?}",
        d.steps
    );
}
