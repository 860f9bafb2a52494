//! A request body in: the API's `{system?, messages, …}` or a bare list of
//! messages, as JSON text, read in one pass into [`MessageParam`]s (other
//! fields, such as `model` or `max_tokens`, are skipped without being
//! built); and one [`MessageParam`] into the engine's [`Message`]. The CLI's
//! `--messages` file and the package's `loadJson` both read through here, so
//! they accept, refuse and name the same things.

use std::cell::Cell;

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;

use crate::message::{ApiUsage, Content, Extra, Json, Message, Role, Text, Uuid};
use crate::time::Timestamp;

/// A `MessageParam` plus the engine's optional fields. Other fields (an SDK
/// response's `id`, `model`, `stop_reason`…) are ignored.
pub struct MessageParam {
    role: Role,
    content: Content,
    uuid: Option<String>,
    timestamp: Option<String>,
    /// Boxed: most messages have none, and a bulk load holds every
    /// `MessageParam` (in a list grown by doubling) beside its text.
    usage: Option<Box<ApiUsage>>,
    /// A `role: "system"` message's `clear_at` and `output_config` (R13.3),
    /// kept verbatim. Boxed like `usage`: a history's other messages have
    /// neither (12 bytes less a message, in wasm, while a bulk load holds
    /// every `MessageParam` beside its text).
    system_fields: Option<Box<[Option<Json>; 2]>>,
    /// A resumed session's flag for the summary its view starts with
    /// (`isCompactSummary`).
    is_compact_summary: bool,
}

/// Read by hand rather than derived: an object only (serde's derive also
/// reads a struct from an array, and its field names from bytes and
/// integers, code no history needs), with the derive's messages: `missing
/// field `role``, `duplicate field `uuid`` and the fields' own.
impl<'de> Deserialize<'de> for MessageParam {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(ParamVisitor)
    }
}

struct ParamVisitor;

/// `value` into `slot`, unless the field came before.
pub(crate) fn once<'de, A: MapAccess<'de>, T: Deserialize<'de>>(
    map: &mut A,
    slot: &mut Option<T>,
    name: &'static str,
) -> Result<(), A::Error> {
    if slot.is_some() {
        return Err(serde::de::Error::duplicate_field(name));
    }
    *slot = Some(map.next_value()?);
    Ok(())
}

impl<'de> Visitor<'de> for ParamVisitor {
    type Value = MessageParam;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("struct MessageParam")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<MessageParam, A::Error> {
        let (mut role, mut content, mut uuid, mut timestamp) = (None, None, None, None);
        let (mut usage, mut clear_at, mut output_config, mut summary) = (None, None, None, None);
        while let Some(Text(key)) = map.next_key::<Text<'de>>()? {
            match &*key {
                "role" => once(&mut map, &mut role, "role")?,
                "content" => once(&mut map, &mut content, "content")?,
                "uuid" => once(&mut map, &mut uuid, "uuid")?,
                "timestamp" => once(&mut map, &mut timestamp, "timestamp")?,
                "usage" => once(&mut map, &mut usage, "usage")?,
                "clear_at" => once(&mut map, &mut clear_at, "clear_at")?,
                "output_config" => once(&mut map, &mut output_config, "output_config")?,
                "isCompactSummary" => once(&mut map, &mut summary, "isCompactSummary")?,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(MessageParam {
            role: role.ok_or_else(|| serde::de::Error::missing_field("role"))?,
            content: content.ok_or_else(|| serde::de::Error::missing_field("content"))?,
            uuid: uuid.flatten(),
            timestamp: timestamp.flatten(),
            usage: usage.flatten(),
            system_fields: match (clear_at.flatten(), output_config.flatten()) {
                (None, None) => None,
                pair => Some(Box::new(pair.into())),
            },
            is_compact_summary: summary.unwrap_or(false),
        })
    }
}

/// Why a [`MessageParam`] cannot be a [`Message`]: `at` is the field below
/// the message (`.timestamp`, `.usage.input_tokens`, `.content[2]`), `text`
/// the sentence that follows the message's own name.
#[derive(Debug, Clone, PartialEq)]
pub struct ParamError {
    /// The field at fault, below the message.
    pub at: String,
    /// What is wrong, starting with `at` (`.uuid must not be empty`).
    pub text: String,
}

impl MessageParam {
    /// Whether it is the summary a resumed view starts with.
    pub fn is_compact_summary(&self) -> bool {
        self.is_compact_summary
    }

    /// Forgets a usage whose counters the engine cannot hold (a session
    /// file's 2^64 − 1): the count then estimates the message.
    pub fn drop_bad_usage(&mut self) {
        if self.usage.as_ref().is_some_and(|u| u.usage().is_err()) {
            self.usage = None;
        }
    }

    /// The engine's message, its uuid from `uuid` when it has none. Refuses
    /// a timestamp that is not RFC 3339, an empty uuid, a usage counter that
    /// is not a token count, and a block its role cannot hold in the API (a
    /// `tool_use` in a user message, a `tool_result` in an assistant one:
    /// the API would refuse the request and the engine would pair them
    /// wrongly).
    pub fn into_message(self, uuid: impl FnOnce() -> Uuid) -> Result<Message, ParamError> {
        // One copy of the checks, whatever the caller's closure (the
        // package calls this from three places).
        let mut uuid = Some(uuid);
        self.checked(&mut || uuid.take().map_or_else(|| Uuid(String::new()), |make| make()))
    }

    fn checked(self, uuid: &mut dyn FnMut() -> Uuid) -> Result<Message, ParamError> {
        let timestamp = match self.timestamp {
            None => None,
            Some(text) => Some(Timestamp::parse(&text).ok_or_else(|| ParamError {
                at: ".timestamp".into(),
                text: format!(".timestamp: `{}` is not an RFC 3339 timestamp", shorten(&text)),
            })?),
        };
        let uuid = match self.uuid {
            Some(u) if u.is_empty() => {
                return Err(ParamError {
                    at: ".uuid".into(),
                    text: ".uuid must not be empty".into(),
                })
            }
            Some(u) => Uuid(u),
            None => uuid(),
        };
        let usage = match self.usage {
            None => None,
            Some(u) => Some(u.usage().map_err(|e| ParamError {
                at: format!(".usage{}", e.path),
                text: format!(".{e}"),
            })?),
        };
        let mut extra = Extra::new();
        if self.role == Role::System {
            let [clear_at, output_config] = self.system_fields.map_or([None, None], |f| *f);
            for (key, value) in [("clear_at", clear_at), ("output_config", output_config)] {
                if let Some(value) = value {
                    extra.insert(key.to_owned(), value);
                }
            }
        }
        let message = Message {
            uuid,
            role: self.role,
            content: self.content,
            timestamp,
            usage: usage.map(Box::new),
            extra,
        };
        let wrong = match message.role {
            Role::User => "tool_use",
            Role::Assistant => "tool_result",
            Role::System => return Ok(message),
        };
        match message.content.blocks().iter().position(|b| b.kind() == wrong) {
            None => Ok(message),
            Some(at) => Err(ParamError {
                at: format!(".content[{at}]"),
                text: format!(
                    ".content[{at}]: a `{wrong}` block cannot be in a {} message",
                    message.role.as_str()
                ),
            }),
        }
    }
}

fn shorten(s: &str) -> String {
    let mut out: String = s.chars().take(40).collect();
    if out.len() < s.len() {
        out.push('…');
    }
    out
}

/// A request body read: its `system` as text (text blocks joined by
/// newlines), and its messages.
pub struct Body {
    /// The top-level `system`, if the body had one.
    pub system: Option<String>,
    /// The messages, in order.
    pub messages: Vec<MessageParam>,
}

/// Where a body's read stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyAt {
    /// The outer shape (not a list, no `messages`, not JSON).
    Body,
    /// The `system` field.
    System,
    /// The message at this index.
    Message(usize),
}

/// A body that could not be read: where, serde_json's error, and whether the
/// text is JSON at all (a second, cheap pass tells, even when the read
/// stopped at a wrong shape before the text broke).
#[derive(Debug)]
pub struct BodyError {
    /// Where the read stopped.
    pub at: BodyAt,
    /// Whether the text is valid JSON (then the fault is a shape).
    pub is_json: bool,
    /// serde_json's error.
    pub error: serde_json::Error,
}

/// Reads a JSON array of messages, or an object with a `messages` array (an
/// API request body), told apart by its first character: one pass, never
/// buffered. A lone surrogate escape (a text cut in the middle of an emoji)
/// reads as U+FFFD, as the session importer reads it (R11.4).
pub fn parse_body(json: &[u8]) -> Result<Body, BodyError> {
    match std::str::from_utf8(json) {
        Ok(text) => parse_body_text(text),
        Err(_) => {
            let fixed = crate::message::surrogates::replace_lone_surrogates(json).0;
            read_body(&fixed, || serde_json::Deserializer::from_slice(&fixed))
        }
    }
}

/// [`parse_body`] of text (a JS string, a file read as UTF-8): the same
/// result, without serde_json checking each string's UTF-8 again.
pub fn parse_body_text(json: &str) -> Result<Body, BodyError> {
    let fixed = match crate::message::surrogates::replace_lone_surrogates(json.as_bytes()).0 {
        std::borrow::Cow::Borrowed(_) => std::borrow::Cow::Borrowed(json),
        // Only ASCII escapes were rewritten: still UTF-8.
        std::borrow::Cow::Owned(bytes) => std::borrow::Cow::Owned(
            String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
        ),
    };
    read_body(fixed.as_bytes(), || serde_json::Deserializer::from_str(&fixed))
}

/// Reads `fixed` with the deserializers `new` makes over it.
fn read_body<'a, R: serde_json::de::Read<'a>>(
    fixed: &[u8],
    new: impl Fn() -> serde_json::Deserializer<R>,
) -> Result<Body, BodyError> {
    let at = Cell::new(BodyAt::Body);
    let read = || -> serde_json::Result<Body> {
        let mut de = new();
        let starts_with_brace = fixed.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{');
        let (system, messages) = if starts_with_brace {
            de.deserialize_map(BodyVisitor(&at))?
        } else {
            (None, de.deserialize_seq(ListVisitor(&at))?)
        };
        de.end()?;
        Ok(Body { system, messages })
    };
    read().map_err(|error| BodyError {
        at: at.get(),
        is_json: {
            let mut de = new();
            IgnoredAny::deserialize(&mut de).and_then(|_| de.end()).is_ok()
        },
        error,
    })
}

/// A list of messages that remembers the index of the one being read.
struct ListVisitor<'a>(&'a Cell<BodyAt>);

impl<'de> Visitor<'de> for ListVisitor<'_> {
    type Value = Vec<MessageParam>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a list of messages")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut out: Vec<MessageParam> = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        loop {
            self.0.set(BodyAt::Message(out.len()));
            match seq.next_element::<MessageParam>()? {
                Some(item) => {
                    // Grown by a quarter, not doubled: the list is at its
                    // largest beside the whole text and every string read
                    // from it (a bulk load's peak), where doubling left up
                    // to half its slots empty. Still amortised O(1).
                    if out.len() == out.capacity() {
                        out.reserve_exact(out.len() / 4 + 4);
                    }
                    out.push(item);
                }
                None => break,
            }
        }
        self.0.set(BodyAt::Body);
        Ok(out)
    }
}

impl<'de> DeserializeSeed<'de> for ListVisitor<'_> {
    type Value = Vec<MessageParam>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_seq(self)
    }
}

/// A request body: `messages` and, optionally, `system`.
struct BodyVisitor<'a>(&'a Cell<BodyAt>);

impl<'de> Visitor<'de> for BodyVisitor<'_> {
    type Value = (Option<String>, Vec<MessageParam>);

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a request body with `messages`")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let (mut system, mut messages) = (None, None);
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            match &*key {
                "system" => {
                    self.0.set(BodyAt::System);
                    system = map.next_value::<Option<System>>()?.map(|s| s.0);
                    self.0.set(BodyAt::Body);
                }
                "messages" => messages = Some(map.next_value_seed(ListVisitor(self.0))?),
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        let messages = messages.ok_or_else(|| serde::de::Error::missing_field("messages"))?;
        Ok((system, messages))
    }
}

/// The API's `system` parameter: a string, or text blocks (their texts
/// joined by newlines; other block fields are ignored).
struct System(String);

impl<'de> Deserialize<'de> for System {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = System;

            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a string or a list of text blocks")
            }

            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<System, E> {
                Ok(System(v.to_owned()))
            }

            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<System, A::Error> {
                let mut texts = Vec::new();
                while let Some(block) = seq.next_element::<SystemBlock>()? {
                    texts.extend(block.text);
                }
                Ok(System(texts.join("\n")))
            }
        }
        deserializer.deserialize_any(V)
    }
}

/// One block of `system`; only its text is kept.
struct SystemBlock {
    text: Option<String>,
}

/// Read as `derive(Deserialize)` with `#[serde(default)]` on `text` read
/// it, with the same errors: an object whose `text` is given at most once
/// (other keys ignored), or an array of at most that one field; through
/// the readers [`ParamVisitor`] already is (no struct visitor of its own in
/// the wasm module).
impl<'de> Deserialize<'de> for SystemBlock {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = SystemBlock;

            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("struct SystemBlock")
            }

            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<SystemBlock, A::Error> {
                Ok(SystemBlock {
                    text: seq.next_element()?.flatten(),
                })
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<SystemBlock, A::Error> {
                let mut text = None;
                while let Some(Text(key)) = map.next_key::<Text<'de>>()? {
                    if key == "text" {
                        once(&mut map, &mut text, "text")?;
                    } else {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
                Ok(SystemBlock { text: text.flatten() })
            }
        }
        deserializer.deserialize_struct("SystemBlock", &["text"], V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The derived impl `SystemBlock` had, to compare against (of the same
    /// name: its messages name the type).
    mod derived {
        #[derive(serde::Deserialize)]
        pub struct SystemBlock {
            #[serde(default)]
            pub text: Option<String>,
        }
    }

    #[test]
    fn system_blocks_read_and_refuse_what_the_derived_impl_did() {
        let cases = [
            r#"{"type":"text","text":"a"}"#,
            r#"{"text":null,"cache_control":{"type":"ephemeral"}}"#,
            r#"{}"#,
            r#"{"text":"a","text":"b"}"#,
            r#"{"text":null,"text":"b"}"#,
            r#"{"text":7}"#,
            r#"{"te\u0078t":"\u0061"}"#,
            r#"["a"]"#,
            r#"[null]"#,
            r#"[]"#,
            r#"["a","b"]"#,
            r#"[7]"#,
            r#""a""#,
            r#"7"#,
            r#"null"#,
            r#"{"text":"a",}"#,
            r#"{"text":"a""#,
        ];
        for text in cases {
            let ours = serde_json::from_str::<SystemBlock>(text)
                .map(|b| b.text)
                .map_err(|e| e.to_string());
            let derived = serde_json::from_str::<derived::SystemBlock>(text)
                .map(|b| b.text)
                .map_err(|e| e.to_string());
            assert_eq!(ours, derived, "{text}");
            // Through serde_json's `Value` too.
            let Ok(value) = serde_json::from_str::<serde_json::Value>(text) else {
                continue;
            };
            let ours = serde_json::from_value::<SystemBlock>(value.clone())
                .map(|b| b.text)
                .map_err(|e| e.to_string());
            let derived = serde_json::from_value::<derived::SystemBlock>(value)
                .map(|b| b.text)
                .map_err(|e| e.to_string());
            assert_eq!(ours, derived, "{text} as a Value");
        }
    }

    fn uuid() -> Uuid {
        Uuid::from("m1")
    }

    #[test]
    fn a_body_or_a_list_reads_the_same_messages_and_skips_other_fields() {
        let body = parse_body(
            br#"{"model":"x","max_tokens":5,"system":[{"type":"text","text":"a"},{"type":"text","text":"b"}],
                "messages":[{"role":"user","content":"hi","id":"ignored"}]}"#,
        )
        .unwrap_or_else(|e| panic!("{:?}", e.error));
        assert_eq!(body.system.as_deref(), Some("a\nb"));
        let list =
            parse_body(br#" [{"role":"user","content":"hi"}]"#).unwrap_or_else(|e| panic!("{:?}", e.error));
        assert_eq!(list.system, None);
        let [a, b] = [body, list].map(|b| {
            b.messages
                .into_iter()
                .map(|m| m.into_message(uuid).unwrap())
                .collect::<Vec<_>>()
        });
        assert_eq!(a, b);
    }

    #[test]
    fn a_failed_read_says_where_and_whether_the_text_is_json() {
        let at = |text: &str| {
            parse_body(text.as_bytes())
                .map(|_| ())
                .map_err(|e| (e.at, e.is_json))
                .unwrap_err()
        };
        assert_eq!(
            at(r#"[{"role":"user","content":"a"},{"role":"robot","content":"b"}]"#),
            (BodyAt::Message(1), true)
        );
        assert_eq!(at(r#"{"system":5,"messages":[]}"#), (BodyAt::System, true));
        assert_eq!(at(r#"{"model":"x"}"#), (BodyAt::Body, true));
        assert_eq!(
            at(r#"[{"role":"user","content":"a"},"#),
            (BodyAt::Message(1), false)
        );
    }

    #[test]
    fn a_param_is_read_by_hand_with_the_derives_messages() {
        let error = |text: &str| {
            serde_json::from_str::<MessageParam>(text)
                .err()
                .map(|e| e.to_string())
        };
        let said = |text: &str, start: &str| {
            let e = error(text).unwrap_or_default();
            assert!(e.starts_with(start), "{text}: {e}");
        };
        said(r#"{"content":"a"}"#, "missing field `role`");
        said(r#"{"role":"user"}"#, "missing field `content`");
        said(
            r#"{"role":"user","content":"a","uuid":"x","uuid":"y"}"#,
            "duplicate field `uuid`",
        );
        said(
            r#"{"role":"user","role":"user","content":"a"}"#,
            "duplicate field `role`",
        );
        said(
            r#"{"role":"robot","content":"a"}"#,
            "unknown variant `robot`, expected one of `user`, `assistant`, `system`",
        );
        said(
            r#"{"role":5,"content":"a"}"#,
            "invalid type: integer `5`, expected a string",
        );
        said(
            r#"{"role":"user","content":"a","uuid":7}"#,
            "invalid type: integer `7`, expected a string",
        );
        said(
            r#"["user","a"]"#,
            "invalid type: sequence, expected struct MessageParam",
        );
        let param: MessageParam = serde_json::from_str(
            r#"{"id":"x","role":"system","content":"a","uuid":null,"clear_at":{"n":1},"isCompactSummary":true}"#,
        )
        .unwrap();
        assert!(param.is_compact_summary());
        assert_eq!(param.uuid, None);
        let message = param.into_message(uuid).unwrap();
        assert_eq!((message.role, message.uuid), (Role::System, uuid()));
        assert_eq!(message.extra.get("clear_at").map(Json::text), Some(r#"{"n":1}"#));
        let plain: MessageParam = serde_json::from_str(r#"{"role":"assistant","content":[]}"#).unwrap();
        assert!(!plain.is_compact_summary());
        assert_eq!(plain.role, Role::Assistant);
    }

    #[test]
    fn a_param_is_refused_naming_the_field_below_the_message() {
        let param = |text: &str| -> MessageParam { serde_json::from_str(text).unwrap() };
        let at = |text: &str| param(text).into_message(uuid).unwrap_err().at;
        assert_eq!(at(r#"{"role":"user","content":"a","uuid":""}"#), ".uuid");
        assert_eq!(
            at(r#"{"role":"user","content":"a","timestamp":"yesterday"}"#),
            ".timestamp"
        );
        assert_eq!(
            at(r#"{"role":"assistant","content":"a","usage":{"input_tokens":-1}}"#),
            ".usage.input_tokens"
        );
        assert_eq!(
            at(
                r#"{"role":"user","content":[{"type":"text","text":"a"},{"type":"tool_use","id":"t","name":"R","input":{}}]}"#
            ),
            ".content[1]"
        );
        // A system message keeps its `clear_at` verbatim; a user one drops it.
        let kept = param(r#"{"role":"system","content":"a","clear_at":{"n": 2.50}}"#)
            .into_message(uuid)
            .unwrap();
        assert_eq!(
            kept.extra.get("clear_at").map(|j| j.text().to_owned()).as_deref(),
            Some(r#"{"n": 2.50}"#)
        );
        let dropped = param(r#"{"role":"user","content":"a","clear_at":{}}"#)
            .into_message(uuid)
            .unwrap();
        assert_eq!(dropped.extra.len(), 0);
        let mut bad =
            param(r#"{"role":"assistant","content":"a","usage":{"input_tokens":18446744073709551615}}"#);
        bad.drop_bad_usage();
        assert_eq!(bad.into_message(uuid).unwrap().usage, None);
    }
}
