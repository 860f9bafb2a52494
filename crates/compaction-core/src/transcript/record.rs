//! One line of a session file, classified: a message line, a compact
//! boundary, another chain record, uuid-less metadata, or something unknown
//! (kept verbatim). Pure functions of one JSON object.

use std::borrow::Cow;

use serde_json::value::RawValue;

use super::line::{bool_of, is_sidechain, text_of};
pub(crate) use super::line::{LineFields, LineMap, LineSeed, Payload};
use super::metadata::compact_metadata;
pub(super) use super::metadata::uuid_list;
use super::model::CompactMetadata;
use super::model::Fields;
use crate::message::field_in;
use crate::message::{Content, Json, Role, Usage, Uuid};

/// Record types without a uuid that the importer knows and only counts.
pub(super) const METADATA_TYPES: &[&str] = &[
    "file-history-snapshot",
    "queue-operation",
    "custom-title",
    "ai-title",
    "agent-name",
    "agent-setting",
    "agent-color",
    "permission-mode",
    "mode",
    "pr-link",
    "tag",
    "last-prompt",
];

/// Chain record types (they have a uuid) that are not messages, besides
/// `system` and sidechain records.
const NODE_TYPES: &[&str] = &["progress", "attachment"];

/// What one parsed line is (a message line's uninterpreted fields
/// borrowed from the line).
pub(crate) enum Record<'de> {
    /// A `user` or `assistant` line.
    Message(MessageLine<'de>),
    /// A `system` record with `subtype: "compact_boundary"`.
    Boundary(BoundaryLine),
    /// A `system` record with `subtype: "microcompact_boundary"`.
    Microcompact(MicrocompactLine),
    /// A `system` record with `subtype: "compact_expanded"` (extension).
    Expanded(super::expand::ExpandedLine),
    /// A `system` record with `subtype: "message_pinned"` (extension).
    Pinned(super::expand::PinLine),
    /// A `system` record with `subtype: "count_calibrated"` (extension).
    Counted(super::counted::CountedLine),
    /// Another record with a uuid: part of the chain, not a message.
    Node(NodeLine),
    /// A `summary` record: the session's title.
    Title,
    /// A uuid-less metadata record the importer counts.
    Metadata,
    /// The header line of a normalized (hive-mind) export.
    Header(Fields),
    /// An unknown `type` (or none): kept verbatim; `node` is set when it has
    /// a uuid, so a chain through it still works.
    Unknown {
        /// Its uuid and parent, if it has a uuid.
        node: Option<NodeLine>,
        /// The whole record.
        value: Fields,
    },
}

/// The envelope every chain record shares.
pub(crate) struct Envelope {
    pub uuid: Uuid,
    pub parent: Option<Uuid>,
    pub sidechain: bool,
    pub timestamp: Option<String>,
}

/// A `user`/`assistant` line, its fields taken out of the JSON.
pub(crate) struct MessageLine<'de> {
    pub envelope: Envelope,
    pub role: Role,
    pub content: Content,
    pub usage: Option<Usage>,
    pub message_id: Option<String>,
    pub request_id: Option<String>,
    pub is_meta: bool,
    pub is_compact_summary: bool,
    pub is_api_error_message: bool,
    /// Top-level fields not interpreted (`cwd`, `gitBranch`, `todos`…).
    pub extra: LineFields<'de>,
    /// `message` fields not interpreted (`model`, `stop_reason`, raw usage…).
    pub message_extra: LineFields<'de>,
}

/// A `compact_boundary` record.
pub(crate) struct BoundaryLine {
    pub envelope: Envelope,
    pub logical_parent: Option<Uuid>,
    pub metadata: Option<CompactMetadata>,
    pub extra: Fields,
}

/// A `microcompact_boundary` record: tool results the client cleared.
pub(crate) struct MicrocompactLine {
    pub envelope: Envelope,
    /// `microcompactMetadata.trigger`.
    pub trigger: Option<String>,
    /// `microcompactMetadata.preTokens`.
    pub pre_tokens: Option<u64>,
    /// `microcompactMetadata.tokensSaved`.
    pub tokens_saved: Option<u64>,
    /// `microcompactMetadata.compactedToolIds`.
    pub tool_ids: Vec<String>,
}

/// Any other chain record: `progress`, `attachment`, a non-boundary
/// `system` record, an unknown type with a uuid.
pub(crate) struct NodeLine {
    pub envelope: Envelope,
    /// A `progress` record's `parentToolUseID`: the tool call a hook,
    /// command or subagent reports on (or, for session hooks, the hook
    /// run's own uuid).
    pub tool_call: Option<String>,
}

/// The reason a known record could not be used, in lowercase words.
pub(crate) type Invalid = String;

/// The record's `type` for counting: `system/<subtype>` for system records.
pub(crate) fn type_label(map: &LineFields<'_>) -> String {
    match (map.str_field("type"), map.str_field("_type")) {
        (Some(kind), _) if kind == "system" => match map.str_field("subtype") {
            Some(subtype) => crate::text::concat("system/", &subtype),
            None => "system".to_owned(),
        },
        (Some(kind), _) => kind.into_owned(),
        (None, Some(kind)) => kind.into_owned(),
        (None, _) => "(none)".to_owned(),
    }
}

/// Classifies one record. `Err` means a known type with unusable fields:
/// the caller keeps it verbatim and reports the reason.
/// `payload` is the record's `message` if the line's read took it out
/// ([`LineMap::payload`]).
pub(crate) fn classify<'de>(
    mut map: LineFields<'de>,
    payload: Option<Payload<'de>>,
    first_line: bool,
) -> Result<Record<'de>, (Invalid, Fields)> {
    let kind = match map.get("type") {
        Some(kind) => match text_of(kind.get()) {
            Some(kind) => kind,
            None => {
                let why = format!("`type` must be a string, got {}", short_text(kind.get()));
                return Err((why, map.to_fields()));
            }
        },
        None => {
            let map = map.to_fields();
            if first_line && map.str_field("_type").as_deref() == Some("hive-mind-meta") {
                return Ok(Record::Header(map));
            }
            return Ok(Record::Unknown {
                node: node_of(&map),
                value: map,
            });
        }
    };
    let subtype = map.str_field("subtype");
    let subtype = if kind == "system" {
        subtype.as_deref()
    } else {
        None
    };
    match (kind.as_ref(), subtype) {
        // Sidechain conversation records are counted and linked, not kept.
        ("user" | "assistant" | "system", _) if is_sidechain(&map) => match envelope(&mut map) {
            Ok(envelope) => Ok(Record::Node(NodeLine {
                envelope,
                tool_call: None,
            })),
            Err(why) => Err((why, map.to_fields())),
        },
        ("user" | "assistant", _) => message(map, payload, &kind),
        (_, Some("compact_boundary")) => boundary(map.to_fields()),
        (_, Some("microcompact_boundary")) => microcompact(map.to_fields()),
        (_, Some(super::expand::EXPANDED_SUBTYPE)) => super::expand::read(map.to_fields()),
        (_, Some(super::expand::SNIPPED_SUBTYPE)) => super::expand::read_snipped(map.to_fields()),
        (_, Some(super::expand::COLLAPSED_SUBTYPE)) => super::expand::read_collapsed(map.to_fields()),
        (_, Some(super::expand::COLLAPSE_EXPANDED_SUBTYPE)) => {
            super::expand::read_collapse_expanded(map.to_fields())
        }
        (_, Some(super::expand::PINNED_SUBTYPE)) => super::expand::read_pinned(map.to_fields()),
        (_, Some(super::counted::COUNTED_SUBTYPE)) => super::counted::read_counted(map.to_fields()),
        ("summary", _) => Ok(Record::Title),
        (k, _) if k == "system" || NODE_TYPES.contains(&k) => match envelope(&mut map) {
            Ok(envelope) => Ok(Record::Node(NodeLine {
                envelope,
                tool_call: (k == "progress")
                    .then(|| map.str_field("parentToolUseID").map(Cow::into_owned))
                    .flatten(),
            })),
            Err(why) => Err((why, map.to_fields())),
        },
        (k, _) if METADATA_TYPES.contains(&k) => Ok(Record::Metadata),
        _ => {
            let map = map.to_fields();
            Ok(Record::Unknown {
                node: node_of(&map),
                value: map,
            })
        }
    }
}

/// A short rendering of a JSON value for a problem's detail.
pub(crate) fn short(value: &Json) -> String {
    short_text(value.text())
}

/// [`short`] of a JSON text.
pub(crate) fn short_text(text: &str) -> String {
    match text.char_indices().nth(60) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

/// The chain node of a record kept verbatim, if it has a uuid.
pub(crate) fn node_of(map: &Fields) -> Option<NodeLine> {
    let uuid = map.str_field("uuid")?;
    Some(NodeLine {
        envelope: Envelope {
            uuid: Uuid::from(uuid.as_ref()),
            parent: map.str_field("parentUuid").map(|p| Uuid::from(p.as_ref())),
            sidechain: map.bool_field("isSidechain").unwrap_or(false),
            timestamp: None,
        },
        tool_call: None,
    })
}

/// A record's fields an envelope is read from: owned ([`Fields`]) or
/// borrowed from the line ([`LineFields`]).
pub(crate) trait Lookup {
    /// The JSON text of `key`'s value.
    fn text(&self, key: &str) -> Option<&str>;
    /// Takes `key` out.
    fn take(&mut self, key: &str);
}

impl Lookup for Fields {
    fn text(&self, key: &str) -> Option<&str> {
        self.get(key).map(Json::text)
    }
    fn take(&mut self, key: &str) {
        self.remove(key);
    }
}

impl Lookup for LineFields<'_> {
    fn text(&self, key: &str) -> Option<&str> {
        self.get(key).map(RawValue::get)
    }
    fn take(&mut self, key: &str) {
        self.remove(key);
    }
}

/// Takes `uuid`, `parentUuid`, `isSidechain` and `timestamp` out of a
/// record (they are kept typed, not in `extra`).
pub(super) fn envelope(map: &mut dyn Lookup) -> Result<Envelope, Invalid> {
    let uuid = match map.text("uuid") {
        Some(raw) => match text_of(raw) {
            Some(uuid) if !uuid.is_empty() => Uuid::from(uuid.as_ref()),
            _ => {
                return Err(format!(
                    "`uuid` must be a non-empty string, got {}",
                    short_text(raw)
                ))
            }
        },
        None => return Err("missing `uuid`".to_owned()),
    };
    let parent = typed(map, "parentUuid", "a string or null", |raw| {
        text_of(raw).map(|p| Uuid::from(p.as_ref()))
    })?;
    let sidechain = typed(map, "isSidechain", "a boolean", bool_of)?.unwrap_or(false);
    let timestamp = match map.text("timestamp") {
        None | Some("null") => None,
        Some(raw) => Some(text_of(raw).map_or_else(|| raw.to_owned(), Cow::into_owned)),
    };
    for key in ["uuid", "parentUuid", "isSidechain", "timestamp"] {
        map.take(key);
    }
    Ok(Envelope {
        uuid,
        parent,
        sidechain,
        timestamp,
    })
}

/// The value at `key` as `read` reads it (`None` when absent or null), or
/// an error saying it `must` be something else.
fn typed<T>(
    map: &dyn Lookup,
    key: &str,
    must: &str,
    read: impl Fn(&str) -> Option<T>,
) -> Result<Option<T>, Invalid> {
    match map.text(key) {
        None | Some("null") => Ok(None),
        Some(raw) => match read(raw) {
            Some(value) => Ok(Some(value)),
            None => Err(format!("`{key}` must be {must}, got {}", short_text(raw))),
        },
    }
}

/// A boolean field taken out; `false` when absent or not a boolean (then
/// it stays in the record).
fn flag(map: &mut LineFields<'_>, key: &str) -> bool {
    match map.bool_field(key) {
        Some(b) => {
            map.remove(key);
            b
        }
        None => false,
    }
}

fn message<'de>(
    mut map: LineFields<'de>,
    payload: Option<Payload<'de>>,
    kind: &str,
) -> Result<Record<'de>, (Invalid, Fields)> {
    let role = if kind == "user" {
        Role::User
    } else {
        Role::Assistant
    };
    // Fields are taken out as they are read; on an error the caller keeps
    // the line verbatim by reading it again.
    let payload = match payload {
        Some(payload) => payload,
        None => {
            let Some(message) = map.remove("message") else {
                return Err(("missing `message`".to_owned(), map.to_fields()));
            };
            // One pass: the content straight into blocks (what the engine
            // does not interpret keeps its bytes and key order), the other
            // fields as text.
            match serde_json::from_str::<Payload<'de>>(message.get()) {
                Ok(payload) => payload,
                Err(_) => return Err((payload_error(message.get()), map.to_fields())),
            }
        }
    };
    let (content, mut message_extra) = match payload {
        Payload {
            content: Some(content),
            rest,
        } => (content, rest),
        Payload { content: None, .. } => {
            return Err(("`message` has no `content`".to_owned(), map.to_fields()))
        }
    };
    let envelope = match envelope(&mut map) {
        Ok(envelope) => envelope,
        Err(why) => return Err((why, map.to_fields())),
    };
    message_extra.remove("role");
    let message_id = message_extra.str_field("id").map(Cow::into_owned);
    let synthetic = message_extra.str_field("model").as_deref() == Some("<synthetic>");
    let is_api_error_message = flag(&mut map, "isApiErrorMessage");
    // A synthetic message (an API error, an interruption) came from no
    // request: it has no usage, whatever zeros it carries.
    let usage = match message_extra.get("usage") {
        Some(raw) if !synthetic && !is_api_error_message => usage(raw.get()),
        _ => None,
    };
    let request_id = match map.str_field("requestId") {
        Some(id) => {
            let id = id.into_owned();
            map.remove("requestId");
            Some(id)
        }
        None => None,
    };
    // A `message.id` that is the record's own uuid is no API id (those are
    // `msg_…`): a tool that copied the session rewrote it, one per record,
    // so the records of one response would not merge into it. Their
    // `requestId` still names the response (one request, one response):
    // it joins them instead. Seen in 6 files of one repository of the
    // calibration sets (K3RN-LABS), every one a copy of a session.
    let message_id = match (message_id, &request_id) {
        (Some(id), Some(request)) if id == envelope.uuid.as_str() => Some(request.clone()),
        (id, _) => id,
    };
    Ok(Record::Message(MessageLine {
        envelope,
        role,
        content,
        usage,
        message_id,
        request_id,
        is_meta: flag(&mut map, "isMeta"),
        is_compact_summary: flag(&mut map, "isCompactSummary"),
        is_api_error_message,
        extra: map,
        message_extra,
    }))
}

/// The four counters of an API `usage` object, read leniently: a missing
/// or non-numeric counter is 0; anything but an object is no usage.
fn usage(raw: &str) -> Option<Usage> {
    if !raw.starts_with('{') {
        return None;
    }
    let n = |key: &str| field_in::<u64>(raw, key).unwrap_or(0);
    Some(Usage {
        input_tokens: n("input_tokens"),
        output_tokens: n("output_tokens"),
        cache_creation_input_tokens: n("cache_creation_input_tokens"),
        cache_read_input_tokens: n("cache_read_input_tokens"),
    })
}

fn boundary(mut map: Fields) -> Result<Record<'static>, (Invalid, Fields)> {
    let envelope = match envelope(&mut map) {
        Ok(envelope) => envelope,
        Err(why) => return Err((why, map)),
    };
    let logical_parent = map.str_field("logicalParentUuid").map(|p| Uuid::from(p.as_ref()));
    map.remove("logicalParentUuid");
    // A malformed `compactMetadata` stays verbatim in `extra`.
    let metadata = match map.get("compactMetadata").and_then(|raw| raw.read::<Fields>()) {
        Some(meta) => {
            map.remove("compactMetadata");
            Some(compact_metadata(meta))
        }
        None => None,
    };
    Ok(Record::Boundary(BoundaryLine {
        envelope,
        logical_parent,
        metadata,
        extra: map,
    }))
}

/// A `microcompact_boundary`'s envelope and `microcompactMetadata`; a
/// metadata field of the wrong shape reads as absent.
fn microcompact(mut map: Fields) -> Result<Record<'static>, (Invalid, Fields)> {
    let envelope = match envelope(&mut map) {
        Ok(envelope) => envelope,
        Err(why) => return Err((why, map)),
    };
    let meta = map
        .get("microcompactMetadata")
        .and_then(|raw| raw.read::<Fields>())
        .unwrap_or_default();
    let number = |key: &str| meta.get(key).and_then(Json::read::<u64>);
    let tool_ids = meta
        .get("compactedToolIds")
        .and_then(|list| uuid_list(list.text()))
        .unwrap_or_default()
        .into_iter()
        .map(|id| id.as_str().to_owned())
        .collect();
    Ok(Record::Microcompact(MicrocompactLine {
        envelope,
        trigger: meta.str_field("trigger").map(Cow::into_owned),
        pre_tokens: number("preTokens"),
        tokens_saved: number("tokensSaved"),
        tool_ids,
    }))
}

/// Why a `message` did not read as a [`Payload`], in words naming the
/// field (read again step by step: only for a record that is invalid).
fn payload_error(message: &str) -> Invalid {
    let Ok(mut fields) = serde_json::from_str::<Fields>(message) else {
        return format!("`message` must be an object, got {}", short_text(message));
    };
    match fields.remove("content") {
        None => "`message` has no `content`".to_owned(),
        Some(content) => match serde_json::from_str::<Content>(content.text()) {
            Err(err) => format!("`message.content`: {err}"),
            Ok(_) => "`message` is not a usable object".to_owned(),
        },
    }
}
