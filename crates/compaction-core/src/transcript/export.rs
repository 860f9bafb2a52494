//! Export (SPEC R7.9, R11): the records a compaction by the engine appends
//! to a Claude Code session file, in Claude Code's own shape, so that
//! resuming the file gives the view the live session had.

use serde_json::{json, Value};

use crate::compact::Compacted;
use crate::message::Message;
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
    let envelope = |kind: &str, uuid: &str, parent: Value| {
        json!({
            "type": kind,
            "uuid": uuid,
            "parentUuid": parent,
            "isSidechain": false,
            "userType": "external",
            "sessionId": ctx.session_id,
            "version": ctx.version,
            "timestamp": ctx.timestamp.as_str(),
        })
    };
    let b = &compacted.boundary;
    let mut boundary = envelope("system", b.uuid.as_str(), Value::Null);
    if let Value::Object(map) = &mut boundary {
        map.insert("subtype".into(), json!("compact_boundary"));
        map.insert("content".into(), json!(b.content));
        map.insert("level".into(), json!(b.level));
        map.insert("logicalParentUuid".into(), json!(b.logical_parent_uuid));
        map.insert("compactMetadata".into(), json!(b.compact_metadata));
    }
    let s = &compacted.summary;
    let mut summary = envelope("user", s.uuid.as_str(), json!(b.uuid));
    if let Value::Object(map) = &mut summary {
        map.insert("isCompactSummary".into(), json!(true));
        map.insert("isVisibleInTranscriptOnly".into(), json!(true));
        map.insert(
            "message".into(),
            json!({ "role": "user", "content": s.message.content }),
        );
    }
    let mut lines = vec![boundary.to_string(), summary.to_string()];
    let mut parent = s.uuid.clone();
    for m in attachments {
        let mut record = envelope("user", m.uuid.as_str(), json!(parent));
        if let Value::Object(map) = &mut record {
            map.insert("isMeta".into(), json!(true));
            map.insert("message".into(), json!({ "role": "user", "content": m.content }));
        }
        lines.push(record.to_string());
        parent = m.uuid.clone();
    }
    lines
}
