//! An expanded compaction in a session file (extension, SPEC R11.5): the
//! `compact_expanded` record written when a host undoes a compaction
//! ([`crate::engine::Engine::expand`]), and how the importer reads it. The
//! walk for the resumed view honours it (`era.rs`): the compaction it names
//! is no boundary there, so a resume equals the live view (R11.2).
//!
//! The record is a `system` record in the `parentUuid` chain, like Claude
//! Code's own `turn_duration` or `stop_hook_summary`: Claude Code walks
//! through it and sends no `system` record to the model, so a file holding
//! one still resumes there, to the compacted view (it does not know the
//! extension). The fields, in Claude Code's order:
//!
//! ```json
//! {"parentUuid":"m7","isSidechain":false,"userType":"external","sessionId":"s",
//!  "version":"context-compaction","type":"system","subtype":"compact_expanded",
//!  "content":"Compaction expanded: the messages it summarised are back in the context",
//!  "timestamp":"2026-12-01T12:00:00Z","uuid":"…","level":"info",
//!  "expandMetadata":{"boundaryUuid":"…","removedUuids":["<summary>","<re-attached file>"]}}
//! ```
//!
//! `boundaryUuid` names the `compact_boundary` undone; `removedUuids` the
//! message records that compaction wrote (its summary and re-attached
//! context), which leave the view with it.

use serde::Serialize;

use super::export::RecordContext;
use super::model::Fields;
use super::record::{envelope, short, uuid_list, Envelope, Invalid, Record};
use crate::compact::boundary::derived_uuid;
use crate::message::Uuid;

/// The `subtype` of the record.
pub const EXPANDED_SUBTYPE: &str = "compact_expanded";

/// What a `compact_expanded` record says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Expansion {
    /// The boundary of the compaction undone.
    pub boundary: Uuid,
    /// The message records that compaction wrote, out of the view again.
    pub removed: Vec<Uuid>,
}

/// A `compact_expanded` record, read.
pub(crate) struct ExpandedLine {
    pub envelope: Envelope,
    pub expansion: Expansion,
}

/// Reads a `compact_expanded` record; without `expandMetadata.boundaryUuid`
/// it says nothing and is kept verbatim (an invalid record).
pub(crate) fn read(mut map: Fields) -> Result<Record, (Invalid, Fields)> {
    let envelope = match envelope(&mut map) {
        Ok(envelope) => envelope,
        Err(why) => return Err((why, map)),
    };
    let meta = map
        .get("expandMetadata")
        .and_then(|raw| raw.read::<Fields>())
        .unwrap_or_default();
    let Some(boundary) = meta.str_field("boundaryUuid").filter(|b| !b.is_empty()) else {
        let got = meta
            .get("boundaryUuid")
            .map_or_else(|| "nothing".to_owned(), short);
        return Err((
            format!("`expandMetadata.boundaryUuid` must be a uuid, got {got}"),
            map,
        ));
    };
    let removed = meta
        .get("removedUuids")
        .and_then(|list| uuid_list(list.text()))
        .unwrap_or_default();
    Ok(Record::Expanded(ExpandedLine {
        envelope,
        expansion: Expansion {
            boundary: Uuid::from(boundary.as_ref()),
            removed,
        },
    }))
}

/// The record written when the compaction of `boundary` is expanded: its
/// uuid and its JSONL line, chained after `parent`.
pub fn expanded_record(
    boundary: &Uuid,
    removed: &[Uuid],
    parent: Option<&Uuid>,
    ctx: &RecordContext,
) -> (Uuid, String) {
    let uuid = derived_uuid(&format!("{boundary} expanded"));
    let record = Line {
        parent_uuid: parent,
        is_sidechain: false,
        user_type: "external",
        session_id: &ctx.session_id,
        version: &ctx.version,
        kind: "system",
        subtype: EXPANDED_SUBTYPE,
        content: "Compaction expanded: the messages it summarised are back in the context",
        timestamp: ctx.timestamp.as_str(),
        uuid: &uuid,
        level: "info",
        expand_metadata: Metadata {
            boundary_uuid: boundary,
            removed_uuids: removed,
        },
    };
    // Strings and lists of strings only: serialising cannot fail.
    let line = serde_json::to_string(&record).unwrap_or_default();
    (uuid, line)
}

/// The record, fields in Claude Code's order for `system` records.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Line<'a> {
    parent_uuid: Option<&'a Uuid>,
    is_sidechain: bool,
    user_type: &'a str,
    session_id: &'a str,
    version: &'a str,
    #[serde(rename = "type")]
    kind: &'a str,
    subtype: &'a str,
    content: &'a str,
    timestamp: &'a str,
    uuid: &'a Uuid,
    level: &'a str,
    expand_metadata: Metadata<'a>,
}

/// `expandMetadata`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Metadata<'a> {
    boundary_uuid: &'a Uuid,
    removed_uuids: &'a [Uuid],
}
