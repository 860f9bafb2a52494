//! Fuzzes the `Engine` through arbitrary sequences of host operations (append, before_call, compact, answers, collapse, precompute, pin/unpin/expand, prompt_too_long, plan, sidecars) over arbitrary settings, checking after every op that nothing panics, the store holds exactly the successful appends, and the sent view stays pairing-legal whenever the appended history is.
#![no_main]

use arbitrary::Arbitrary;
use compaction_core::compact::attachments::Kind;
use compaction_core::compact::{CompactOptions, ContextItem, FileAnswer, HookOutcome, HookOutput, Progress, SummaryAnswer};
use compaction_core::engine::{Engine, Sidecar};
use compaction_core::groups::pairing_is_legal;
use compaction_core::message::{Block, Content, Message, Role, ToolResultContent, Usage, Uuid};
use compaction_core::settings::{EngineSettings, Preset};
use compaction_core::time::Timestamp;
use libfuzzer_sys::fuzz_target;
use serde_json::json;

const BASE_MS: i64 = 1_796_000_000_000;
const ELIGIBLE: [&str; 8] = ["Read", "Bash", "Grep", "Glob", "WebSearch", "WebFetch", "Edit", "Write"];
const INELIGIBLE: [&str; 6] = ["TodoWrite", "Task", "mcp__srv__tool", "", "ExitPlanMode", "Skill"];

/// Text of varied size and script.
#[derive(Arbitrary, Debug)]
enum Text {
    Raw(String),
    Ascii { len: u16 },
    Unicode { len: u16 },
    Lines { line: String, times: u8 },
    Summary { inner: String, analysis: bool },
}

impl Text {
    fn make(&self) -> String {
        match self {
            Text::Raw(s) => s.clone(),
            Text::Ascii { len } => "x".repeat(usize::from(*len)),
            Text::Unicode { len } => "日😀é\u{301}".repeat(usize::from(*len) / 4 + 1),
            Text::Lines { line, times } => format!("{line}\n").repeat(usize::from(*times)),
            Text::Summary { inner, analysis } => {
                let a = if *analysis { "<analysis>thinking</analysis>\n" } else { "" };
                format!("{a}<summary>\n1. Primary Request and Intent:\n{inner}\n</summary>")
            }
        }
    }
}

#[derive(Arbitrary, Debug)]
enum Time {
    Minute(u16),
    Raw(i64),
    Text(String),
}

impl Time {
    fn make(&self) -> Option<Timestamp> {
        match self {
            Time::Minute(m) => Some(Timestamp::from_unix_ms(BASE_MS + i64::from(*m) * 60_000)),
            Time::Raw(ms) => Some(Timestamp::from_unix_ms(*ms)),
            Time::Text(t) => Timestamp::parse(t),
        }
    }
}

#[derive(Arbitrary, Debug)]
enum ToolName {
    Eligible(u8),
    Ineligible(u8),
    Raw(String),
}

impl ToolName {
    fn make(&self) -> String {
        match self {
            ToolName::Eligible(i) => ELIGIBLE[usize::from(*i) % ELIGIBLE.len()].to_owned(),
            ToolName::Ineligible(i) => INELIGIBLE[usize::from(*i) % INELIGIBLE.len()].to_owned(),
            ToolName::Raw(s) => s.clone(),
        }
    }
}

/// Which tool_use a result answers.
#[derive(Arbitrary, Debug)]
enum ResultFor {
    /// The n-th still-open tool_use (pairs it).
    Open(u8),
    /// Any tool_use ever made (maybe answered already: a duplicate).
    Any(u8),
    /// An id nobody used.
    Orphan(u8),
}

#[derive(Arbitrary, Debug)]
struct ToolCall {
    name: ToolName,
    path: Option<u8>,
    result: Text,
    is_error: Option<bool>,
    blocks: bool,
}

#[derive(Arbitrary, Debug)]
enum Msg {
    User { uuid: u8, text: Text, blocks: bool },
    Assistant { uuid: u8, text: Text, usage: Option<(u32, u32, u32)>, time: Option<Time>, thinking: bool },
    /// An assistant tool_use message immediately followed by its results.
    Pair { uuid: u8, calls: Vec<ToolCall>, time: Option<Time>, usage: Option<u32> },
    /// An assistant tool_use message on its own (results may come later).
    Uses { uuid: u8, calls: Vec<ToolCall>, time: Option<Time> },
    /// A user message of tool results.
    Results { uuid: u8, results: Vec<(ResultFor, Text)>, with_text: Option<Text> },
    Image { uuid: u8, role_user: bool },
    Other { uuid: u8, kind: String },
}

#[derive(Arbitrary, Debug)]
enum Id {
    Pending,
    Offset(i8),
    Raw(u64),
}

#[derive(Arbitrary, Debug)]
enum Answer {
    Text(Text),
    Offline,
    Unavailable,
    TooLong,
}

#[derive(Arbitrary, Debug)]
enum FileReply {
    /// The n-th path asked for.
    Asked(u8, Result<Text, String>),
    /// A path nobody asked for.
    Stray(String, Result<Text, String>),
}

#[derive(Arbitrary, Debug)]
enum Op {
    Append(Msg),
    SetSystem(Text),
    BeforeCall(Option<Time>),
    Plan(Option<Time>),
    Compact { instructions: Option<String>, block: Option<String>, added: Vec<String> },
    AnswerSummary(Id, Answer),
    AnswerFiles(Id, Vec<FileReply>, Vec<(String, Text)>),
    SetContext(Vec<(u8, String, Text)>),
    SwapIn { skip: u8, len: u8, reply: Text },
    Collapse { which: u8, id: Id, answer: Answer },
    Precompute(Id, Answer),
    Pin(u8),
    PinRaw(String),
    Unpin(u8),
    Expand(u8),
    ExpandSummary(u8),
    PromptTooLong,
    Breakdown,
    SidecarRoundTrip { now: Time, later: Time },
    LoadSidecar {
        session: bool,
        model: bool,
        created: Time,
        now: Time,
        tokens_at: u64,
        history_len: u64,
        summarised: Vec<u8>,
        reply: Text,
    },
}

/// Settings: a window-scaled valid set, or raw numbers that may be invalid.
#[derive(Arbitrary, Debug)]
struct Settings {
    newer: bool,
    raw: bool,
    window: u32,
    max_output: Option<u32>,
    reserve_cap: u32,
    ceiling: Option<u32>,
    override_pct: Option<u8>,
    override_raw: Option<f64>,
    precompute_pct: u8,
    compact_margin: u32,
    warn_margin: u32,
    blocked_margin: u32,
    max_chars: u16,
    head_chars: u16,
    tail_chars: u16,
    eligible: u16,
    context_editing: bool,
    cache_ttl_ms: i32,
    first_after: u8,
    every: u8,
    keep_recent: u8,
    idle_gap_ms: i32,
    time_keep_recent: u8,
    sentinel: Option<String>,
    snip: bool,
    collapse_enabled: bool,
    start_pct: u8,
    blocking_pct: u8,
    segment_turns: u8,
    min_segment_turns: u8,
    keep_recent_turns: u8,
    preserve_groups: u8,
    auto_keep_turns: u8,
    auto_max_attempts: u8,
    offline_fallback: bool,
    fallbacks: u8,
    max_files: u8,
    per_file_tokens: u16,
    total_tokens: u32,
    path_only: bool,
    skill_tokens: u16,
    skills_total_tokens: u16,
    post_compact_hooks: bool,
    max_failures: u8,
    refill_turns: u8,
    max_refills: u8,
    chars_per_token: u8,
    image_tokens: u16,
}

impl Settings {
    fn make(&self) -> EngineSettings {
        let preset = if self.newer { Preset::NewerClient } else { Preset::Seed };
        let mut s;
        if self.raw {
            // Anything at all: invalid combinations must be an `Err` from `Engine::new`.
            s = preset.settings(u64::from(self.window));
            let t = &mut s.thresholds;
            t.max_output_tokens = self.max_output.map(u64::from);
            t.reserve_cap = u64::from(self.reserve_cap);
            t.ceiling = self.ceiling.map(u64::from);
            t.override_pct = self.override_raw;
            t.precompute_pct = u64::from(self.precompute_pct);
            t.compact_margin = u64::from(self.compact_margin) * 16;
            t.warn_margin = u64::from(self.warn_margin) * 16;
            t.blocked_margin = u64::from(self.blocked_margin) * 16;
            s.reduction.max_chars = usize::from(self.max_chars);
            s.reduction.head_chars = usize::from(self.head_chars);
            s.reduction.tail_chars = usize::from(self.tail_chars);
            s.microcompact.cache_ttl_ms = i64::from(self.cache_ttl_ms);
            s.microcompact.idle_gap_ms = i64::from(self.idle_gap_ms);
            s.microcompact.first_after = usize::from(self.first_after);
            s.microcompact.every = usize::from(self.every);
            s.microcompact.keep_recent = usize::from(self.keep_recent);
            s.microcompact.time_keep_recent = usize::from(self.time_keep_recent);
            s.collapse.start_pct = u64::from(self.start_pct);
            s.collapse.blocking_pct = u64::from(self.blocking_pct);
            s.collapse.segment_turns = usize::from(self.segment_turns);
            s.collapse.min_segment_turns = usize::from(self.min_segment_turns);
            s.collapse.keep_recent_turns = usize::from(self.keep_recent_turns);
            s.compact.preserve_groups = usize::from(self.preserve_groups);
            s.compact.auto_keep_turns = usize::from(self.auto_keep_turns);
            s.compact.auto_max_attempts = u32::from(self.auto_max_attempts);
            s.compact.attachments.max_files = usize::from(self.max_files);
            s.compact.attachments.per_file_tokens = u64::from(self.per_file_tokens);
            s.compact.attachments.total_tokens = u64::from(self.total_tokens);
            s.breakers.max_failures = u32::from(self.max_failures);
            s.breakers.refill_turns = usize::from(self.refill_turns);
            s.breakers.max_refills = u32::from(self.max_refills);
            s.estimator.chars_per_token = u64::from(self.chars_per_token);
            s.estimator.image_tokens = u64::from(self.image_tokens);
        } else {
            // A small window so that every tier is reached within a few ops;
            // margins scaled to it so the lines stay ordered.
            let window = 2_000 + u64::from(self.window % 398_000);
            s = preset.settings(window);
            let t = &mut s.thresholds;
            t.reserve_cap = 1 + u64::from(self.reserve_cap) % (window / 4);
            t.max_output_tokens = self.max_output.map(|m| 1 + u64::from(m) % (window / 4));
            t.ceiling = self.ceiling.map(|c| window / 2 + u64::from(c) % window);
            t.override_pct = self.override_pct.map(|p| f64::from(1 + p % 100));
            t.precompute_pct = u64::from(self.precompute_pct % 101);
            t.compact_margin = u64::from(self.compact_margin) % (window / 8);
            t.warn_margin = u64::from(self.warn_margin) % (window / 8);
            t.blocked_margin = u64::from(self.blocked_margin) % (window / 16);
            let max = 1 + usize::from(self.max_chars % 8_000);
            s.reduction.max_chars = max;
            s.reduction.head_chars = usize::from(self.head_chars) % (max + 1);
            s.reduction.tail_chars = usize::from(self.tail_chars) % (max + 1 - s.reduction.head_chars);
            s.microcompact.cache_ttl_ms = i64::from(self.cache_ttl_ms.unsigned_abs() % 7_200_000);
            s.microcompact.idle_gap_ms = i64::from(self.idle_gap_ms.unsigned_abs() % 14_400_000);
            s.microcompact.first_after = usize::from(self.first_after % 60);
            s.microcompact.every = 1 + usize::from(self.every % 30);
            s.microcompact.keep_recent = usize::from(self.keep_recent % 25);
            s.microcompact.time_keep_recent = usize::from(self.time_keep_recent % 25);
            s.collapse.start_pct = 1 + u64::from(self.start_pct % 100);
            s.collapse.blocking_pct = s.collapse.start_pct + u64::from(self.blocking_pct) % (101 - s.collapse.start_pct);
            s.collapse.segment_turns = 1 + usize::from(self.segment_turns % 12);
            s.collapse.min_segment_turns = 1 + usize::from(self.min_segment_turns) % s.collapse.segment_turns;
            s.collapse.keep_recent_turns = usize::from(self.keep_recent_turns % 12);
            s.compact.preserve_groups = usize::from(self.preserve_groups % 4);
            s.compact.auto_keep_turns = usize::from(self.auto_keep_turns % 4);
            s.compact.auto_max_attempts = 1 + u32::from(self.auto_max_attempts % 4);
            s.compact.attachments.max_files = usize::from(self.max_files % 8);
            s.compact.attachments.per_file_tokens = u64::from(self.per_file_tokens);
            s.compact.attachments.total_tokens = u64::from(self.total_tokens % 100_000);
            s.breakers.max_failures = 1 + u32::from(self.max_failures % 5);
            s.breakers.refill_turns = usize::from(self.refill_turns % 5);
            s.breakers.max_refills = 1 + u32::from(self.max_refills % 5);
            s.estimator.chars_per_token = 1 + u64::from(self.chars_per_token % 8);
            s.estimator.image_tokens = u64::from(self.image_tokens % 4_000);
        }
        s.microcompact.eligible_tools = ELIGIBLE
            .iter()
            .enumerate()
            .filter(|(i, _)| self.eligible & (1 << i) == 0)
            .map(|(_, n)| (*n).to_owned())
            .collect();
        if self.eligible & 0x100 != 0 {
            s.microcompact.eligible_tools.push("TodoWrite".to_owned());
        }
        s.microcompact.context_editing = self.context_editing;
        if let Some(sentinel) = &self.sentinel {
            s.microcompact.sentinel = sentinel.clone();
        }
        s.snip = self.snip;
        s.collapse.enabled = self.collapse_enabled;
        s.compact.offline_fallback = self.offline_fallback;
        s.compact.fallback_models = (0..self.fallbacks % 4).map(|i| format!("fallback-{i}")).collect();
        s.compact.attachments.path_only = self.path_only;
        s.compact.attachments.skill_tokens = u64::from(self.skill_tokens);
        s.compact.attachments.skills_total_tokens = u64::from(self.skills_total_tokens);
        s.compact.attachments.post_compact_hooks = self.post_compact_hooks;
        s
    }
}

#[derive(Arbitrary, Debug)]
struct Input {
    settings: Settings,
    system: Option<Text>,
    ops: Vec<Op>,
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
                input,
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
            Err(_) => assert_eq!(self.engine.store().len(), before, "a failed append changed the store"),
        }
    }

    fn append_msg(&mut self, msg: &Msg) {
        match msg {
            Msg::User { uuid: u, text, blocks } => {
                let content = if *blocks {
                    Content::Blocks(vec![Block::text(text.make())])
                } else {
                    Content::Text(text.make())
                };
                self.append(Message::new(uuid(*u), Role::User, content));
            }
            Msg::Assistant { uuid: u, text, usage, time, thinking } => {
                let content = if *thinking {
                    Content::Blocks(vec![
                        Block::Thinking { thinking: "hmm".into(), extra: Default::default() },
                        Block::text(text.make()),
                    ])
                } else {
                    Content::Text(text.make())
                };
                let mut m = Message::new(uuid(*u), Role::Assistant, content);
                m.timestamp = time.as_ref().and_then(Time::make);
                m.usage = usage.map(|(i, c, r)| Usage {
                    input_tokens: u64::from(i),
                    output_tokens: 10,
                    cache_creation_input_tokens: u64::from(c),
                    cache_read_input_tokens: u64::from(r),
                });
                self.append(m);
            }
            Msg::Pair { uuid: u, calls, time, usage } => {
                let (uses, results) = self.tool_uses(calls);
                if uses.is_empty() {
                    return;
                }
                let mut call = Message::new(uuid(*u), Role::Assistant, Content::Blocks(uses));
                call.timestamp = time.as_ref().and_then(Time::make);
                call.usage = usage.map(|i| Usage { input_tokens: u64::from(i), ..Usage::default() });
                self.append(call);
                self.append(Message::new(uuid(u.wrapping_add(1)), Role::User, Content::Blocks(results)));
            }
            Msg::Uses { uuid: u, calls, time } => {
                let (uses, _) = self.tool_uses(calls);
                let mut call = Message::new(uuid(*u), Role::Assistant, Content::Blocks(uses));
                call.timestamp = time.as_ref().and_then(Time::make);
                self.append(call);
            }
            Msg::Results { uuid: u, results, with_text } => {
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
                let mut extra = serde_json::Map::new();
                extra.insert("source".into(), json!({"type": "base64", "data": "AAAA"}));
                self.append(Message::new(uuid(*u), role, Content::Blocks(vec![Block::Image { extra }])));
            }
            Msg::Other { uuid: u, kind } => {
                let mut extra = serde_json::Map::new();
                extra.insert("data".into(), json!(kind));
                self.append(Message::new(
                    uuid(*u),
                    Role::Assistant,
                    Content::Blocks(vec![Block::Other { kind: kind.clone(), extra }]),
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
            Op::Compact { instructions, block, added } => {
                let options = CompactOptions {
                    instructions: instructions.clone(),
                    hook: HookOutcome {
                        block: block.clone(),
                        added_instructions: added.clone(),
                    },
                };
                let (_, p) = e.compact(options);
                self.note(&p);
            }
            Op::AnswerSummary(id, answer) => {
                let pending = match e.pending_request() {
                    Some(Progress::NeedsSummary { request }) => Some(request.id),
                    Some(Progress::NeedsFiles { request }) => Some(request.id),
                    _ => None,
                };
                let id = self.id(id, pending);
                let e = &mut self.engine;
                let r = match answer {
                    Answer::Text(t) => e.answer_summary(id, SummaryAnswer::Text(t.make())),
                    Answer::Offline => e.answer_offline(id),
                    Answer::Unavailable => e.answer_summary(id, SummaryAnswer::ModelUnavailable),
                    Answer::TooLong => e.answer_summary(id, SummaryAnswer::PromptTooLong),
                };
                if let Ok((_, p)) = r {
                    self.note(&p);
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
                let (_, p) = e.swap_in_summary(&summarised, &reply.make());
                self.note(&p);
            }
            Op::SetContext(items) => {
                let kinds = [Kind::File, Kind::Plan, Kind::TaskState, Kind::Skill, Kind::Mcp, Kind::HookOutput];
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
                let (pending, paths) = match e.pending_request() {
                    Some(Progress::NeedsFiles { request }) => (Some(request.id), request.paths),
                    Some(Progress::NeedsSummary { request }) => (Some(request.id), Vec::new()),
                    _ => (None, Vec::new()),
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
                if let Ok((_, p)) = self.engine.answer_files_and_hooks(id, &answers, &hooks) {
                    self.note(&p);
                }
            }
            Op::Collapse { which, id, answer } => {
                let requests = e.collapse_requests();
                let pending = (!requests.is_empty()).then(|| requests[usize::from(*which) % requests.len()].id);
                let id = self.id(id, pending);
                let e = &mut self.engine;
                let _ = match answer {
                    Answer::Text(t) => e.answer_collapse(id, SummaryAnswer::Text(t.make())),
                    Answer::Offline => e.answer_collapse_offline(id),
                    Answer::Unavailable => e.answer_collapse(id, SummaryAnswer::ModelUnavailable),
                    Answer::TooLong => e.answer_collapse(id, SummaryAnswer::PromptTooLong),
                };
            }
            Op::Precompute(id, answer) => {
                let pending = e.precompute_request().map(|r| r.id);
                let id = self.id(id, pending);
                let e = &mut self.engine;
                let _ = match answer {
                    Answer::Text(t) => e.answer_precompute(id, SummaryAnswer::Text(t.make())),
                    Answer::Offline => e.answer_precompute_offline(id),
                    Answer::Unavailable => e.answer_precompute(id, SummaryAnswer::ModelUnavailable),
                    Answer::TooLong => e.answer_precompute(id, SummaryAnswer::PromptTooLong),
                };
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
                let (_, p) = e.prompt_too_long();
                self.note(&p);
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
                    session_id: if *session { "session".into() } else { "other".into() },
                    model: if *model { e.settings().compact.model.clone() } else { "other".into() },
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
