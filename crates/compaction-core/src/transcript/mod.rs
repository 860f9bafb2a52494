//! Claude Code session files (`~/.claude/projects/<project>/<session>.jsonl`)
//! read into the engine's message model, and resumed (SPEC R11).
//!
//! Import is streaming and sans-IO: the host reads the file and hands the
//! bytes to an [`Importer`] in chunks of any size; the importer splits
//! lines itself, parses each one, and keeps only what the engine needs (the
//! merged messages, the boundaries, a light node per chain record, the
//! problems). Nothing in a file makes it fail: whatever it cannot use is
//! reported as a [`Problem`] with its line, never dropped silently.
//!
//! ```
//! use compaction_core::transcript::Importer;
//!
//! let file = concat!(
//!     r#"{"type":"user","uuid":"u1","parentUuid":null,"message":{"role":"user","content":"hi"}}"#, "\n",
//!     r#"{"type":"assistant","uuid":"a1","parentUuid":"u1","message":{"id":"msg_1","role":"assistant","content":[{"type":"text","text":"hello"}]}}"#, "\n",
//! );
//! let mut importer = Importer::new();
//! for chunk in file.as_bytes().chunks(7) {
//!     importer.feed(chunk);
//! }
//! let transcript = importer.finish();
//! assert_eq!(transcript.inspection().messages, 2);
//! let view = transcript.resume();
//! assert!(view.boundary.is_none());
//! assert_eq!(view.messages.len(), 2);
//! ```
//!
//! The rules where the format (`TRANSCRIPT_FORMAT.md`) leaves a choice:
//! - **Leaf**: the last record in file order that is a main-conversation
//!   (not sidechain) `user`/`assistant` line, or a `compact_boundary` or one
//!   of the extension's records (`compact_expanded`, `history_snipped`,
//!   `history_collapsed`, `collapse_expanded`, `message_pinned`) written
//!   after it: a resumed engine's records chain after them, so a record it
//!   derives from its parent is new to the file. Progress, hook and other system records never pick the leaf:
//!   a late hook can hang off an old record.
//! - **Walk**: `parentUuid` back from the leaf, through every record that has
//!   a uuid (`progress`, `system`, `attachment` included). A parent that is
//!   not in the file continues from the nearest earlier main record in file
//!   order (reported as `dangling_parent`); a cycle stops the walk
//!   (reported as `parent_cycle`, naming the record that closes it).
//! - **Expanded compactions** (extension, SPEC R11.5): a `compact_expanded`
//!   record on the walked path undoes the compaction it names for the
//!   resumed view: the walk goes on before that boundary, and the summary
//!   and the records the expansion names are left out ([`expand`]). The
//!   full history ([`Transcript::eras`]) still has the compaction.
//! - **Parallel tool calls**: lines sharing a `message.id` are one message,
//!   wherever they sit in the graph, and a tool-result record off the walked
//!   path is taken into the view when it answers a `tool_use` of the view
//!   that nothing in the view answers yet (Claude Code's
//!   `recoverOrphanedParallelToolResults`).
//! - **Order**: a Claude Code file is append-only, so a parent is always
//!   written before its children; the view is in file order of each
//!   message's first line, with preserved messages moved after the summary.
//! - **Sidechains** (v1.0 inline subagent records, `isSidechain: true`) are
//!   counted and kept as graph nodes, but their content is not kept: they
//!   never reach the main model context.
//! - **What is kept**: every field of a message line except `toolUseResult`
//!   (the UI's structured copy of a tool's output — for Edit the whole
//!   original file — which never reaches the model and is often the largest
//!   part of a file); records of unknown type whole. Of `progress`,
//!   `attachment` and uuid-less metadata (`file-history-snapshot`,
//!   `queue-operation`, titles…) only the envelope is read and the type
//!   counted: their payload is skipped while parsing, never built.
//!   Non-boundary `system` records are kept as graph nodes only.
//! - **Unanswered calls** (SPEC R11.4): a message of the view holding a
//!   `tool_use` that nothing in the view answers — its result line damaged,
//!   cut or never written — is left out of the view whole, like an orphan
//!   `tool_result`, and reported (`orphan_tool_use`); or, with
//!   [`Unanswered::ErrorResult`] ([`Transcript::resume_with`]), kept and
//!   answered with a synthetic error `tool_result`.
//! - **Synthetic messages** (`model: "<synthetic>"`, `isApiErrorMessage`)
//!   are kept in the view, flagged, without usage: no request produced them.
//! - **Blank lines** carry nothing and are skipped without a problem; a last
//!   line without a newline is read normally when it parses.

mod chain;
pub mod choice;
pub mod counted;
mod era;
pub mod expand;
pub mod export;
pub mod fidelity;
mod finishing;
mod import;
mod kept;
pub mod lacks;
mod line;
pub mod log;
mod metadata;
mod model;
mod record;
pub mod replay;
mod resume;
pub mod versions;

use serde::Serialize;

pub use crate::message::surrogates::replace_lone_surrogates;
pub use import::Importer;
pub use kept::KeptFields;
pub use model::{
    Boundary, BoundarySummary, CompactMetadata, Era, ImportedMessage, Inspection, Microcompaction,
    PreservedMessages, PreservedSegment, Transcript,
};
pub use resume::{Resume, Unanswered, UNANSWERED_RESULT};

/// Imports a whole file held in memory (the same as one [`Importer::feed`]
/// and [`Importer::finish`]).
pub fn import(bytes: &[u8]) -> Transcript {
    let mut importer = Importer::new();
    importer.feed(bytes);
    importer.finish()
}

/// Something in the file the importer tolerated: what, where, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Problem {
    /// The 1-based line of the record concerned.
    pub line: u32,
    /// What kind of problem.
    pub kind: ProblemKind,
    /// Lowercase words naming the field and value.
    pub detail: String,
}

impl Problem {
    pub(crate) fn new(line: u32, kind: ProblemKind, detail: impl Into<String>) -> Self {
        Problem {
            line,
            kind,
            detail: detail.into(),
        }
    }
}

/// The kinds of [`Problem`], serialized in snake_case (`malformed_json`…).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ProblemKind {
    /// A line is not a JSON object. The line is skipped.
    MalformedJson,
    /// A line is not UTF-8. The line is skipped.
    InvalidUtf8,
    /// The last line has no newline and does not parse: the file was cut
    /// while being written. The line is skipped.
    TruncatedLine,
    /// A record has no `type`. Kept verbatim.
    MissingType,
    /// A record's `type` is not one the importer knows. Kept verbatim.
    UnknownType,
    /// A known record whose fields have the wrong shape (a `user` record
    /// without `uuid` or `message`, a block without `type`…). Kept verbatim.
    InvalidRecord,
    /// A `timestamp` that is not RFC 3339; the message keeps no timestamp.
    InvalidTimestamp,
    /// A uuid seen before (a resumed file copies records): the first wins,
    /// the copy is counted and not kept.
    DuplicateUuid,
    /// A `parentUuid` that names no record in the file.
    DanglingParent,
    /// `parentUuid` links that loop: a record naming itself (the chain
    /// continues from the record before it), or records naming later
    /// records around to the first (reported at the record closing the
    /// loop, by uuid; a walk stops where it would repeat a record).
    ParentCycle,
    /// A boundary's `logicalParentUuid` names no record in the file; the
    /// history continues from the last main record before the boundary.
    DanglingLogicalParent,
    /// A `compact_boundary` without `compactMetadata`.
    MissingCompactMetadata,
    /// A `compact_boundary` with no `isCompactSummary` record after it.
    MissingCompactSummary,
    /// A preserved uuid (`preservedMessages`, `preservedSegment`) that names
    /// no message in the file.
    DanglingPreserved,
    /// A line held lone surrogate escapes (`\ud83d` with no low half: Claude
    /// Code writes them when a tool output is cut in the middle of an emoji);
    /// each is read as U+FFFD and the record is kept (R11.4).
    LoneSurrogate,
    /// A `tool_result` whose `tool_use` is not in the file, or (in a resumed
    /// view) not in the assistant message just before its run of user
    /// messages, where the API wants it; in the view the block is left out.
    OrphanToolResult,
    /// A `tool_use` that no `tool_result` in the file answers (its result
    /// line missing or unreadable); in a resumed view, a message holding a
    /// `tool_use` nothing in the view answers is left out whole (R11.4).
    OrphanToolUse,
    /// A second `tool_result` for one `tool_use`; in the view it is left
    /// out.
    DuplicateToolResult,
    /// A `tool_use` whose id an earlier `tool_use` of the view (in the same
    /// message or before it) already has: the API refuses a request with
    /// two; in the view the later block is left out, and so is any result
    /// answering it there.
    DuplicateToolUse,
    /// The view would start with an assistant message (its summary record
    /// missing, a dangling `parentUuid`): the API wants a user message
    /// first; in the view the leading assistant messages are left out.
    AssistantFirst,
}
