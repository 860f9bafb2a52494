//! Converted output shapes: built from the engine's values field by field
//! (the engine names a few variant fields in snake_case; JS gets camelCase).

use serde::{Deserialize, Serialize};
use tsify::Tsify;

use super::*;

/// What the host must do with the call (SPEC R1.7).
#[derive(Debug, Clone, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase", tag = "kind", rename_all_fields = "camelCase")]
pub enum CallStatus {
    /// Send it.
    Proceed,
    /// Send it, and show "N tokens left" before compaction.
    Warn {
        /// Tokens left before the compact line.
        tokens_left: f64,
    },
    /// Over the compact line after tiers 1–2; send it if under blocked.
    CompactionDue {
        /// Tokens over the compact line.
        over_by: f64,
    },
    /// Tier 3 segment summaries are pending and the call waits for them.
    WaitForCollapse {
        /// Segment summaries still pending.
        pending: f64,
    },
    /// Refused: compact first.
    Blocked {
        /// Tokens at or over the blocked line.
        over_by: f64,
    },
}

impl From<&core_engine::CallStatus> for CallStatus {
    fn from(s: &core_engine::CallStatus) -> Self {
        use core_engine::CallStatus as C;
        match s {
            C::Proceed => CallStatus::Proceed,
            C::Warn { tokens_left } => CallStatus::Warn {
                tokens_left: *tokens_left as f64,
            },
            C::CompactionDue { over_by } => CallStatus::CompactionDue {
                over_by: *over_by as f64,
            },
            C::WaitForCollapse { pending } => CallStatus::WaitForCollapse {
                pending: *pending as f64,
            },
            C::Blocked { over_by } => CallStatus::Blocked {
                over_by: *over_by as f64,
            },
        }
    }
}

/// What a summary is for.
#[derive(Debug, Clone, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase", tag = "kind", rename_all_fields = "camelCase")]
pub enum Purpose {
    /// A Tier 4 compaction: answer with `answerSummary`.
    Compact,
    /// A background summary at the precompute line: `answerPrecompute`.
    Precompute,
    /// One segment of a Tier 3 collapse: `answerCollapse`.
    CollapseSegment {
        /// The segment's first turn (1-based).
        first_turn: f64,
        /// Its last turn.
        last_turn: f64,
    },
}

/// The engine needs a summary: send `messages`, then `prompt` as a user
/// message, to `model` with tools denied; answer with the request's `id`.
#[derive(Debug, Clone, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct SummaryRequest {
    /// Answer with this id.
    pub id: f64,
    /// What the summary is for (which `answer…` method takes it).
    pub purpose: Purpose,
    /// The model to ask.
    pub model: String,
    /// The models left after it, in order.
    pub fallback_models: Vec<String>,
    /// The messages to summarise, ready for the API.
    pub messages: Vec<MessageParam>,
    /// The summary prompt, to append as the last user message.
    pub prompt: String,
    /// The request's estimated size in tokens.
    pub estimated_tokens: f64,
    /// 1 for the first attempt.
    pub attempt: f64,
}

impl SummaryRequest {
    /// Converts an engine request (messages reduced to `role` + `content`,
    /// moved, not copied: a compaction's request holds most of the history).
    pub fn from_core(r: core_compact::SummaryRequest) -> Self {
        use compaction_core::compact::Purpose as P;
        SummaryRequest {
            id: r.id as f64,
            purpose: match r.purpose {
                P::Compact => Purpose::Compact,
                P::Precompute => Purpose::Precompute,
                P::CollapseSegment {
                    first_turn,
                    last_turn,
                } => Purpose::CollapseSegment {
                    first_turn: first_turn as f64,
                    last_turn: last_turn as f64,
                },
            },
            model: r.model,
            fallback_models: r.fallback_models,
            messages: r.messages.into_iter().map(param).collect(),
            prompt: r.prompt,
            estimated_tokens: r.estimated_tokens as f64,
            attempt: f64::from(r.attempt),
        }
    }
}

/// A message reduced to what the API takes.
pub fn param(m: compaction_core::message::Message) -> MessageParam {
    MessageParam {
        role: m.role.as_str().to_owned(),
        clear_at: m.extra.get("clear_at").cloned(),
        output_config: m.extra.get("output_config").cloned(),
        content: m.content,
    }
}

/// The engine needs file contents to re-attach recently read files
/// (SPEC R7.7): answer with `answerFiles`.
#[derive(Debug, Clone, Serialize, Deserialize, Tsify)]
#[serde(deny_unknown_fields)]
pub struct FileRequest {
    /// Answer with this id.
    pub id: f64,
    /// The files, most recent first.
    pub paths: Vec<String>,
    /// Run your post-compact hooks too and pass their output to
    /// `answerFiles` (SPEC R7.1; the `postCompactHooks` setting).
    #[serde(rename = "postCompactHooks")]
    pub post_compact_hooks: bool,
}

/// Where a compaction stands.
#[derive(Debug, Clone, Serialize, Tsify)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum Progress {
    /// Waiting for a summary: answer `request`.
    NeedsSummary {
        /// The request.
        request: SummaryRequest,
    },
    /// After a 413 (SPEC R8.1, collapse overflow recovery): answer each
    /// segment request with `answerCollapse`, then retry the call; another
    /// 413 in the same turn compacts.
    NeedsCollapse {
        /// One request per segment.
        requests: Vec<SummaryRequest>,
    },
    /// Waiting for file contents: answer `request` with `answerFiles`.
    NeedsFiles {
        /// The request.
        #[tsify(type = "FileRequest")]
        request: core_compact::FileRequest,
    },
    /// Done: the view is the new one.
    Compacted {
        /// What was written.
        #[tsify(type = "Compacted")]
        result: Box<core_compact::Compacted>,
        /// The transcript records of this compaction (JSONL lines in Claude
        /// Code's shape: the `compact_boundary`, the summary, attachments),
        /// also queued for `takeRecords()`.
        records: Vec<String>,
    },
    /// Failed: the old view is still in force.
    Failed {
        /// Why, in one line.
        reason: String,
    },
}

/// The engine's answer before one model call.
#[derive(Debug, Clone, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct Decision {
    /// What the engine did, in order.
    #[tsify(type = "Step[]")]
    pub steps: Vec<compaction_core::step::Step>,
    /// The count after those steps.
    #[tsify(type = "TokenFigure")]
    pub count: compaction_core::tokens::TokenFigure,
    /// The lines it was held against.
    pub lines: Thresholds,
    /// What to do with the call.
    pub status: CallStatus,
    /// The `context_management` parameter to send with the call, or `null`:
    /// your `clearThinking` edit first, cache-aware microcompact's clearing,
    /// server compaction (R13.4).
    #[tsify(type = "ContextManagement | null")]
    pub context_management: Option<compaction_core::api::ContextManagement>,
    /// The beta headers the call needs (`betas` of
    /// `client.beta.messages.create`), sorted (R13.4).
    pub betas: Vec<String>,
    /// What to merge into the call's `thinking` parameter (setting
    /// `thinking: "drop_block"`), or `null` (R13.1).
    #[tsify(type = "{ block_binding: { prefix_mismatch_behavior: \"drop_block\" } } | null")]
    pub thinking: Option<compaction_core::api::ThinkingParams>,
    /// Tool results the client cleared in this call.
    pub cleared_by_client: Vec<String>,
    /// The automatic compaction this call started or waits on, or `null`.
    #[tsify(type = "Progress | null")]
    pub compaction: Option<Progress>,
    /// Why automatic compaction is off (`"failures"`, `"rapidRefill"`), or `null`.
    #[tsify(type = "\"failures\" | \"rapidRefill\" | null")]
    pub breaker: Option<compaction_core::breakers::Open>,
    /// Tier 3 segment summaries to answer with `answerCollapse`.
    pub collapse: Vec<SummaryRequest>,
    /// A background summary to answer with `answerPrecompute`, or `null`.
    #[tsify(type = "SummaryRequest | null")]
    pub precompute: Option<SummaryRequest>,
}

/// The result of `promptTooLong()`, `compact()`, `answerSummary()` and
/// `answerFiles()`: the steps taken and where the compaction stands.
#[derive(Debug, Clone, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct CompactionOutcome {
    /// What the engine did.
    #[tsify(type = "Step[]")]
    pub steps: Vec<compaction_core::step::Step>,
    /// Where the compaction stands.
    pub progress: Progress,
}
