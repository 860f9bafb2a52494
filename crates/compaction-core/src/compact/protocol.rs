//! The data a compaction exchanges with its host (SPEC R7): its settings,
//! how it is asked for, the requests it makes, the answers it takes, and
//! where a run stands.

use serde::{Deserialize, Serialize};

use crate::compact::attachments::{AttachmentSettings, Candidate};
use crate::compact::boundary::{BoundaryRecord, SummaryRecord, Trigger};
use crate::message::Message;
use crate::summary::RetentionReport;

/// Tier 4's settings.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CompactSettings {
    /// The session's model: the first in the fallback chain (R7.10).
    pub model: String,
    /// Models tried in order when the one before is unavailable (R7.10;
    /// default none: the chain is the session's own model).
    pub fallback_models: Vec<String>,
    /// Manual/reactive regime: legal groups preserved at first (R7.5;
    /// default 1).
    pub preserve_groups: usize,
    /// Auto regime: most recent turns kept (R7.5; seed 000 says 1–2;
    /// default 2).
    pub auto_keep_turns: usize,
    /// Auto and partial regime: truncation retries when the summary request
    /// is over the window, before it is sent or after the API refused it
    /// (R7.5, seed 002: at most 3, so at most 4 requests; default 3).
    pub auto_max_retries: u32,
    /// Use the offline summariser when the model chain is exhausted (R7.10;
    /// default off: the host must opt in).
    pub offline_fallback: bool,
    /// Attachment budgets (R7.7).
    pub attachments: AttachmentSettings,
    /// Where the session's transcript is (R11.3; default none): when set,
    /// the summary message names it, as Claude Code's continuation message
    /// does, so the model can read older detail itself.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transcript_path: Option<String>,
    /// How a session file writes a boundary's metadata (default SPEC
    /// R7.9's; the newer-client preset Claude Code 2.1.170's).
    pub records: crate::compact::boundary::RecordShape,
}

impl Default for CompactSettings {
    fn default() -> Self {
        CompactSettings {
            model: "session-model".to_owned(),
            fallback_models: Vec::new(),
            preserve_groups: 1,
            auto_keep_turns: 2,
            auto_max_retries: 3,
            offline_fallback: false,
            attachments: AttachmentSettings::default(),
            transcript_path: None,
            records: crate::compact::boundary::RecordShape::Spec,
        }
    }
}

/// A PreCompact hook's output (R7.2): allow or block, and instructions to
/// add to the prompt. The host runs hooks; the engine takes their output as
/// the answer to a [`PreCompactRequest`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HookOutcome {
    /// `Some(reason)`: the hook blocks the compaction.
    pub block: Option<String>,
    /// Instructions appended to the summary prompt.
    pub added_instructions: Vec<String>,
}

/// Partial compaction ("summarize from here", R7.5): only the messages on
/// one side of a chosen message are summarised, the rest stays verbatim.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PartialCompact {
    /// The chosen message (a view uuid, at a legal cut).
    pub uuid: crate::message::Uuid,
    /// Which side is summarised.
    pub direction: Direction,
    /// Instructions for the summary, as `/compact [instructions]`.
    pub instructions: Option<String>,
}

/// Which side of the chosen message a partial compaction summarises.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Direction {
    /// The chosen message and everything after it; what came before stays
    /// verbatim, and the summary follows it.
    From,
    /// Everything before the chosen message; it and what follows stay
    /// verbatim after the summary.
    UpTo,
}

/// How a manual compaction is asked for.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CompactOptions {
    /// `/compact [instructions]` (R3.2, R7.3).
    pub instructions: Option<String>,
}

/// Before every compaction, manual, automatic or reactive, the engine asks
/// the host's PreCompact hooks (R7.1, R7.2): answer with their combined
/// [`HookOutcome`] (a default one when the host has no hooks).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PreCompactRequest {
    /// Answer with this id.
    pub id: u64,
    /// `manual` (`/compact`) or `auto` (the cascade, or a 413: reactive).
    pub trigger: Trigger,
    /// The user's `/compact` instructions, if any (the hook may read them).
    pub instructions: Option<String>,
}

/// What a summary is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum Purpose {
    /// A Tier 4 compaction.
    Compact,
    /// A summary prepared in the background at the precompute line (R9.1).
    Precompute,
    /// One segment of a Tier 3 collapse (R6.1).
    CollapseSegment {
        /// The segment's first turn (1-based, in session order).
        first_turn: usize,
        /// Its last turn.
        last_turn: usize,
    },
}

/// The engine needs a summary: send `prompt` as a user message after
/// `messages`, to `model`, with tools denied, and answer with the reply's
/// text (`Answer::Text`, or `Answer::Offline` for the offline summariser).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SummaryRequest {
    /// Answer with this id.
    pub id: u64,
    /// What the summary is for.
    pub purpose: Purpose,
    /// The model to ask (shared, as the prompt).
    pub model: std::sync::Arc<str>,
    /// The models left after it, in order (shared).
    pub fallback_models: std::sync::Arc<[String]>,
    /// The messages to summarise, in order; shared, so a request listed
    /// again while pending is not copied again.
    pub messages: std::sync::Arc<[Message]>,
    /// The summary prompt (R7.3), to append as a user message; shared, so
    /// a request listed again while pending is not copied again.
    pub prompt: std::sync::Arc<str>,
    /// The request's estimated size, system prompt included.
    pub estimated_tokens: u64,
    /// 1 for the first attempt.
    pub attempt: u32,
    /// "Tools denied" as data (R7.3a): send it as the call's `tool_choice`
    /// so the model cannot call a tool. The API wants the session's tool
    /// definitions sent too when `messages` hold `tool_use` or
    /// `tool_result` blocks ("Requests which include tool_use or
    /// tool_result blocks must define tools"); with this choice none of
    /// them can be called.
    pub tool_choice: ToolChoice,
}

/// How a summary call may use tools (R7.3a): not at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum ToolChoice {
    /// `{"type": "none"}`: the model answers with text and calls no tool.
    None,
}

/// The engine needs file contents for attachments (R7.7): answer with
/// `Answer::Files`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FileRequest {
    /// Answer with this id.
    pub id: u64,
    /// The files, most recent first (none with the path-only preset).
    pub paths: Vec<String>,
    /// Run the post-compact hooks too and pass their output with the
    /// answer (`Answer::Files`'s `hooks`; R7.1: after the attachments,
    /// before the new view).
    pub post_compact_hooks: bool,
}

/// A finished compaction.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Compacted {
    /// The boundary record to append to the transcript (R7.9).
    pub boundary: BoundaryRecord,
    /// The summary record that follows it.
    pub summary: SummaryRecord,
    /// How each attachment candidate ended (R7.7).
    pub attachments: Vec<Candidate>,
    /// What the summary left out (extension), if anything.
    pub retention: RetentionReport,
    /// The messages it restored after the summary (attachments, re-attached
    /// context), as its new view got them: the records a log writes after
    /// the summary (R7.9). Taken from here, not from the view later: a
    /// compaction that follows at once (one `prepare`) has its own.
    #[serde(skip)]
    pub restored: Vec<crate::message::Message>,
}

/// Where a compaction stands after a call.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum Progress {
    /// Waiting for the host: its requests are in the outcome's (or the
    /// decision's) `requests`.
    Waiting,
    /// Done: the view is the new one.
    Compacted {
        /// What was written.
        result: Box<Compacted>,
    },
    /// Failed or blocked: the old view is still in force, no boundary was
    /// written.
    Failed {
        /// Why, in one line.
        reason: String,
    },
}
