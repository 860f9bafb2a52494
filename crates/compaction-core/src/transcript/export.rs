//! Export (SPEC R7.9, R11): the records a compaction by the engine appends
//! to a Claude Code session file, in Claude Code's own shape, so that
//! resuming the file gives the view the live session had.

use serde::Serialize;

use crate::compact::boundary::CompactMetadata;
use crate::compact::Compacted;
use crate::message::{Content, Message};
use crate::time::Timestamp;

/// The context a session file's records carry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordContext {
    /// The session's id.
    pub session_id: String,
    /// The client version written on each record.
    pub version: String,
    /// When the records are written.
    pub timestamp: Timestamp,
}

/// The JSONL lines (without newlines) a compaction appends: the
/// `compact_boundary` system record (`parentUuid: null`,
/// `logicalParentUuid` the last record before it, `compactMetadata` with
/// trigger, preTokens, postTokens, preservedMessages,
/// cumulativeDroppedTokens), the `isCompactSummary` user record after it,
/// then each restored attachment as a user record chained after the
/// summary. Preserved messages are not written again: `preservedMessages`
/// relinks them on resume (R11.2).
pub fn compaction_records(
    compacted: &Compacted,
    attachments: &[Message],
    ctx: &RecordContext,
) -> Vec<String> {
    let logical_parent = compacted.boundary.logical_parent_uuid.as_ref();
    records_after(compacted, attachments, ctx, logical_parent.map(|u| u.as_str()))
}

/// [`compaction_records`] with the boundary's `logicalParentUuid` given.
pub(crate) fn records_after(
    compacted: &Compacted,
    attachments: &[Message],
    ctx: &RecordContext,
    logical_parent: Option<&str>,
) -> Vec<String> {
    let b = &compacted.boundary;
    let boundary = BoundaryLine {
        parent_uuid: None,
        logical_parent_uuid: logical_parent,
        is_sidechain: false,
        user_type: "external",
        session_id: &ctx.session_id,
        version: &ctx.version,
        kind: "system",
        subtype: "compact_boundary",
        content: b.content,
        timestamp: ctx.timestamp.as_str(),
        uuid: b.uuid.as_str(),
        level: b.level,
        compact_metadata: &b.compact_metadata,
    };
    let s = &compacted.summary;
    let summary_content = Content::Text(s.message.content.clone());
    let summary = UserLine {
        is_visible_in_transcript_only: Some(true),
        is_compact_summary: Some(true),
        ..user_line(ctx, s.uuid.as_str(), b.uuid.as_str(), &summary_content)
    };
    let mut lines = vec![line(&boundary), line(&summary)];
    let mut parent = s.uuid.as_str();
    for m in attachments {
        let record = UserLine {
            is_meta: Some(true),
            ..user_line(ctx, m.uuid.as_str(), parent, &m.content)
        };
        lines.push(line(&record));
        parent = m.uuid.as_str();
    }
    lines
}

/// A user record with no flags set.
fn user_line<'a>(
    ctx: &'a RecordContext,
    uuid: &'a str,
    parent: &'a str,
    content: &'a Content,
) -> UserLine<'a> {
    UserLine {
        parent_uuid: Some(parent),
        is_sidechain: false,
        user_type: "external",
        session_id: &ctx.session_id,
        version: &ctx.version,
        kind: "user",
        message: Payload {
            role: "user",
            content,
        },
        is_visible_in_transcript_only: None,
        is_compact_summary: None,
        is_meta: None,
        uuid,
        timestamp: ctx.timestamp.as_str(),
    }
}

/// One record as its JSONL line.
fn line<T: Serialize>(record: &T) -> String {
    // Serialising these structs cannot fail: string keys, no maps of
    // other keys, no floats that are not finite.
    serde_json::to_string(record).unwrap_or_default()
}

/// The `compact_boundary` system record, fields in Claude Code's order.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct BoundaryLine<'a> {
    parent_uuid: Option<&'a str>,
    logical_parent_uuid: Option<&'a str>,
    is_sidechain: bool,
    user_type: &'a str,
    session_id: &'a str,
    version: &'a str,
    #[serde(rename = "type")]
    kind: &'a str,
    subtype: &'a str,
    content: &'a str,
    timestamp: &'a str,
    uuid: &'a str,
    level: &'a str,
    compact_metadata: &'a CompactMetadata,
}

/// A user record (the summary, an attachment), fields in Claude Code's
/// order.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct UserLine<'a> {
    parent_uuid: Option<&'a str>,
    is_sidechain: bool,
    user_type: &'a str,
    session_id: &'a str,
    version: &'a str,
    #[serde(rename = "type")]
    kind: &'a str,
    message: Payload<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    is_visible_in_transcript_only: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    is_compact_summary: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    is_meta: Option<bool>,
    uuid: &'a str,
    timestamp: &'a str,
}

/// A user record's `message`.
#[derive(Serialize)]
struct Payload<'a> {
    role: &'a str,
    content: &'a Content,
}
