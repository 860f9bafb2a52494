//! The engine's one protocol with its host: every [`Request`] it makes,
//! every [`Answer`] it takes, and the [`Outcome`] of each call that moves a
//! compaction or answers a request.

use serde::{Deserialize, Serialize};

use crate::compact::{
    FileAnswer, FileRequest, HookOutcome, HookOutput, PreCompactRequest, Progress, SummaryRequest,
};
use crate::step::Step;

/// Something the engine asks of its host. Each has an id; the host answers
/// with [`Engine::answer`](super::Engine::answer). Every request pending at
/// once is listed together: [`Engine::requests`](super::Engine::requests),
/// `Decision::requests`, `Outcome::requests`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum Request {
    /// Before every compaction: the PreCompact hooks' output (R7.2).
    /// Answer: [`Answer::Hook`].
    PreCompact(PreCompactRequest),
    /// Tier 4's summary (R7.3). Answer: [`Answer::Text`],
    /// [`Answer::Offline`], [`Answer::ModelUnavailable`],
    /// [`Answer::PromptTooLong`] or [`Answer::Failed`].
    Summary(SummaryRequest),
    /// One Tier 3 segment's summary (R6.1); the same answers.
    CollapseSegment(SummaryRequest),
    /// The background summary at the precompute line (R9.1); the same
    /// answers, whenever convenient (a later compaction reuses it).
    Precompute(SummaryRequest),
    /// Files to re-attach after a compaction (R7.7), and the post-compact
    /// hooks' output when asked for (R7.1). Answer: [`Answer::Files`].
    Files(FileRequest),
}

impl Request {
    /// The id to answer with.
    pub fn id(&self) -> u64 {
        match self {
            Request::PreCompact(r) => r.id,
            Request::Summary(r) | Request::CollapseSegment(r) | Request::Precompute(r) => r.id,
            Request::Files(r) => r.id,
        }
    }

    /// The request's kind, as it is spelled on the wire.
    pub fn kind(&self) -> &'static str {
        match self {
            Request::PreCompact(_) => "preCompact",
            Request::Summary(_) => "summary",
            Request::CollapseSegment(_) => "collapseSegment",
            Request::Precompute(_) => "precompute",
            Request::Files(_) => "files",
        }
    }

    /// The summary asked for, for the three summary kinds.
    pub fn summary(&self) -> Option<&SummaryRequest> {
        match self {
            Request::Summary(r) | Request::CollapseSegment(r) | Request::Precompute(r) => Some(r),
            Request::PreCompact(_) | Request::Files(_) => None,
        }
    }
}

/// The host's answer to a [`Request`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum Answer {
    /// A summary request: the model's reply.
    Text {
        /// The reply's text.
        text: String,
        /// How long the summary call took, in milliseconds, if the host
        /// measured it: the boundary's `durationMs` (R7.9).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        duration_ms: Option<u64>,
    },
    /// A summary request: write it with the engine's offline summariser (no
    /// model; a structured digest of the messages).
    Offline,
    /// A summary request: the model could not be reached; the next model
    /// of the fallback chain is asked (R7.10).
    ModelUnavailable,
    /// A summary request: the API refused it as too long (413; R7.5).
    PromptTooLong,
    /// A summary request: the host could not get a summary (its
    /// summariser failed). The request fails at once, with no fallback: a
    /// compaction fails (an automatic one counts toward the breaker, R10.1),
    /// a segment or precompute is dropped.
    Failed {
        /// Why, in one line.
        reason: String,
    },
    /// A file request: each path's content or why it could not be read,
    /// and what the post-compact hooks printed.
    Files {
        /// One per path asked for.
        files: Vec<FileAnswer>,
        /// The post-compact hooks' output (empty when not asked for).
        #[serde(default)]
        hooks: Vec<HookOutput>,
    },
    /// A PreCompact request: the hooks' combined output (allow with a
    /// default one).
    Hook(HookOutcome),
}

impl Answer {
    /// The answer's kind, as it is spelled on the wire.
    pub fn kind(&self) -> &'static str {
        match self {
            Answer::Text { .. } => "text",
            Answer::Offline => "offline",
            Answer::ModelUnavailable => "modelUnavailable",
            Answer::PromptTooLong => "promptTooLong",
            Answer::Failed { .. } => "failed",
            Answer::Files { .. } => "files",
            Answer::Hook(_) => "hook",
        }
    }

    /// A model's reply.
    pub fn text(text: impl Into<String>) -> Answer {
        Answer::Text {
            text: text.into(),
            duration_ms: None,
        }
    }

    /// A model's reply that took `duration_ms` milliseconds to come.
    pub fn text_took(text: impl Into<String>, duration_ms: u64) -> Answer {
        Answer::Text {
            text: text.into(),
            duration_ms: Some(duration_ms),
        }
    }

    /// A PreCompact answer with no hook: allow, add nothing.
    pub fn allow() -> Answer {
        Answer::Hook(HookOutcome::default())
    }
}

/// What a call that starts, continues or answers something did:
/// [`Engine::compact`](super::Engine::compact),
/// [`Engine::prompt_too_long`](super::Engine::prompt_too_long),
/// [`Engine::answer`](super::Engine::answer),
/// [`Engine::swap_in_summary`](super::Engine::swap_in_summary) and
/// [`drive`](super::drive) all return one.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Outcome {
    /// What the engine did, in order.
    pub steps: Vec<Step>,
    /// Every request pending now (answer each; none: nothing is waiting).
    pub requests: Vec<Request>,
    /// Where the compaction this call touched stands, if it touched one
    /// (`None` for a segment or precompute answer).
    pub compaction: Option<Progress>,
}
