//! Fuzzes the `Engine` through arbitrary sequences of host operations (append, before_call, compact, answers by id, the core `drive` loop with a host whose replies and failures are fuzzed, collapse, precompute, pin/unpin/expand, prompt_too_long, plan, sidecars) over arbitrary settings, checking after every op that nothing panics, the store holds exactly the successful appends, and the sent view stays pairing-legal whenever the appended history is.
#![no_main]

use compaction_core::compact::attachments::Kind;
use compaction_core::compact::{
    CompactOptions, ContextItem, FileAnswer, HookOutcome, HookOutput, PreCompactRequest, Progress, SummaryRequest,
};
use compaction_core::engine::{self as core, drive, DriveError, Engine, Host, Outcome, Request, Sidecar};
use compaction_core::groups::pairing_is_legal;
use compaction_core::message::{Block, Content, Message, Role, ToolResultContent, Usage, Uuid};
use libfuzzer_sys::fuzz_target;
use serde_json::json;

#[path = "engine_ops/input.rs"]
mod input;
use input::*;

impl Answer {
    fn make(&self) -> core::Answer {
        match self {
            Answer::Text(t) => core::Answer::text(t.make()),
            Answer::Offline => core::Answer::Offline,
            Answer::Unavailable => core::Answer::ModelUnavailable,
            Answer::TooLong => core::Answer::PromptTooLong,
            Answer::Failed(reason) => core::Answer::Failed {
                reason: reason.clone(),
            },
        }
    }
}

/// A host answering `drive` from the fuzzer's list, then offline; a
/// reply of the wrong kind is put to the engine as it is (it must refuse
/// it without changing anything).
struct FuzzHost<'a> {
    replies: std::collections::VecDeque<&'a HostReply>,
}

impl FuzzHost<'_> {
    fn reply(&mut self, default: core::Answer) -> Result<core::Answer, ()> {
        match self.replies.pop_front() {
            None => Ok(default),
            Some(HostReply::Summary(a)) => Ok(a.make()),
            Some(HostReply::Hook(block, added)) => Ok(core::Answer::Hook(HookOutcome {
                block: block.clone(),
                added_instructions: added.clone(),
            })),
            Some(HostReply::Fails) => Err(()),
        }
    }
}

impl Host for FuzzHost<'_> {
    type Error = ();

    fn summarize(&mut self, _: &SummaryRequest) -> Result<core::Answer, ()> {
        self.reply(core::Answer::Offline)
    }

    fn pre_compact(&mut self, _: &PreCompactRequest) -> Result<HookOutcome, ()> {
        match self.reply(core::Answer::allow())? {
            core::Answer::Hook(h) => Ok(h),
            _ => Ok(HookOutcome::default()),
        }
    }

    fn read_files(&mut self, paths: &[String]) -> Result<Vec<FileAnswer>, ()> {
        self.reply(core::Answer::Offline)?;
        Ok(paths
            .iter()
            .map(|p| FileAnswer {
                path: p.clone(),
                content: Ok(format!("// {p}")),
            })
            .collect())
    }
}

/// The fuzzer's view of the session it drives.
struct Harness {
    engine: Engine,
    appended: usize,
    history: Vec<Message>,
    next_tool: u32,
    open_tools: Vec<String>,
    all_tools: Vec<String>,
    summaries: Vec<Uuid>,
}

fn uuid(n: u8) -> String {
    // A small pool, so duplicates happen.
    format!("m{}", n % 48)
}

impl Harness {
    fn tool_uses(&mut self, calls: &[ToolCall]) -> (Vec<Block>, Vec<Block>) {
        let mut uses = Vec::new();
        let mut results = Vec::new();
        for call in calls.iter().take(6) {
            self.next_tool += 1;
            let id = format!("toolu_{}", self.next_tool);
            let input = match call.path {
                Some(p) => json!({
                    "file_path": format!("/src/f{}.rs", p % 12),
                    "command": "x",
                    "skill": format!("s{}", p % 3),
                    "plan": format!("plan {p}"),
                    "todos": [{"content": format!("task {p}"), "status": "pending"}, p],
                }),
                None => json!({"n": self.next_tool}),
            };
            uses.push(Block::ToolUse {
                id: id.clone(),
                name: call.name.make(),
                input: compaction_core::message::Json::from_value(&input),
                extra: Default::default(),
            });
            let text = call.result.make();
            let content = if call.blocks {
                ToolResultContent::Blocks(vec![Block::text(text)])
            } else {
                ToolResultContent::Text(text)
            };
            results.push(Block::ToolResult {
                tool_use_id: id.clone(),
                content,
                is_error: call.is_error,
                extra: Default::default(),
            });
            self.all_tools.push(id);
        }
        (uses, results)
    }

    fn append(&mut self, message: Message) {
        let before = self.engine.store().len();
        match self.engine.append(message.clone()) {
            Ok(()) => {
                self.appended += 1;
                for id in message.tool_result_ids() {
                    self.open_tools.retain(|t| t != id);
                }
                for id in message.tool_use_ids() {
                    self.open_tools.push(id.to_owned());
                }
                self.history.push(message);
            }
            Err(_) => assert_eq!(
                self.engine.store().len(),
                before,
                "a failed append changed the store"
            ),
        }
    }

    fn append_msg(&mut self, msg: &Msg) {
        match msg {
            Msg::User {
                uuid: u,
                text,
                blocks,
            } => {
                let content = if *blocks {
                    Content::Blocks(vec![Block::text(text.make())])
                } else {
                    Content::Text(text.make())
                };
                self.append(Message::new(uuid(*u), Role::User, content));
            }
            Msg::Assistant {
                uuid: u,
                text,
                usage,
                time,
                thinking,
            } => {
                let content = if *thinking {
                    Content::Blocks(vec![
                        Block::Thinking {
                            thinking: "hmm".into(),
                            extra: Default::default(),
                        },
                        Block::text(text.make()),
                    ])
                } else {
                    Content::Text(text.make())
                };
                let mut m = Message::new(uuid(*u), Role::Assistant, content);
                m.timestamp = time.as_ref().and_then(Time::make);
                m.usage = usage.map(|(i, c, r)| {
                    Box::new(Usage {
                        input_tokens: u64::from(i),
                        output_tokens: 10,
                        cache_creation_input_tokens: u64::from(c),
                        cache_read_input_tokens: u64::from(r),
                    })
                });
                self.append(m);
            }
            Msg::Pair {
                uuid: u,
                calls,
                time,
                usage,
            } => {
                let (uses, results) = self.tool_uses(calls);
                if uses.is_empty() {
                    return;
                }
                let mut call = Message::new(uuid(*u), Role::Assistant, Content::Blocks(uses));
                call.timestamp = time.as_ref().and_then(Time::make);
                call.usage = usage.map(|i| {
                    Box::new(Usage {
                        input_tokens: u64::from(i),
                        ..Usage::default()
                    })
                });
                self.append(call);
                self.append(Message::new(
                    uuid(u.wrapping_add(1)),
                    Role::User,
                    Content::Blocks(results),
                ));
            }
            Msg::Uses { uuid: u, calls, time } => {
                let (uses, _) = self.tool_uses(calls);
                let mut call = Message::new(uuid(*u), Role::Assistant, Content::Blocks(uses));
                call.timestamp = time.as_ref().and_then(Time::make);
                self.append(call);
            }
            Msg::Results {
                uuid: u,
                results,
                with_text,
            } => {
                let mut blocks = Vec::new();
                for (target, text) in results.iter().take(6) {
                    let id = match target {
                        ResultFor::Open(i) if !self.open_tools.is_empty() => {
                            self.open_tools[usize::from(*i) % self.open_tools.len()].clone()
                        }
                        ResultFor::Any(i) if !self.all_tools.is_empty() => {
                            self.all_tools[usize::from(*i) % self.all_tools.len()].clone()
                        }
                        ResultFor::Orphan(i) => format!("toolu_orphan_{i}"),
                        _ => continue,
                    };
                    blocks.push(Block::ToolResult {
                        tool_use_id: id,
                        content: ToolResultContent::Text(text.make()),
                        is_error: None,
                        extra: Default::default(),
                    });
                }
                if let Some(t) = with_text {
                    blocks.push(Block::text(t.make()));
                }
                self.append(Message::new(uuid(*u), Role::User, Content::Blocks(blocks)));
            }
            Msg::Image { uuid: u, role_user } => {
                let role = if *role_user { Role::User } else { Role::Assistant };
                let mut extra = compaction_core::message::Extra::new();
                extra.insert(
                    "source".into(),
                    compaction_core::message::Json::from_value(&json!({"type": "base64", "data": "AAAA"})),
                );
                self.append(Message::new(
                    uuid(*u),
                    role,
                    Content::Blocks(vec![Block::Image { extra }]),
                ));
            }
            Msg::Other { uuid: u, kind } => {
                let mut extra = compaction_core::message::Extra::new();
                extra.insert("data".into(), compaction_core::message::Json::from_value(&json!(kind)));
                self.append(Message::new(
                    uuid(*u),
                    Role::Assistant,
                    Content::Blocks(vec![Block::Other {
                        kind: kind.clone(),
                        extra,
                    }]),
                ));
            }
        }
    }

    fn id(&self, id: &Id, pending: Option<u64>) -> u64 {
        match id {
            Id::Pending => pending.unwrap_or(0),
            Id::Offset(d) => pending.unwrap_or(0).wrapping_add_signed(i64::from(*d)),
            Id::Raw(raw) => *raw,
        }
    }

    fn note(&mut self, progress: &Progress) {
        if let Progress::Compacted { result } = progress {
            self.summaries.push(result.summary.uuid.clone());
        }
    }

    fn noted(&mut self, outcome: &Outcome) {
        if let Some(p) = &outcome.compaction {
            self.note(p);
        }
    }

    /// The compaction's pending request id (hooks, summary or files).
    fn tier4(e: &Engine) -> Option<u64> {
        e.requests()
            .into_iter()
            .find(|r| matches!(r, Request::PreCompact(_) | Request::Summary(_) | Request::Files(_)))
            .map(|r| r.id())
    }

    fn run(&mut self, op: &Op) {
        let e = &mut self.engine;
        match op {
            Op::Append(msg) => self.append_msg(msg),
            Op::SetSystem(t) => e.set_system(&t.make()),
            Op::BeforeCall(now) => {
                let now = now.as_ref().and_then(Time::make);
                let d = e.before_call(now.as_ref());
                let _ = serde_json::to_string(&d);
                if let Some(p) = &d.compaction {
                    self.note(p);
                }
            }
            Op::Plan(now) => {
                let now = now.as_ref().and_then(Time::make);
                let before: Vec<Message> = e.view().sent_messages().cloned().collect();
                let _ = e.plan(now.as_ref());
                let after: Vec<Message> = e.view().sent_messages().cloned().collect();
                assert!(before == after, "plan changed the view");
            }
            Op::Compact {
                instructions,
                block,
                added,
            } => {
                let options = CompactOptions {
                    instructions: instructions.clone(),
                };
                let out = e.compact(options);
                self.noted(&out);
                let hook = core::Answer::Hook(HookOutcome {
                    block: block.clone(),
                    added_instructions: added.clone(),
                });
                if let Some(id) = Self::tier4(&self.engine) {
                    if let Ok(out) = self.engine.answer(id, hook) {
                        self.noted(&out);
                    }
                }
            }
            Op::AnswerSummary(id, answer) => {
                let pending = Self::tier4(e);
                let id = self.id(id, pending);
                if let Ok(out) = self.engine.answer(id, answer.make()) {
                    self.noted(&out);
                }
            }
            Op::AnswerHook(id, block, added) => {
                let pending = Self::tier4(e);
                let id = self.id(id, pending);
                let hook = core::Answer::Hook(HookOutcome {
                    block: block.clone(),
                    added_instructions: added.clone(),
                });
                if let Ok(out) = self.engine.answer(id, hook) {
                    self.noted(&out);
                }
            }
            Op::Drive(replies) => {
                let mut host = FuzzHost {
                    replies: replies.iter().take(64).collect(),
                };
                match drive(e, &mut host) {
                    Ok(out) => self.noted(&out),
                    Err(DriveError::Host { .. }) | Err(DriveError::Engine(_)) => {}
                }
            }
            Op::SwapIn { skip, len, reply } => {
                let summarised: Vec<Uuid> = e
                    .view()
                    .entries()
                    .iter()
                    .skip(usize::from(*skip % 4))
                    .take(usize::from(*len))
                    .map(|en| en.message.uuid.clone())
                    .collect();
                let out = e.swap_in_summary(&summarised, &reply.make());
                self.noted(&out);
            }
            Op::SetContext(items) => {
                let kinds = [
                    Kind::File,
                    Kind::Plan,
                    Kind::TaskState,
                    Kind::Skill,
                    Kind::Mcp,
                    Kind::HookOutput,
                ];
                let items = items
                    .iter()
                    .take(8)
                    .map(|(k, name, content)| ContextItem {
                        kind: kinds[usize::from(*k) % kinds.len()],
                        name: name.clone(),
                        content: content.make(),
                    })
                    .collect();
                let _ = e.set_context(items);
            }
            Op::AnswerFiles(id, replies, hooks) => {
                let (pending, paths) = match e.requests().into_iter().next() {
                    Some(Request::Files(request)) => (Some(request.id), request.paths),
                    Some(other) => (Some(other.id()), Vec::new()),
                    None => (None, Vec::new()),
                };
                let answers: Vec<FileAnswer> = replies
                    .iter()
                    .take(10)
                    .filter_map(|r| {
                        let (path, content) = match r {
                            FileReply::Asked(i, c) => {
                                if paths.is_empty() {
                                    return None;
                                }
                                (paths[usize::from(*i) % paths.len()].clone(), c)
                            }
                            FileReply::Stray(p, c) => (p.clone(), c),
                        };
                        Some(FileAnswer {
                            path,
                            content: content.as_ref().map(Text::make).map_err(Clone::clone),
                        })
                    })
                    .collect();
                let id = self.id(id, pending);
                let hooks: Vec<HookOutput> = hooks
                    .iter()
                    .take(4)
                    .map(|(hook, output)| HookOutput {
                        hook: hook.clone(),
                        output: output.make(),
                    })
                    .collect();
                let files = core::Answer::Files { files: answers, hooks };
                if let Ok(out) = self.engine.answer(id, files) {
                    self.noted(&out);
                }
            }
            Op::Collapse { which, id, answer } => {
                let requests: Vec<u64> = e
                    .requests()
                    .iter()
                    .filter(|r| matches!(r, Request::CollapseSegment(_)))
                    .map(Request::id)
                    .collect();
                let pending = (!requests.is_empty()).then(|| requests[usize::from(*which) % requests.len()]);
                let id = self.id(id, pending);
                let _ = self.engine.answer(id, answer.make());
            }
            Op::Precompute(id, answer) => {
                let pending = e
                    .requests()
                    .iter()
                    .find(|r| matches!(r, Request::Precompute(_)))
                    .map(Request::id);
                let id = self.id(id, pending);
                let _ = self.engine.answer(id, answer.make());
            }
            Op::Pin(u) => {
                let _ = e.pin(&Uuid(uuid(*u)));
            }
            Op::PinRaw(s) => {
                let _ = e.pin(&Uuid(s.clone()));
            }
            Op::Unpin(u) => e.unpin(&Uuid(uuid(*u))),
            Op::Expand(u) => {
                let _ = e.expand(&Uuid(uuid(*u)));
            }
            Op::ExpandSummary(i) => {
                if !self.summaries.is_empty() {
                    let s = self.summaries[usize::from(*i) % self.summaries.len()].clone();
                    let _ = self.engine.expand(&s);
                }
            }
            Op::PromptTooLong => {
                let out = e.prompt_too_long();
                self.noted(&out);
            }
            Op::Breakdown => {
                let b = e.breakdown();
                let _ = serde_json::to_string(&b);
                let _ = e.count();
                let _ = e.pinned();
            }
            Op::SidecarRoundTrip { now, later } => {
                let (Some(now), Some(later)) = (now.make(), later.make()) else {
                    return;
                };
                if let Some(sidecar) = e.sidecar("session", "2.1.0", &now) {
                    let _ = e.load_sidecar(sidecar, "session", &later);
                }
            }
            Op::LoadSidecar {
                session,
                model,
                created,
                now,
                tokens_at,
                history_len,
                summarised,
                reply,
            } => {
                let (Some(created), Some(now)) = (created.make(), now.make()) else {
                    return;
                };
                let sidecar = Sidecar {
                    session_id: if *session {
                        "session".into()
                    } else {
                        "other".into()
                    },
                    model: if *model {
                        e.settings().compact.model.clone()
                    } else {
                        "other".into()
                    },
                    client_version: "2.1.0".into(),
                    created_at: created,
                    tokens_at: *tokens_at,
                    history_len: usize::try_from(*history_len).unwrap_or(usize::MAX),
                    summarised: summarised.iter().take(16).map(|u| Uuid(uuid(*u))).collect(),
                    reply: reply.make(),
                };
                let _ = e.load_sidecar(sidecar, "session", &now);
            }
        }
    }

    fn check(&self) {
        assert_eq!(
            self.engine.store().len(),
            self.appended,
            "the store holds exactly the successful appends"
        );
        if pairing_is_legal(&self.history).is_ok() {
            let sent: Vec<Message> = self.engine.view().sent_messages().cloned().collect();
            if let Err(why) = pairing_is_legal(&sent) {
                panic!("the sent view broke tool pairing: {why}");
            }
        }
    }
}

fuzz_target!(|input: Input| {
    let settings = input.settings.make();
    let Ok(engine) = Engine::new(settings) else {
        return;
    };
    let mut h = Harness {
        engine,
        appended: 0,
        history: Vec::new(),
        next_tool: 0,
        open_tools: Vec::new(),
        all_tools: Vec::new(),
        summaries: Vec::new(),
    };
    if let Some(system) = &input.system {
        h.engine.set_system(&system.make());
    }
    for op in input.ops.iter().take(64) {
        h.run(op);
        h.check();
    }
});
