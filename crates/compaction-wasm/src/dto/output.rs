//! Converted output shapes: built from the engine's values field by field
//! (the engine names a few variant fields in snake_case; JS gets camelCase).

use serde::ser::SerializeStruct;
use serde::{Deserialize, Serialize};
use tsify::Tsify;

use super::*;

/// What the host must do with the call (SPEC R1.7).
#[derive(Debug, Clone, PartialEq, Deserialize, Tsify)]
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

/// As the attributes above say (`derive(Serialize)` wrote the same), by
/// core's one function for such enums.
impl Serialize for CallStatus {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let (kind, field) = match self {
            CallStatus::Proceed => ("proceed", None),
            CallStatus::Warn { tokens_left } => ("warn", Some(("tokensLeft", tokens_left))),
            CallStatus::CompactionDue { over_by } => ("compactionDue", Some(("overBy", over_by))),
            CallStatus::WaitForCollapse { pending } => ("waitForCollapse", Some(("pending", pending))),
            CallStatus::Blocked { over_by } => ("blocked", Some(("overBy", over_by))),
        };
        compaction_core::step::serialize_tagged(serializer, "CallStatus", kind, field)
    }
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase", tag = "kind", rename_all_fields = "camelCase")]
pub enum Purpose {
    /// A Tier 4 compaction.
    Compact,
    /// A background summary at the precompute line.
    Precompute,
    /// One segment of a Tier 3 collapse.
    CollapseSegment {
        /// The segment's first turn (1-based).
        first_turn: f64,
        /// Its last turn.
        last_turn: f64,
    },
}

/// The engine needs a summary: send `messages`, then `prompt` as a user
/// message, to `model` with tools denied; answer with the request's `id`.
#[derive(Debug, Clone, PartialEq, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct SummaryRequest {
    /// Answer with this id.
    pub id: f64,
    /// What the summary is for.
    pub purpose: Purpose,
    /// The model to ask.
    #[tsify(type = "string")]
    pub model: std::sync::Arc<str>,
    /// The models left after it, in order.
    #[tsify(type = "string[]")]
    pub fallback_models: std::sync::Arc<[String]>,
    /// The messages to summarise, ready for the plain Messages API (no
    /// `system` role, no beta block).
    #[tsify(type = "PlainMessageParam[]")]
    pub messages: crate::js::SharedParams,
    /// The summary prompt, to append as the last user message.
    // The engine's, shared (as the model's name and the fallbacks): not
    // copied on every call the request is pending.
    #[tsify(type = "string")]
    pub prompt: std::sync::Arc<str>,
    /// The request's estimated size in tokens.
    pub estimated_tokens: f64,
    /// 1 for the first attempt.
    pub attempt: f64,
    /// "Tools denied" as data (R7.3a): send it as the call's `tool_choice`
    /// (with your tool definitions when `messages` hold tool blocks: the
    /// API wants them defined; with `none` none can be called).
    pub tool_choice: ToolChoice,
}

/// How a summary call may use tools: `{ type: "none" }`, not at all.
#[derive(Debug, Clone, PartialEq, Copy, Serialize, Deserialize, Tsify)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum ToolChoice {
    /// The model answers with text and calls no tool.
    None,
}

impl Serialize for SummaryRequest {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.write(serializer, None)
    }
}

impl SummaryRequest {
    /// Its fields, as the attributes above name them, after `kind` when it
    /// is a [`Request`] (what `derive(Serialize)` wrote through serde's
    /// tagging serializer).
    fn write<S: serde::Serializer>(
        &self,
        serializer: S,
        kind: Option<&'static str>,
    ) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("SummaryRequest", 9 + usize::from(kind.is_some()))?;
        if let Some(kind) = kind {
            s.serialize_field("kind", kind)?;
        }
        s.serialize_field("id", &self.id)?;
        s.serialize_field("purpose", &self.purpose)?;
        s.serialize_field("model", &*self.model)?;
        s.serialize_field("fallbackModels", &*self.fallback_models)?;
        s.serialize_field("messages", &self.messages)?;
        s.serialize_field("prompt", &*self.prompt)?;
        s.serialize_field("estimatedTokens", &self.estimated_tokens)?;
        s.serialize_field("attempt", &self.attempt)?;
        s.serialize_field("toolChoice", &self.tool_choice)?;
        s.end()
    }

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
            messages: crate::js::SharedParams(r.messages),
            prompt: r.prompt,
            estimated_tokens: r.estimated_tokens as f64,
            attempt: f64::from(r.attempt),
            tool_choice: match r.tool_choice {
                core_compact::ToolChoice::None => ToolChoice::None,
            },
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
/// (SPEC R7.7): answer with `{ kind: "files", files, hooks? }`.
#[derive(Debug, Clone, PartialEq, Deserialize, Tsify)]
#[serde(deny_unknown_fields)]
pub struct FileRequest {
    /// Answer with this id.
    pub id: f64,
    /// The files, most recent first.
    pub paths: Vec<String>,
    /// Run your post-compact hooks too and pass their output as the
    /// answer's `hooks` (SPEC R7.1; the `postCompactHooks` setting).
    #[serde(rename = "postCompactHooks")]
    pub post_compact_hooks: bool,
}

impl FileRequest {
    /// Its fields after `kind` (as a [`Request`]).
    fn write<S: serde::Serializer>(&self, serializer: S, kind: &'static str) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("FileRequest", 4)?;
        s.serialize_field("kind", kind)?;
        s.serialize_field("id", &self.id)?;
        s.serialize_field("paths", &self.paths)?;
        s.serialize_field("postCompactHooks", &self.post_compact_hooks)?;
        s.end()
    }

    /// Converts an engine request.
    pub fn from_core(r: core_compact::FileRequest) -> Self {
        FileRequest {
            id: r.id as f64,
            paths: r.paths,
            post_compact_hooks: r.post_compact_hooks,
        }
    }
}

/// Before every compaction, manual, automatic or reactive, the engine asks
/// your PreCompact hooks (SPEC R7.2): answer with `{ kind: "hook", block?,
/// addedInstructions? }`.
#[derive(Debug, Clone, PartialEq, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct PreCompactRequest {
    /// Answer with this id.
    pub id: f64,
    /// `manual` (`compact()`) or `auto` (the cascade, or a 413).
    #[tsify(type = "\"manual\" | \"auto\"")]
    pub trigger: String,
    /// The user's `/compact` instructions, or `null`.
    #[tsify(type = "string | null")]
    pub instructions: Option<String>,
}

/// Something the engine asks of you, by `kind`; answer it with
/// `engine.answer(request.id, answer)`, or let `prepare(host)` do it.
#[derive(Debug, Clone, PartialEq, Tsify)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum Request {
    /// Your PreCompact hooks' output, before every compaction.
    PreCompact(PreCompactRequest),
    /// A compaction's summary.
    Summary(SummaryRequest),
    /// One Tier 3 segment's summary.
    CollapseSegment(SummaryRequest),
    /// The background summary at the precompute line (answer when convenient).
    Precompute(SummaryRequest),
    /// Files to re-attach after a compaction (and post-compact hooks).
    Files(FileRequest),
}

/// As the attributes above say (`derive(Serialize)` wrote the same): each
/// request's fields after its `kind`.
impl Serialize for Request {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Request::PreCompact(r) => {
                let mut s = serializer.serialize_struct("PreCompactRequest", 4)?;
                s.serialize_field("kind", "preCompact")?;
                s.serialize_field("id", &r.id)?;
                s.serialize_field("trigger", &r.trigger)?;
                s.serialize_field("instructions", &r.instructions)?;
                s.end()
            }
            Request::Summary(r) => r.write(serializer, Some("summary")),
            Request::CollapseSegment(r) => r.write(serializer, Some("collapseSegment")),
            Request::Precompute(r) => r.write(serializer, Some("precompute")),
            Request::Files(r) => r.write(serializer, "files"),
        }
    }
}

impl Request {
    /// Converts an engine request.
    pub fn from_core(r: compaction_core::engine::Request) -> Self {
        use compaction_core::engine::Request as R;
        match r {
            R::PreCompact(h) => Request::PreCompact(PreCompactRequest {
                id: h.id as f64,
                trigger: match h.trigger {
                    core_compact::Trigger::Manual => "manual",
                    core_compact::Trigger::Auto => "auto",
                }
                .to_owned(),
                instructions: h.instructions,
            }),
            R::Summary(s) => Request::Summary(SummaryRequest::from_core(s)),
            R::CollapseSegment(s) => Request::CollapseSegment(SummaryRequest::from_core(s)),
            R::Precompute(s) => Request::Precompute(SummaryRequest::from_core(s)),
            R::Files(f) => Request::Files(FileRequest::from_core(f)),
        }
    }
}

/// Where a compaction stands.
#[derive(Debug, Clone, Serialize, Tsify)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum Progress {
    /// Waiting for you: answer the `requests` beside it.
    Waiting,
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
    /// Failed or blocked: the old view is still in force, no boundary.
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
    /// Every request pending, in one place: answer each with `answer(id, …)`.
    pub requests: Vec<Request>,
}

/// The result of `answer()`, `compact()`, `promptTooLong()` and
/// `swapInSummary()`: the steps taken, every request pending now, and where
/// the compaction stands (`null` for a segment or precompute answer).
#[derive(Debug, Clone, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct Outcome {
    /// What the engine did.
    #[tsify(type = "Step[]")]
    pub steps: Vec<compaction_core::step::Step>,
    /// Every request pending now.
    pub requests: Vec<Request>,
    /// Where the compaction stands, or `null`.
    #[tsify(type = "Progress | null")]
    pub compaction: Option<Progress>,
}

/// `compactionRequest()`: an on-demand compaction of the whole view (SPEC
/// R13.2). Send `{ model, max_tokens, messages: engine.messages(),
/// compaction, betas }` through `client.beta.messages.create`, with no
/// `context_management` (the API refuses the two together, R13.4), then
/// `swapInSummary(summarised, block)` with the `compaction` block it
/// returns. (A mirror: the engine's value crosses as it is.)
#[derive(Debug, Clone, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OnDemandCompaction {
    /// The uuids of the messages it summarises: the whole view, in order.
    pub summarised: Vec<String>,
    /// The request's `compaction` parameter (the SDK's `BetaCompactionConfig`).
    pub compaction: CompactionConfig,
    /// The beta headers it needs: `compact-2026-09-04` and what the
    /// messages hold, never `context-management-2025-06-27`.
    pub betas: Vec<String>,
}

/// An on-demand compaction request's `compaction` parameter.
#[derive(Debug, Clone, Serialize, Deserialize, Tsify)]
#[serde(deny_unknown_fields)]
pub struct CompactionConfig {
    /// `"summarize"`.
    #[serde(rename = "type")]
    #[tsify(type = "\"summarize\"")]
    pub kind: String,
    /// Replaces the server's summary prompt for this request.
    #[tsify(optional)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
}
