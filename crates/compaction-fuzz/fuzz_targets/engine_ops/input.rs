//! The fuzzer's input model for `engine_ops`: arbitrary sessions, settings
//! and host operations, each turned into engine values.

use arbitrary::Arbitrary;
use compaction_core::engine::{EngineSettings, Preset};
use compaction_core::time::Timestamp;

pub(crate) const BASE_MS: i64 = 1_796_000_000_000;
pub(crate) const ELIGIBLE: [&str; 8] = [
    "Read",
    "Bash",
    "Grep",
    "Glob",
    "WebSearch",
    "WebFetch",
    "Edit",
    "Write",
];
pub(crate) const INELIGIBLE: [&str; 6] = ["TodoWrite", "Task", "mcp__srv__tool", "", "ExitPlanMode", "Skill"];

/// Text of varied size and script.
#[derive(Arbitrary, Debug)]
pub(crate) enum Text {
    Raw(String),
    Ascii { len: u16 },
    Unicode { len: u16 },
    Lines { line: String, times: u8 },
    Summary { inner: String, analysis: bool },
}

impl Text {
    pub(crate) fn make(&self) -> String {
        match self {
            Text::Raw(s) => s.clone(),
            Text::Ascii { len } => "x".repeat(usize::from(*len)),
            Text::Unicode { len } => "日😀é\u{301}".repeat(usize::from(*len) / 4 + 1),
            Text::Lines { line, times } => format!("{line}\n").repeat(usize::from(*times)),
            Text::Summary { inner, analysis } => {
                let a = if *analysis {
                    "<analysis>thinking</analysis>\n"
                } else {
                    ""
                };
                format!("{a}<summary>\n1. Primary Request and Intent:\n{inner}\n</summary>")
            }
        }
    }
}

#[derive(Arbitrary, Debug)]
pub(crate) enum Time {
    Minute(u16),
    Raw(i64),
    Text(String),
}

impl Time {
    pub(crate) fn make(&self) -> Option<Timestamp> {
        match self {
            Time::Minute(m) => Some(Timestamp::from_unix_ms(BASE_MS + i64::from(*m) * 60_000)),
            Time::Raw(ms) => Some(Timestamp::from_unix_ms(*ms)),
            Time::Text(t) => Timestamp::parse(t),
        }
    }
}

#[derive(Arbitrary, Debug)]
pub(crate) enum ToolName {
    Eligible(u8),
    Ineligible(u8),
    Raw(String),
}

impl ToolName {
    pub(crate) fn make(&self) -> String {
        match self {
            ToolName::Eligible(i) => ELIGIBLE[usize::from(*i) % ELIGIBLE.len()].to_owned(),
            ToolName::Ineligible(i) => INELIGIBLE[usize::from(*i) % INELIGIBLE.len()].to_owned(),
            ToolName::Raw(s) => s.clone(),
        }
    }
}

/// Which tool_use a result answers.
#[derive(Arbitrary, Debug)]
pub(crate) enum ResultFor {
    /// The n-th still-open tool_use (pairs it).
    Open(u8),
    /// Any tool_use ever made (maybe answered already: a duplicate).
    Any(u8),
    /// An id nobody used.
    Orphan(u8),
}

#[derive(Arbitrary, Debug)]
pub(crate) struct ToolCall {
    pub(crate) name: ToolName,
    pub(crate) path: Option<u8>,
    pub(crate) result: Text,
    pub(crate) is_error: Option<bool>,
    pub(crate) blocks: bool,
}

#[derive(Arbitrary, Debug)]
pub(crate) enum Msg {
    User {
        uuid: u8,
        text: Text,
        blocks: bool,
    },
    Assistant {
        uuid: u8,
        text: Text,
        usage: Option<(u32, u32, u32)>,
        time: Option<Time>,
        thinking: bool,
    },
    /// An assistant tool_use message immediately followed by its results.
    Pair {
        uuid: u8,
        calls: Vec<ToolCall>,
        time: Option<Time>,
        usage: Option<u32>,
    },
    /// An assistant tool_use message on its own (results may come later).
    Uses {
        uuid: u8,
        calls: Vec<ToolCall>,
        time: Option<Time>,
    },
    /// A user message of tool results.
    Results {
        uuid: u8,
        results: Vec<(ResultFor, Text)>,
        with_text: Option<Text>,
    },
    Image {
        uuid: u8,
        role_user: bool,
    },
    Other {
        uuid: u8,
        kind: String,
    },
}

#[derive(Arbitrary, Debug)]
pub(crate) enum Id {
    Pending,
    Offset(i8),
    Raw(u64),
}

#[derive(Arbitrary, Debug)]
pub(crate) enum Answer {
    Text(Text),
    Offline,
    Unavailable,
    TooLong,
    Failed(String),
}

/// What the fuzzed host does with one request `drive` puts to it.
#[derive(Arbitrary, Debug)]
pub(crate) enum HostReply {
    /// A summary answer (to a file or hook request: the engine refuses it).
    Summary(Answer),
    /// The hook blocks, or adds instructions.
    Hook(Option<String>, Vec<String>),
    /// The host's call fails.
    Fails,
}

#[derive(Arbitrary, Debug)]
pub(crate) enum FileReply {
    /// The n-th path asked for.
    Asked(u8, Result<Text, String>),
    /// A path nobody asked for.
    Stray(String, Result<Text, String>),
}

#[derive(Arbitrary, Debug)]
pub(crate) enum Op {
    Append(Msg),
    SetSystem(Text),
    BeforeCall(Option<Time>),
    Plan(Option<Time>),
    Compact {
        instructions: Option<String>,
        block: Option<String>,
        added: Vec<String>,
    },
    AnswerSummary(Id, Answer),
    AnswerHook(Id, Option<String>, Vec<String>),
    /// `drive` with a host answering from this list (then offline).
    Drive(Vec<HostReply>),
    AnswerFiles(Id, Vec<FileReply>, Vec<(String, Text)>),
    SetContext(Vec<(u8, String, Text)>),
    SwapIn {
        skip: u8,
        len: u8,
        reply: Text,
    },
    Collapse {
        which: u8,
        id: Id,
        answer: Answer,
    },
    Precompute(Id, Answer),
    Pin(u8),
    PinRaw(String),
    Unpin(u8),
    Expand(u8),
    ExpandSummary(u8),
    PromptTooLong,
    Breakdown,
    SidecarRoundTrip {
        now: Time,
        later: Time,
    },
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
pub(crate) struct Settings {
    pub(crate) newer: bool,
    pub(crate) raw: bool,
    pub(crate) window: u32,
    pub(crate) max_output: Option<u32>,
    pub(crate) reserve_cap: u32,
    pub(crate) ceiling: Option<u32>,
    pub(crate) override_pct: Option<u8>,
    pub(crate) override_raw: Option<f64>,
    pub(crate) precompute_pct: u8,
    pub(crate) compact_margin: u32,
    pub(crate) warn_margin: u32,
    pub(crate) blocked_margin: u32,
    pub(crate) max_chars: u16,
    pub(crate) head_chars: u16,
    pub(crate) tail_chars: u16,
    pub(crate) eligible: u16,
    pub(crate) context_editing: bool,
    pub(crate) cache_ttl_ms: i32,
    pub(crate) first_after: u8,
    pub(crate) every: u8,
    pub(crate) keep_recent: u8,
    pub(crate) idle_gap_ms: i32,
    pub(crate) time_keep_recent: u8,
    pub(crate) sentinel: Option<String>,
    pub(crate) snip: bool,
    pub(crate) collapse_enabled: bool,
    pub(crate) start_pct: u8,
    pub(crate) blocking_pct: u8,
    pub(crate) segment_turns: u8,
    pub(crate) min_segment_turns: u8,
    pub(crate) keep_recent_turns: u8,
    pub(crate) preserve_groups: u8,
    pub(crate) auto_keep_turns: u8,
    pub(crate) auto_max_retries: u8,
    pub(crate) offline_fallback: bool,
    pub(crate) fallbacks: u8,
    pub(crate) max_files: u8,
    pub(crate) per_file_tokens: u16,
    pub(crate) total_tokens: u32,
    pub(crate) path_only: bool,
    pub(crate) skill_tokens: u16,
    pub(crate) skills_total_tokens: u16,
    pub(crate) post_compact_hooks: bool,
    pub(crate) max_failures: u8,
    pub(crate) refill_turns: u8,
    pub(crate) max_refills: u8,
    pub(crate) chars_per_token: u8,
    pub(crate) image_tokens: u16,
}

impl Settings {
    pub(crate) fn make(&self) -> EngineSettings {
        let preset = if self.newer {
            Preset::NewerClient
        } else {
            Preset::Seed
        };
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
            s.compact.auto_max_retries = u32::from(self.auto_max_retries);
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
            s.collapse.blocking_pct =
                s.collapse.start_pct + u64::from(self.blocking_pct) % (101 - s.collapse.start_pct);
            s.collapse.segment_turns = 1 + usize::from(self.segment_turns % 12);
            s.collapse.min_segment_turns = 1 + usize::from(self.min_segment_turns) % s.collapse.segment_turns;
            s.collapse.keep_recent_turns = usize::from(self.keep_recent_turns % 12);
            s.compact.preserve_groups = usize::from(self.preserve_groups % 4);
            s.compact.auto_keep_turns = usize::from(self.auto_keep_turns % 4);
            s.compact.auto_max_retries = 1 + u32::from(self.auto_max_retries % 4);
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
pub(crate) struct Input {
    pub(crate) settings: Settings,
    pub(crate) system: Option<Text>,
    pub(crate) ops: Vec<Op>,
}
