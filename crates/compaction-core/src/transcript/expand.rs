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
//!
//! A snip (Tier 2) is recorded the same way (extension, SPEC R11.6): a
//! `history_snipped` record whose `snipMetadata.removedUuids` names the
//! messages it deleted from the view. The store (and the file) keeps them;
//! a resume leaves them out, as the live view did. Claude Code walks through
//! it like any `system` record.
//!
//! Expanding a collapse writes `collapse_expanded`, whose `expandMetadata`
//! names the collapse's summary (`summaryUuid`, out of the view again) and
//! the messages back in it (`restoredUuids`); the records of the view's
//! path apply in file order.
//!
//! A pin or unpin is recorded too (extension, SPEC R11.6): a `message_pinned`
//! record whose `pinMetadata` names the message and whether it is now
//! pinned. A resume pins what the file's last such record for each message
//! left pinned, among the messages of the resumed view.

use serde::Serialize;

use super::export::RecordContext;
use super::model::Fields;
use super::record::{envelope, short, uuid_list, Envelope, Invalid, Record};
use crate::compact::boundary::derived_uuid;
use crate::message::Uuid;

/// The `subtype` of the record.
pub const EXPANDED_SUBTYPE: &str = "compact_expanded";

/// The `subtype` of a snip's record (R11.6).
pub const SNIPPED_SUBTYPE: &str = "history_snipped";

/// The `subtype` of a collapse's record (R11.6).
pub const COLLAPSED_SUBTYPE: &str = "history_collapsed";

/// The `subtype` of an expanded collapse's record (R11.6).
pub const COLLAPSE_EXPANDED_SUBTYPE: &str = "collapse_expanded";

/// The `subtype` of a pin's or unpin's record (R11.6).
pub const PINNED_SUBTYPE: &str = "message_pinned";

/// What a `compact_expanded` or `history_snipped` record says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Expansion {
    /// The boundary of the compaction undone (none for a snip or collapse).
    pub boundary: Option<Uuid>,
    /// A collapse's summary and the message it follows (none: the view's
    /// start): it takes the place of what was removed.
    pub placed: Option<(Uuid, Option<Uuid>)>,
    /// The message records that compaction wrote, out of the view again.
    pub removed: Vec<Uuid>,
    /// Messages back in the view (what an expanded collapse had removed).
    pub restored: Vec<Uuid>,
}

/// A `compact_expanded` record, read.
pub(crate) struct ExpandedLine {
    pub envelope: Envelope,
    pub expansion: Expansion,
}

/// A record's envelope and its `key` object (empty when absent), or why
/// the envelope is invalid.
pub(super) fn envelope_and(
    mut map: Fields,
    key: &str,
) -> Result<(Envelope, Fields, Fields), (Invalid, Fields)> {
    match envelope(&mut map) {
        Ok(envelope) => {
            let meta = map
                .get(key)
                .and_then(|raw| raw.read::<Fields>())
                .unwrap_or_default();
            Ok((envelope, meta, map))
        }
        Err(why) => Err((why, map)),
    }
}

/// What a metadata field that must be there holds instead, for an error.
fn got(meta: &Fields, field: &str) -> String {
    meta.get(field).map_or_else(|| "nothing".to_owned(), short)
}

/// Reads a `compact_expanded` record; without `expandMetadata.boundaryUuid`
/// it says nothing and is kept verbatim (an invalid record).
pub(crate) fn read(map: Fields) -> Result<Record<'static>, (Invalid, Fields)> {
    let (envelope, meta, map) = envelope_and(map, "expandMetadata")?;
    let Some(boundary) = meta.str_field("boundaryUuid").filter(|b| !b.is_empty()) else {
        let why = format!(
            "`expandMetadata.boundaryUuid` must be a uuid, got {}",
            got(&meta, "boundaryUuid")
        );
        return Err((why, map));
    };
    let removed = meta
        .get("removedUuids")
        .and_then(|list| uuid_list(list.text()))
        .unwrap_or_default();
    let boundary = Some(Uuid::from(boundary.as_ref()));
    let expansion = Expansion {
        boundary,
        removed,
        placed: None,
        restored: Vec::new(),
    };
    Ok(Record::Expanded(ExpandedLine { envelope, expansion }))
}

/// Reads a `history_snipped` record; without `snipMetadata.removedUuids`
/// it says nothing and is kept verbatim (an invalid record).
pub(crate) fn read_snipped(map: Fields) -> Result<Record<'static>, (Invalid, Fields)> {
    let (envelope, meta, map) = envelope_and(map, "snipMetadata")?;
    let Some(removed) = meta.get("removedUuids").and_then(|list| uuid_list(list.text())) else {
        let why = format!(
            "`snipMetadata.removedUuids` must be a list of uuids, got {}",
            got(&meta, "removedUuids")
        );
        return Err((why, map));
    };
    let expansion = Expansion {
        boundary: None,
        removed,
        placed: None,
        restored: Vec::new(),
    };
    Ok(Record::Expanded(ExpandedLine { envelope, expansion }))
}

/// Reads a `history_collapsed` record; without `collapseMetadata.removedUuids`
/// and `summaryUuid` it says nothing and is kept verbatim (an invalid record).
pub(crate) fn read_collapsed(map: Fields) -> Result<Record<'static>, (Invalid, Fields)> {
    let (envelope, meta, map) = envelope_and(map, "collapseMetadata")?;
    let removed = meta.get("removedUuids").and_then(|list| uuid_list(list.text()));
    let summary = meta.str_field("summaryUuid").filter(|u| !u.is_empty());
    let (Some(removed), Some(summary)) = (removed, summary) else {
        let why = format!(
            "`collapseMetadata` must name `removedUuids` and `summaryUuid`, got {} and {}",
            got(&meta, "removedUuids"),
            got(&meta, "summaryUuid")
        );
        return Err((why, map));
    };
    let after = meta.str_field("afterUuid").map(|u| Uuid::from(u.as_ref()));
    let placed = Some((Uuid::from(summary.as_ref()), after));
    let expansion = Expansion {
        boundary: None,
        removed,
        placed,
        restored: Vec::new(),
    };
    Ok(Record::Expanded(ExpandedLine { envelope, expansion }))
}

/// Reads a `collapse_expanded` record; without `expandMetadata.summaryUuid`
/// and `restoredUuids` it says nothing and is kept verbatim (an invalid
/// record).
pub(crate) fn read_collapse_expanded(map: Fields) -> Result<Record<'static>, (Invalid, Fields)> {
    let (envelope, meta, map) = envelope_and(map, "expandMetadata")?;
    let summary = meta.str_field("summaryUuid").filter(|u| !u.is_empty());
    let restored = meta.get("restoredUuids").and_then(|list| uuid_list(list.text()));
    let (Some(summary), Some(restored)) = (summary, restored) else {
        let why = format!(
            "`expandMetadata` must name `summaryUuid` and `restoredUuids`, got {} and {}",
            got(&meta, "summaryUuid"),
            got(&meta, "restoredUuids")
        );
        return Err((why, map));
    };
    let expansion = Expansion {
        boundary: None,
        removed: vec![Uuid::from(summary.as_ref())],
        placed: None,
        restored,
    };
    Ok(Record::Expanded(ExpandedLine { envelope, expansion }))
}

/// The record written when the collapse whose summary is `summary` is
/// expanded, `restored` back in the view (R11.6): its uuid and its JSONL
/// line, chained after `parent`.
pub fn collapse_expanded_record(
    summary: &Uuid,
    restored: &[Uuid],
    parent: Option<&Uuid>,
    ctx: &RecordContext,
) -> (Uuid, String) {
    let uuid = derived_uuid(&format!("{summary} collapse expanded"));
    let meta = Meta::CollapseExpand(CollapseExpandMetadata {
        summary_uuid: summary,
        restored_uuids: restored,
    });
    let content = "Collapse expanded: the turns it summarised are back in the context";
    system_line(uuid, COLLAPSE_EXPANDED_SUBTYPE, content, meta, parent, ctx)
}

/// A `message_pinned` record, read: the message and whether it is pinned.
pub(crate) struct PinLine {
    pub envelope: Envelope,
    pub uuid: Uuid,
    pub pinned: bool,
}

/// Reads a `message_pinned` record; without `pinMetadata.uuid` and a
/// boolean `pinMetadata.pinned` it says nothing and is kept verbatim (an
/// invalid record).
pub(crate) fn read_pinned(map: Fields) -> Result<Record<'static>, (Invalid, Fields)> {
    let (envelope, meta, map) = envelope_and(map, "pinMetadata")?;
    let uuid = meta.str_field("uuid").filter(|u| !u.is_empty());
    let pinned = meta.get("pinned").and_then(|raw| raw.read::<bool>());
    let (Some(uuid), Some(pinned)) = (uuid, pinned) else {
        let why = format!(
            "`pinMetadata` must name a `uuid` and say `pinned` (true or false), got {} and {}",
            got(&meta, "uuid"),
            got(&meta, "pinned")
        );
        return Err((why, map));
    };
    let uuid = Uuid::from(uuid.as_ref());
    Ok(Record::Pinned(PinLine {
        envelope,
        uuid,
        pinned,
    }))
}

/// The record written when the message `uuid` is pinned or unpinned
/// (R11.6): its uuid and its JSONL line, chained after `parent`.
pub fn pinned_record(
    uuid: &Uuid,
    pinned: bool,
    parent: Option<&Uuid>,
    ctx: &RecordContext,
) -> (Uuid, String) {
    let after = parent.map_or("", Uuid::as_str);
    let record = derived_uuid(&format!("{after} {uuid} pinned {pinned}"));
    let meta = Meta::Pin(PinMetadata { uuid, pinned });
    let content = if pinned {
        "Message pinned: never snipped or cleared, kept verbatim after a compaction"
    } else {
        "Message unpinned"
    };
    system_line(record, PINNED_SUBTYPE, content, meta, parent, ctx)
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
    let meta = Meta::Expand(Metadata {
        boundary_uuid: boundary,
        removed_uuids: removed,
    });
    let content = "Compaction expanded: the messages it summarised are back in the context";
    system_line(uuid, EXPANDED_SUBTYPE, content, meta, parent, ctx)
}

/// The record written when a snip deletes `removed` from the view (R11.6):
/// its uuid and its JSONL line, chained after `parent`.
pub fn snipped_record(removed: &[Uuid], parent: Option<&Uuid>, ctx: &RecordContext) -> (Uuid, String) {
    let first = removed.first().map_or("", Uuid::as_str);
    let last = removed.last().map_or("", Uuid::as_str);
    let after = parent.map_or("", Uuid::as_str);
    let uuid = derived_uuid(&format!("{after} {first} {last} {} snipped", removed.len()));
    let meta = Meta::Snip(SnipMetadata {
        removed_uuids: removed,
    });
    let content = "History snipped: the oldest turns left the context";
    system_line(uuid, SNIPPED_SUBTYPE, content, meta, parent, ctx)
}

/// The record written when a collapse replaces `removed` with the summary
/// `summary`, placed after `after` (R11.6): its uuid and its JSONL line,
/// chained after `parent`. The summary's own message record follows it.
pub fn collapsed_record(
    removed: &[Uuid],
    summary: &Uuid,
    after: Option<&Uuid>,
    parent: Option<&Uuid>,
    ctx: &RecordContext,
) -> (Uuid, String) {
    let uuid = derived_uuid(&format!("{summary} collapsed"));
    let meta = Meta::Collapse(CollapseMetadata {
        removed_uuids: removed,
        summary_uuid: summary,
        after_uuid: after,
    });
    let content = "History collapsed: older turns read as one summary";
    system_line(uuid, COLLAPSED_SUBTYPE, content, meta, parent, ctx)
}

/// One of the extension's `system` records: its uuid and its JSONL line.
pub(super) fn system_line(
    uuid: Uuid,
    subtype: &str,
    content: &str,
    meta: Meta<'_>,
    parent: Option<&Uuid>,
    ctx: &RecordContext,
) -> (Uuid, String) {
    let (mut expand_metadata, mut snip_metadata, mut collapse_metadata) = (None, None, None);
    let (mut pin_metadata, mut collapse_expand_metadata, mut count_metadata) = (None, None, None);
    match meta {
        Meta::Expand(m) => expand_metadata = Some(m),
        Meta::CollapseExpand(m) => collapse_expand_metadata = Some(m),
        Meta::Snip(m) => snip_metadata = Some(m),
        Meta::Collapse(m) => collapse_metadata = Some(m),
        Meta::Pin(m) => pin_metadata = Some(m),
        Meta::Count(m) => count_metadata = Some(m),
    }
    let record = Line {
        parent_uuid: parent,
        is_sidechain: false,
        user_type: "external",
        session_id: &ctx.session_id,
        version: &ctx.version,
        kind: "system",
        subtype,
        content,
        timestamp: ctx.timestamp.as_str(),
        uuid: &uuid,
        level: "info",
        expand_metadata,
        collapse_expand_metadata,
        snip_metadata,
        collapse_metadata,
        pin_metadata,
        count_metadata,
    };
    // Strings and lists of strings only: serialising cannot fail.
    let line = crate::message::to_json_string(&record).unwrap_or_default();
    (uuid, line)
}

/// What an extension record says.
pub(super) enum Meta<'a> {
    Expand(Metadata<'a>),
    Snip(SnipMetadata<'a>),
    Collapse(CollapseMetadata<'a>),
    Pin(PinMetadata<'a>),
    CollapseExpand(CollapseExpandMetadata<'a>),
    Count(super::counted::CountMetadata<'a>),
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
    #[serde(skip_serializing_if = "Option::is_none")]
    expand_metadata: Option<Metadata<'a>>,
    /// An expanded collapse's, under the same key.
    #[serde(rename = "expandMetadata", skip_serializing_if = "Option::is_none")]
    collapse_expand_metadata: Option<CollapseExpandMetadata<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    snip_metadata: Option<SnipMetadata<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    collapse_metadata: Option<CollapseMetadata<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pin_metadata: Option<PinMetadata<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    count_metadata: Option<super::counted::CountMetadata<'a>>,
}

/// `expandMetadata`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Metadata<'a> {
    boundary_uuid: &'a Uuid,
    removed_uuids: &'a [Uuid],
}

/// `snipMetadata`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct SnipMetadata<'a> {
    removed_uuids: &'a [Uuid],
}

/// `collapseMetadata`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct CollapseMetadata<'a> {
    removed_uuids: &'a [Uuid],
    summary_uuid: &'a Uuid,
    #[serde(skip_serializing_if = "Option::is_none")]
    after_uuid: Option<&'a Uuid>,
}

/// `pinMetadata`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct PinMetadata<'a> {
    uuid: &'a Uuid,
    pinned: bool,
}

/// `expandMetadata` of an expanded collapse.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct CollapseExpandMetadata<'a> {
    summary_uuid: &'a Uuid,
    restored_uuids: &'a [Uuid],
}
