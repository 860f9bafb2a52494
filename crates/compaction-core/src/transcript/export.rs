//! Export (SPEC R7.9, R11): the records a compaction by the engine appends
//! to a Claude Code session file, in Claude Code's own shape, so that
//! resuming the file gives the view the live session had.

use serde::Serialize;

use crate::compact::boundary::{CompactMetadata, RecordShape, Trigger};
use crate::compact::Compacted;
use crate::message::{Content, Message, Uuid};
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
/// `logicalParentUuid` the last record before it, `compactMetadata` in the
/// settings' [`RecordShape`]: SPEC R7.9's trigger, preTokens, postTokens,
/// durationMs when known, preservedMessages, cumulativeDroppedTokens, or
/// Claude Code 2.1.170's with `preservedSegment` and `preservedMessages
/// {anchorUuid, uuids, allUuids}`), the `isCompactSummary` user record
/// after it, then each restored attachment as a user record chained after
/// the summary. Preserved messages are not written again:
/// `preservedMessages` relinks them on resume (R11.2).
pub fn compaction_records(
    compacted: &Compacted,
    attachments: &[Message],
    ctx: &RecordContext,
) -> Vec<String> {
    let logical_parent = compacted.boundary.logical_parent_uuid.as_ref();
    let kept = &compacted.boundary.compact_metadata.preserved_messages;
    records_after(
        compacted,
        attachments,
        ctx,
        logical_parent.map(|u| u.as_str()),
        kept,
    )
}

/// [`compaction_records`] with the boundary's `logicalParentUuid` given,
/// and `all_kept`: every record from the first preserved message to the
/// last (the preserved messages and the records chained between them; the
/// 2.1.170 shape's `allUuids`).
pub(crate) fn records_after(
    compacted: &Compacted,
    attachments: &[Message],
    ctx: &RecordContext,
    logical_parent: Option<&str>,
    all_kept: &[Uuid],
) -> Vec<String> {
    let b = &compacted.boundary;
    let s = &compacted.summary;
    let meta = &b.compact_metadata;
    let compact_metadata = match meta.shape {
        RecordShape::Spec => MetadataLine::Spec(meta),
        RecordShape::Client2_1_170 => MetadataLine::Client(newer_metadata(meta, &s.uuid, all_kept)),
    };
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
        compact_metadata,
    };
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
    crate::message::to_json_string(record).unwrap_or_default()
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
    compact_metadata: MetadataLine<'a>,
}

/// A boundary's `compactMetadata` in one of the [`RecordShape`]s.
#[derive(Serialize)]
#[serde(untagged)]
enum MetadataLine<'a> {
    Spec(&'a CompactMetadata),
    Client(NewerMetadata<'a>),
}

/// Claude Code 2.1.170's `compactMetadata`, fields in its order.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct NewerMetadata<'a> {
    trigger: Trigger,
    pre_tokens: u64,
    post_tokens: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    duration_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    preserved_segment: Option<Segment<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    preserved_messages: Option<Kept<'a>>,
}

/// `preservedSegment`: the first and last record kept verbatim, and the
/// summary they follow.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Segment<'a> {
    head_uuid: &'a Uuid,
    anchor_uuid: &'a Uuid,
    tail_uuid: &'a Uuid,
}

/// `preservedMessages`: the summary they follow, the messages kept, and
/// every record from the first to the last of them.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Kept<'a> {
    anchor_uuid: &'a Uuid,
    uuids: &'a [Uuid],
    all_uuids: &'a [Uuid],
}

/// The 2.1.170 shape of `meta`, its anchor the summary message `anchor`;
/// with no message kept, no segment and no list.
fn newer_metadata<'a>(
    meta: &'a CompactMetadata,
    anchor: &'a Uuid,
    all_kept: &'a [Uuid],
) -> NewerMetadata<'a> {
    let kept = &meta.preserved_messages;
    let (segment, messages) = match (kept.first(), all_kept.last().or(kept.last())) {
        (Some(head), Some(tail)) => (
            Some(Segment {
                head_uuid: head,
                anchor_uuid: anchor,
                tail_uuid: tail,
            }),
            Some(Kept {
                anchor_uuid: anchor,
                uuids: kept,
                all_uuids: if all_kept.is_empty() { kept } else { all_kept },
            }),
        ),
        _ => (None, None),
    };
    NewerMetadata {
        trigger: meta.trigger,
        pre_tokens: meta.pre_tokens,
        post_tokens: meta.post_tokens,
        duration_ms: meta.duration_ms,
        preserved_segment: segment,
        preserved_messages: messages,
    }
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
