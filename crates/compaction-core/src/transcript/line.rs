//! One line of a session file read into its top-level fields in one pass
//! ([`LineMap`]), a conversation record's `message` straight into its
//! blocks ([`Payload`]). What the line is comes after, in `record`.
//!
//! The fields are borrowed from the line ([`LineFields`]: each key, and
//! each value as its JSON text): reading a line allocates for what the
//! importer keeps (blocks, uuids), not for every field it looks at once.

use std::borrow::Cow;
use std::fmt;

use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;

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

/// A JSON object's fields borrowed from the text it was read from: each
/// key, and each value as its JSON text, in order. A key appears once:
/// inserting it again replaces its value in place, as a JSON object's last
/// duplicate wins (as [`Fields`] does).
#[derive(Default)]
pub(crate) struct LineFields<'de>(Vec<(Cow<'de, str>, &'de RawValue)>);

impl<'de> LineFields<'de> {
    /// Room for a record's usual fields, so that reading one grows nothing.
    fn with_room() -> Self {
        LineFields(Vec::with_capacity(16))
    }

    /// The value of `key`, as its JSON text.
    pub fn get(&self, key: &str) -> Option<&'de RawValue> {
        self.0.iter().find(|(k, _)| is_key(k, key)).map(|&(_, v)| v)
    }

    /// Whether `key` is there.
    pub fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// The string at `key`, if that field is a string (borrowed when it
    /// has no escapes).
    pub fn str_field(&self, key: &str) -> Option<Cow<'de, str>> {
        text_of(self.get(key)?.get())
    }

    /// The boolean at `key`, if that field is one.
    pub fn bool_field(&self, key: &str) -> Option<bool> {
        bool_of(self.get(key)?.get())
    }

    /// Sets `key`: in place if it is there, last otherwise.
    pub fn insert(&mut self, key: Cow<'de, str>, value: &'de RawValue) {
        match self.0.iter_mut().find(|(k, _)| is_key(k, &key)) {
            Some((_, slot)) => *slot = value,
            None => self.0.push((key, value)),
        }
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Takes `key` out.
    pub fn remove(&mut self, key: &str) -> Option<&'de RawValue> {
        let at = self.0.iter().position(|(k, _)| is_key(k, key))?;
        Some(self.0.remove(at).1)
    }

    /// The fields, owned.
    pub fn to_fields(&self) -> Fields {
        self.0
            .iter()
            .map(|(k, v)| (k.as_ref().to_owned(), Json::from_raw((*v).to_owned())))
            .collect()
    }

    /// The fields as one JSON object's text, written into `out` (cleared
    /// first): each key as a JSON string, each value verbatim.
    pub fn write_object(&self, out: &mut Vec<u8>) {
        out.clear();
        out.push(b'{');
        for (i, (key, value)) in self.0.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            if key.bytes().any(|b| b < 0x20 || b == b'"' || b == b'\\') {
                let mut text = String::new();
                crate::message::write_json_string(&mut text, key.as_ref());
                out.extend_from_slice(text.as_bytes());
            } else {
                out.push(b'"');
                out.extend_from_slice(key.as_bytes());
                out.push(b'"');
            }
            out.push(b':');
            out.extend_from_slice(value.get().as_bytes());
        }
        out.push(b'}');
    }
}

/// Whether `k` is `key`: a record's keys differ in length far more often
/// than not, so that is compared first, inline (a line's two dozen lookups
/// through its dozen keys were a fifth of the reading).
#[inline]
fn is_key(k: &str, key: &str) -> bool {
    k.len() == key.len() && k == key
}

/// The string a JSON text is, if it is one (borrowed when it has no
/// escapes). `raw` is one JSON value as serde_json read it: a string
/// without a backslash is the text between its quotes.
pub(crate) fn text_of(raw: &str) -> Option<Cow<'_, str>> {
    match raw.strip_prefix('"').and_then(|r| r.strip_suffix('"')) {
        Some(inner) if !inner.contains('\\') => Some(Cow::Borrowed(inner)),
        _ => serde_json::from_str::<Text>(raw).ok().map(|t| t.0),
    }
}

/// The boolean a JSON text is, if it is one.
pub(crate) fn bool_of(raw: &str) -> Option<bool> {
    match raw {
        "true" => Some(true),
        "false" => Some(false),
        _ => serde_json::from_str(raw).ok(),
    }
}

/// One line's top-level object, read in one pass without building what the
/// importer would throw away: `toolUseResult` (the UI's structured copy of
/// a tool's output, never sent to the model) and the payload of count-only
/// records (`progress` data, file-history snapshots…, once their `type` is
/// known) are skipped. Everything else is kept as its JSON text, borrowed
/// from the line ([`LineFields`]), in order: a field the importer does not
/// interpret keeps its bytes.
///
/// A conversation record's `message` (before or after its `type`) is read
/// straight into its blocks in the same pass ([`LineMap::payload`]), not
/// kept as text to be parsed again. If that read fails, or the record
/// turns out not to be a `user`/`assistant` one (another `type`, a second
/// `type`, none), the line is to be read again with `payloads` off
/// ([`LineMap::again`]): the slower path decides what such a line is, so
/// the result never depends on which path read it.
pub(crate) struct LineMap<'de> {
    /// The fields kept as text (without `message` when `payload` has it).
    pub fields: LineFields<'de>,
    /// The last `message`, already read, when it came after `type`.
    pub payload: Option<Payload<'de>>,
    /// The record must be read again with `payloads` off.
    pub again: bool,
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
    type Value = LineMap<'de>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<LineMap<'de>, D::Error> {
        deserializer.deserialize_map(LineVisitor { seed: self })
    }
}

struct LineVisitor {
    seed: LineSeed,
}

/// Whether the record is a `user` or `assistant` one, by its `type`.
fn is_conversation(map: &LineFields<'_>) -> bool {
    matches!(map.str_field("type").as_deref(), Some("user" | "assistant"))
}

/// Whether only the envelope of this record is kept: count-only types, and
/// sidechain conversation records (v1.0 inline subagents) unless
/// `sidechains`.
fn is_count_only(map: &LineFields<'_>, sidechains: bool) -> bool {
    match map.str_field("type").as_deref() {
        Some("user" | "assistant" | "system") => !sidechains && is_sidechain(map),
        Some(kind) => COUNT_ONLY_TYPES.contains(&kind) || METADATA_TYPES.contains(&kind),
        None => false,
    }
}

pub(super) fn is_sidechain(map: &LineFields<'_>) -> bool {
    map.bool_field("isSidechain") == Some(true)
}

impl<'de> Visitor<'de> for LineVisitor {
    type Value = LineMap<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a json object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<LineMap<'de>, A::Error> {
        let mut map = LineFields::with_room();
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
                payload = Some(access.next_value::<Payload<'de>>()?);
                map.remove("message");
                continue;
            }
            let value: &'de RawValue = access.next_value()?;
            let decisive = key == "type" || key == "isSidechain";
            if key == "message" {
                payload = None;
            }
            map.insert(key, value);
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
pub(crate) struct Payload<'de> {
    pub(super) content: Option<Content>,
    pub(super) rest: LineFields<'de>,
}

impl<'de> Deserialize<'de> for Payload<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct PayloadVisitor;
        impl<'de> Visitor<'de> for PayloadVisitor {
            type Value = Payload<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a json object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Payload<'de>, A::Error> {
                let mut payload = Payload {
                    content: None,
                    rest: LineFields(Vec::with_capacity(8)),
                };
                while let Some(Text(key)) = access.next_key::<Text<'de>>()? {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_object_written_again_reads_as_the_same_fields() {
        let text = r#"{"a":1,"we\"ird\nkey\u0001":{"x":[1, 2]},"a":"two","é":null}"#;
        let mut de = serde_json::Deserializer::from_str(text);
        let map = serde::de::DeserializeSeed::deserialize(
            LineSeed {
                sidechains: false,
                payloads: false,
            },
            &mut de,
        )
        .unwrap_or_else(|_| unreachable!());
        let mut out = Vec::new();
        map.fields.write_object(&mut out);
        let out = String::from_utf8(out).unwrap_or_default();
        assert_eq!(out, r#"{"a":"two","we\"ird\nkey\u0001":{"x":[1, 2]},"é":null}"#);
        let again: Fields = serde_json::from_str(&out).unwrap_or_default();
        assert_eq!(again, map.fields.to_fields());
    }
}
