//! One line of a session file, classified: a message line, a compact
//! boundary, another chain record, uuid-less metadata, or something unknown
//! (kept verbatim). Pure functions of one JSON object.

use std::fmt;

use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::{Map, Value};

use super::model::Fields;
use super::model::{CompactMetadata, PreservedMessages, PreservedSegment};
use crate::message::{Content, Json, Role, Usage, Uuid};

/// Record types without a uuid that the importer knows and only counts.
const METADATA_TYPES: &[&str] = &[
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

/// Top-level keys read even from a record whose payload is only counted.
const ENVELOPE_KEYS: &[&str] = &[
    "type",
    "_type",
    "subtype",
    "uuid",
    "parentUuid",
    "isSidechain",
    "version",
    "sessionId",
];

/// Record types whose payload the importer does not keep: only their
/// envelope is read (their `data`, `snapshot`… are skipped, not built).
const COUNT_ONLY_TYPES: &[&str] = &["progress", "attachment", "summary"];

/// One line's top-level object, read in one pass without building what the
/// importer would throw away: `toolUseResult` (the UI's structured copy of
/// a tool's output, never sent to the model) and the payload of count-only
/// records (`progress` data, file-history snapshots…, once their `type` is
/// known) are skipped. Everything else is kept as JSON.
///
/// A record's `message` is kept as its text ([`Json`]), not parsed: a
/// conversation record's content is read from that text straight into the
/// engine's blocks, so what the engine does not interpret (tool inputs,
/// unknown fields) keeps its bytes and its key order.
pub(crate) struct LineMap {
    /// Every kept field but `message`.
    pub map: Map<String, Value>,
    /// `message`, as its text.
    pub message: Option<Json>,
}

impl LineMap {
    /// The whole record as parsed JSON (`message` parsed too), for a record
    /// kept verbatim.
    pub fn into_map(self) -> Map<String, Value> {
        let LineMap { mut map, message } = self;
        if let Some(raw) = message {
            let value = serde_json::from_slice(raw.text().as_bytes()).unwrap_or(Value::Null);
            map.insert("message".to_owned(), value);
        }
        map
    }
}

impl<'de> Deserialize<'de> for LineMap {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(LineVisitor)
    }
}

struct LineVisitor;

/// Whether only the envelope of this record is kept: count-only types, and
/// sidechain conversation records (v1.0 inline subagents).
fn is_count_only(map: &Map<String, Value>) -> bool {
    match map.get("type").and_then(Value::as_str) {
        Some("user" | "assistant" | "system") => is_sidechain(map),
        Some(kind) => COUNT_ONLY_TYPES.contains(&kind) || METADATA_TYPES.contains(&kind),
        None => false,
    }
}

fn is_sidechain(map: &Map<String, Value>) -> bool {
    map.get("isSidechain").and_then(Value::as_bool) == Some(true)
}

impl<'de> Visitor<'de> for LineVisitor {
    type Value = LineMap;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a json object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<LineMap, A::Error> {
        let mut map = Map::new();
        let mut message = None;
        let mut count_only = false;
        while let Some(key) = access.next_key::<String>()? {
            let skip = key == "toolUseResult" || (count_only && !ENVELOPE_KEYS.contains(&key.as_str()));
            if skip {
                access.next_value::<IgnoredAny>()?;
                continue;
            }
            if key == "message" {
                message = Some(access.next_value::<Json>()?);
                continue;
            }
            let value: Value = access.next_value()?;
            let decisive = key == "type" || key == "isSidechain";
            map.insert(key, value);
            if decisive {
                count_only = is_count_only(&map);
                if count_only {
                    message = None;
                }
            }
        }
        Ok(LineMap { map, message })
    }
}

/// What one parsed line is.
pub(crate) enum Record {
    /// A `user` or `assistant` line.
    Message(MessageLine),
    /// A `system` record with `subtype: "compact_boundary"`.
    Boundary(BoundaryLine),
    /// Another record with a uuid: part of the chain, not a message.
    Node(NodeLine),
    /// A `summary` record: the session's title.
    Title,
    /// A uuid-less metadata record the importer counts.
    Metadata,
    /// The header line of a normalized (hive-mind) export.
    Header(Map<String, Value>),
    /// An unknown `type` (or none): kept verbatim; `node` is set when it has
    /// a uuid, so a chain through it still works.
    Unknown {
        /// Its uuid and parent, if it has a uuid.
        node: Option<NodeLine>,
        /// The whole record.
        value: Map<String, Value>,
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
pub(crate) struct MessageLine {
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
    pub extra: Fields,
    /// `message` fields not interpreted (`model`, `stop_reason`, raw usage…).
    pub message_extra: Fields,
}

/// A `compact_boundary` record.
pub(crate) struct BoundaryLine {
    pub envelope: Envelope,
    pub logical_parent: Option<Uuid>,
    pub metadata: Option<CompactMetadata>,
    pub extra: Fields,
}

/// Any other chain record: `progress`, `attachment`, a non-boundary
/// `system` record, an unknown type with a uuid.
pub(crate) struct NodeLine {
    pub envelope: Envelope,
}

/// The reason a known record could not be used, in lowercase words.
pub(crate) type Invalid = String;

/// The record's `type` for counting: `system/<subtype>` for system records.
pub(crate) fn type_label(map: &Map<String, Value>) -> String {
    match (map.get("type").and_then(Value::as_str), map.get("_type")) {
        (Some("system"), _) => match map.get("subtype").and_then(Value::as_str) {
            Some(subtype) => format!("system/{subtype}"),
            None => "system".to_owned(),
        },
        (Some(kind), _) => kind.to_owned(),
        (None, Some(Value::String(kind))) => kind.clone(),
        (None, _) => "(none)".to_owned(),
    }
}

/// Classifies one record. `Err` means a known type with unusable fields:
/// the caller keeps it verbatim and reports the reason.
pub(crate) fn classify(line: LineMap, first_line: bool) -> Result<Record, (Invalid, Map<String, Value>)> {
    let kind = match line.map.get("type") {
        Some(Value::String(kind)) => kind.clone(),
        Some(other) => {
            let why = format!("`type` must be a string, got {}", short(other));
            return Err((why, line.into_map()));
        }
        None => {
            let map = line.into_map();
            if first_line && map.get("_type").and_then(Value::as_str) == Some("hive-mind-meta") {
                return Ok(Record::Header(map));
            }
            return Ok(Record::Unknown {
                node: node_of(&map),
                value: map,
            });
        }
    };
    let sidechain = is_sidechain(&line.map);
    if (kind == "user" || kind == "assistant") && !sidechain {
        return message(line, &kind);
    }
    let mut map = line.into_map();
    match kind.as_str() {
        // Sidechain conversation records are counted and linked, not kept.
        "user" | "assistant" | "system" if sidechain => match envelope(&mut map) {
            Ok(envelope) => Ok(Record::Node(NodeLine { envelope })),
            Err(why) => Err((why, map)),
        },
        "system" if map.get("subtype").and_then(Value::as_str) == Some("compact_boundary") => boundary(map),
        "summary" => Ok(Record::Title),
        k if k == "system" || NODE_TYPES.contains(&k) => match envelope(&mut map) {
            Ok(envelope) => Ok(Record::Node(NodeLine { envelope })),
            Err(why) => Err((why, map)),
        },
        k if METADATA_TYPES.contains(&k) => Ok(Record::Metadata),
        _ => Ok(Record::Unknown {
            node: node_of(&map),
            value: map,
        }),
    }
}

/// A short rendering of a JSON value for a problem's detail.
pub(crate) fn short(value: &Value) -> String {
    short_text(&value.to_string())
}

/// [`short`] for JSON text.
fn short_text(text: &str) -> String {
    match text.char_indices().nth(60) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

/// A conversation record's `message`: its `content` as text (read into
/// blocks next, so that an error there is the content's), every other field
/// parsed.
struct Payload {
    content: Option<Json>,
    rest: Map<String, Value>,
}

impl<'de> Deserialize<'de> for Payload {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct PayloadVisitor;
        impl<'de> Visitor<'de> for PayloadVisitor {
            type Value = Payload;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a json object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Payload, A::Error> {
                let mut payload = Payload {
                    content: None,
                    rest: Map::new(),
                };
                while let Some(key) = access.next_key::<String>()? {
                    if key == "content" {
                        payload.content = Some(access.next_value()?);
                    } else {
                        let value = access.next_value()?;
                        payload.rest.insert(key, value);
                    }
                }
                Ok(payload)
            }
        }
        deserializer.deserialize_map(PayloadVisitor)
    }
}

/// The chain node of a record kept verbatim, if it has a uuid.
pub(crate) fn node_of(map: &Map<String, Value>) -> Option<NodeLine> {
    let uuid = map.get("uuid")?.as_str()?;
    Some(NodeLine {
        envelope: Envelope {
            uuid: Uuid::from(uuid),
            parent: map.get("parentUuid").and_then(Value::as_str).map(Uuid::from),
            sidechain: map.get("isSidechain").and_then(Value::as_bool).unwrap_or(false),
            timestamp: None,
        },
    })
}

/// Takes `uuid`, `parentUuid`, `isSidechain` and `timestamp` out of a
/// record (they are kept typed, not in `extra`).
fn envelope(map: &mut Map<String, Value>) -> Result<Envelope, Invalid> {
    let uuid = match map.get("uuid") {
        Some(Value::String(uuid)) if !uuid.is_empty() => Uuid(uuid.clone()),
        Some(other) => return Err(format!("`uuid` must be a non-empty string, got {}", short(other))),
        None => return Err("missing `uuid`".to_owned()),
    };
    let parent = match map.get("parentUuid") {
        None | Some(Value::Null) => None,
        Some(Value::String(p)) => Some(Uuid(p.clone())),
        Some(other) => {
            return Err(format!(
                "`parentUuid` must be a string or null, got {}",
                short(other)
            ))
        }
    };
    let sidechain = match map.get("isSidechain") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(other) => return Err(format!("`isSidechain` must be a boolean, got {}", short(other))),
    };
    let timestamp = match map.get("timestamp") {
        None | Some(Value::Null) => None,
        Some(Value::String(t)) => Some(t.clone()),
        Some(other) => Some(other.to_string()),
    };
    for key in ["uuid", "parentUuid", "isSidechain", "timestamp"] {
        map.remove(key);
    }
    Ok(Envelope {
        uuid,
        parent,
        sidechain,
        timestamp,
    })
}

fn flag(map: &mut Map<String, Value>, key: &str) -> bool {
    match map.get(key) {
        Some(Value::Bool(b)) => {
            let b = *b;
            map.remove(key);
            b
        }
        _ => false,
    }
}

fn message(line: LineMap, kind: &str) -> Result<Record, (Invalid, Map<String, Value>)> {
    let role = if kind == "user" {
        Role::User
    } else {
        Role::Assistant
    };
    // Fields are taken out as they are read; on an error the caller keeps
    // the line verbatim by reading it again.
    let LineMap { mut map, message } = line;
    let Some(message) = message else {
        return Err(("missing `message`".to_owned(), map));
    };
    let (content, mut message_extra) = match serde_json::from_slice::<Payload>(message.text().as_bytes()) {
        Ok(Payload {
            content: Some(content),
            rest,
        }) => (content, rest),
        Ok(Payload { content: None, .. }) => return Err(("`message` has no `content`".to_owned(), map)),
        Err(_) if !message.text().starts_with('{') => {
            let why = format!("`message` must be an object, got {}", short_text(message.text()));
            return Err((why, map));
        }
        Err(_) => return Err(("`message` is not a usable object".to_owned(), map)),
    };
    let content = match serde_json::from_slice::<Content>(content.text().as_bytes()) {
        Ok(content) => content,
        Err(err) => return Err((format!("`message.content`: {err}"), map)),
    };
    let envelope = match envelope(&mut map) {
        Ok(envelope) => envelope,
        Err(why) => return Err((why, map)),
    };
    message_extra.remove("role");
    let message_id = message_extra.get("id").and_then(Value::as_str).map(str::to_owned);
    let synthetic = message_extra.get("model").and_then(Value::as_str) == Some("<synthetic>");
    let is_api_error_message = flag(&mut map, "isApiErrorMessage");
    // A synthetic message (an API error, an interruption) came from no
    // request: it has no usage, whatever zeros it carries.
    let usage = match message_extra.get("usage") {
        Some(raw) if !synthetic && !is_api_error_message => usage(raw),
        _ => None,
    };
    Ok(Record::Message(MessageLine {
        envelope,
        role,
        content,
        usage,
        message_id,
        request_id: match map.remove("requestId") {
            Some(Value::String(id)) => Some(id),
            Some(other) => {
                map.insert("requestId".to_owned(), other);
                None
            }
            None => None,
        },
        is_meta: flag(&mut map, "isMeta"),
        is_compact_summary: flag(&mut map, "isCompactSummary"),
        is_api_error_message,
        extra: map,
        message_extra,
    }))
}

/// The four counters of an API `usage` object, read leniently: a missing
/// or non-numeric counter is 0; anything but an object is no usage.
fn usage(raw: &Value) -> Option<Usage> {
    let map = raw.as_object()?;
    let n = |key: &str| map.get(key).and_then(Value::as_u64).unwrap_or(0);
    Some(Usage {
        input_tokens: n("input_tokens"),
        output_tokens: n("output_tokens"),
        cache_creation_input_tokens: n("cache_creation_input_tokens"),
        cache_read_input_tokens: n("cache_read_input_tokens"),
    })
}

fn boundary(mut map: Map<String, Value>) -> Result<Record, (Invalid, Map<String, Value>)> {
    let envelope = match envelope(&mut map) {
        Ok(envelope) => envelope,
        Err(why) => return Err((why, map)),
    };
    let logical_parent = match map.remove("logicalParentUuid") {
        Some(Value::String(p)) => Some(Uuid(p)),
        _ => None,
    };
    let metadata = match map.remove("compactMetadata") {
        Some(Value::Object(meta)) => Some(compact_metadata(meta)),
        Some(other) => {
            // Keep a malformed value verbatim in `extra`.
            map.insert("compactMetadata".to_owned(), other);
            None
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

fn uuid_field(map: &Map<String, Value>, key: &str) -> Option<Uuid> {
    map.get(key).and_then(Value::as_str).map(Uuid::from)
}

/// Reads every `compactMetadata` variant real files and the spec carry:
/// `{trigger, preTokens}`; `postTokens`, `cumulativeDroppedTokens`;
/// `preservedSegment {headUuid, anchorUuid, tailUuid}`; `preservedMessages`
/// as `[uuid…]` (SPEC R7.9) or `{anchorUuid, uuids}`. Everything else is
/// kept verbatim.
fn compact_metadata(mut meta: Map<String, Value>) -> CompactMetadata {
    let mut take_u64 = |key: &str| match meta.get(key).and_then(Value::as_u64) {
        Some(n) => {
            meta.remove(key);
            Some(n)
        }
        None => None,
    };
    let pre_tokens = take_u64("preTokens");
    let post_tokens = take_u64("postTokens");
    let cumulative_dropped_tokens = take_u64("cumulativeDroppedTokens");
    let trigger = match meta.remove("trigger") {
        Some(Value::String(t)) => Some(t),
        Some(other) => {
            meta.insert("trigger".to_owned(), other);
            None
        }
        None => None,
    };
    let preserved_segment = match meta.get("preservedSegment") {
        Some(Value::Object(seg)) => {
            let segment = PreservedSegment {
                head_uuid: uuid_field(seg, "headUuid"),
                anchor_uuid: uuid_field(seg, "anchorUuid"),
                tail_uuid: uuid_field(seg, "tailUuid"),
            };
            meta.remove("preservedSegment");
            Some(segment)
        }
        _ => None,
    };
    let list = |items: &Vec<Value>| items.iter().filter_map(Value::as_str).map(Uuid::from).collect();
    let preserved_messages = match meta.get("preservedMessages") {
        Some(Value::Array(items)) => Some(PreservedMessages {
            anchor_uuid: None,
            uuids: list(items),
        }),
        Some(Value::Object(obj)) => Some(PreservedMessages {
            anchor_uuid: uuid_field(obj, "anchorUuid"),
            uuids: match obj.get("uuids") {
                Some(Value::Array(items)) => list(items),
                _ => Vec::new(),
            },
        }),
        _ => None,
    };
    if preserved_messages.is_some() {
        meta.remove("preservedMessages");
    }
    CompactMetadata {
        trigger,
        pre_tokens,
        post_tokens,
        cumulative_dropped_tokens,
        preserved_segment,
        preserved_messages,
        extra: meta,
    }
}
