//! One line of a session file read into its top-level fields in one pass
//! ([`LineMap`]), a conversation record's `message` straight into its
//! blocks ([`Payload`]). What the line is comes after, in `record`.

use std::fmt;

use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, Visitor};

use super::model::Fields;
use super::record::METADATA_TYPES;
use crate::message::{Content, Json, Text};

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
    "parentToolUseID",
];

/// Record types whose payload the importer does not keep: only their
/// envelope is read (their `data`, `snapshot`… are skipped, not built).
const COUNT_ONLY_TYPES: &[&str] = &["progress", "attachment", "summary"];

/// One line's top-level object, read in one pass without building what the
/// importer would throw away: `toolUseResult` (the UI's structured copy of
/// a tool's output, never sent to the model) and the payload of count-only
/// records (`progress` data, file-history snapshots…, once their `type` is
/// known) are skipped. Everything else is kept as its JSON text ([`Json`]),
/// in order: a field the importer does not interpret keeps its bytes.
///
/// A conversation record's `message` (before or after its `type`) is read
/// straight into its blocks in the same pass ([`LineMap::payload`]), not
/// kept as text to be parsed again. If that read fails, or the record
/// turns out not to be a `user`/`assistant` one (another `type`, a second
/// `type`, none), the line is to be read again with `payloads` off
/// ([`LineMap::again`]): the slower path decides what such a line is, so
/// the result never depends on which path read it.
pub(crate) struct LineMap {
    /// The fields kept as text (without `message` when `payload` has it).
    pub fields: Fields,
    /// The last `message`, already read, when it came after `type`.
    pub payload: Option<Payload>,
    /// The record must be read again with `payloads` off.
    pub again: bool,
}

impl<'de> Deserialize<'de> for LineMap {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        serde::de::DeserializeSeed::deserialize(
            LineSeed {
                sidechains: false,
                payloads: false,
            },
            deserializer,
        )
    }
}

/// Reads a [`LineMap`]; `sidechains`: keep a sidechain conversation
/// record's payload too (a subagent's own transcript, where they are the
/// conversation, or before the importer knows which file it reads);
/// `payloads`: read a conversation record's `message` in the same pass.
pub(crate) struct LineSeed {
    pub sidechains: bool,
    pub payloads: bool,
}

impl<'de> serde::de::DeserializeSeed<'de> for LineSeed {
    type Value = LineMap;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<LineMap, D::Error> {
        deserializer.deserialize_map(LineVisitor { seed: self })
    }
}

struct LineVisitor {
    seed: LineSeed,
}

/// Whether the record is a `user` or `assistant` one, by its `type`.
fn is_conversation(map: &Fields) -> bool {
    matches!(map.str_field("type").as_deref(), Some("user" | "assistant"))
}

/// Whether only the envelope of this record is kept: count-only types, and
/// sidechain conversation records (v1.0 inline subagents) unless
/// `sidechains`.
fn is_count_only(map: &Fields, sidechains: bool) -> bool {
    match map.str_field("type").as_deref() {
        Some("user" | "assistant" | "system") => !sidechains && is_sidechain(map),
        Some(kind) => COUNT_ONLY_TYPES.contains(&kind) || METADATA_TYPES.contains(&kind),
        None => false,
    }
}

pub(super) fn is_sidechain(map: &Fields) -> bool {
    map.bool_field("isSidechain") == Some(true)
}

impl<'de> Visitor<'de> for LineVisitor {
    type Value = LineMap;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a json object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<LineMap, A::Error> {
        let mut map = Fields::new();
        let mut payload = None;
        let mut count_only = false;
        // A `user`/`assistant` record kept whole, so far.
        let mut conversation = false;
        while let Some(Text(key)) = access.next_key::<Text<'de>>()? {
            let skip = key == "toolUseResult" || (count_only && !ENVELOPE_KEYS.contains(&key.as_ref()));
            if skip {
                access.next_value::<IgnoredAny>()?;
                continue;
            }
            // Before its `type` (newer clients write an assistant record's
            // `message` first) the record is read as one that may be a
            // conversation record: if it is not, it is read again.
            if key == "message" && self.seed.payloads && (conversation || !map.contains_key("type")) {
                payload = Some(access.next_value::<Payload>()?);
                map.remove("message");
                continue;
            }
            let value: Json = access.next_value()?;
            let decisive = key == "type" || key == "isSidechain";
            if key == "message" {
                payload = None;
            }
            map.insert(key.into_owned(), value);
            if decisive {
                count_only = is_count_only(&map, self.seed.sidechains);
                conversation = !count_only && is_conversation(&map);
            }
        }
        let again = payload.is_some() && !is_conversation(&map);
        Ok(LineMap {
            fields: map,
            payload,
            again,
        })
    }
}

/// A conversation record's `message`, read in one pass: `content` into
/// blocks, the other fields as their text.
pub(crate) struct Payload {
    pub(super) content: Option<Content>,
    pub(super) rest: Fields,
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
                    rest: Fields::new(),
                };
                while let Some(Text(key)) = access.next_key::<Text<'de>>()? {
                    if key == "content" {
                        payload.content = Some(access.next_value()?);
                    } else {
                        let value = access.next_value()?;
                        payload.rest.insert(key.into_owned(), value);
                    }
                }
                Ok(payload)
            }
        }
        deserializer.deserialize_map(PayloadVisitor)
    }
}
