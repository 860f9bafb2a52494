//! Messages in: Anthropic `MessageParam`s as JS objects (one append) or as
//! a JSON string (bulk loads: parsed by serde_json inside wasm, which is
//! cheaper than handing wasm an already-parsed JS object), into the engine's
//! `Message`.

use compaction_core::message::{Content, Extra, Json, Message, Role, Usage, Uuid};
use compaction_core::time::Timestamp;
use std::cell::Cell;

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use wasm_bindgen::JsValue;

use crate::error::{js_error, INVALID_ARGUMENT, INVALID_JSON, INVALID_MESSAGE};

/// A `MessageParam` plus the engine's optional fields. Other fields (an SDK
/// response's `id`, `model`, `stop_reason`…) are ignored.
#[derive(Deserialize)]
struct In {
    role: InRole,
    content: Content,
    #[serde(default)]
    uuid: Option<String>,
    #[serde(default)]
    timestamp: Option<String>,
    #[serde(default)]
    usage: Option<InUsage>,
    /// A `role: "system"` message's `clear_at` (R13.3), kept verbatim.
    #[serde(default)]
    clear_at: Option<Json>,
    /// A `role: "system"` message's `output_config` (R13.3), kept verbatim.
    #[serde(default)]
    output_config: Option<Json>,
    /// A `Session`'s flag for the summary its view starts with (read by
    /// `loadSession` only).
    #[serde(default, rename = "isCompactSummary")]
    is_compact_summary: bool,
}

/// `role`: `system` is a mid-conversation system message (R13.3), kept
/// where the caller put it.
#[derive(Clone, Copy)]
enum InRole {
    User,
    Assistant,
    System,
}

impl<'de> Deserialize<'de> for InRole {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        crate::js::variant(
            deserializer,
            &["user", "assistant", "system"],
            [InRole::User, InRole::Assistant, InRole::System],
        )
    }
}

/// The API's usage; the SDK types the cache counters `number | null`.
#[derive(Deserialize)]
struct InUsage {
    #[serde(default)]
    input_tokens: Option<f64>,
    #[serde(default)]
    output_tokens: Option<f64>,
    #[serde(default)]
    cache_creation_input_tokens: Option<f64>,
    #[serde(default)]
    cache_read_input_tokens: Option<f64>,
    /// Per-iteration usage (server compaction, server tool loops): the last
    /// `message` iteration is the context the reply was sampled from.
    #[serde(default)]
    iterations: Option<Vec<InIteration>>,
}

/// One entry of `usage.iterations`.
#[derive(Deserialize)]
struct InIteration {
    #[serde(rename = "type", default)]
    kind: Option<String>,
    #[serde(default)]
    input_tokens: Option<f64>,
    #[serde(default)]
    output_tokens: Option<f64>,
    #[serde(default)]
    cache_creation_input_tokens: Option<f64>,
    #[serde(default)]
    cache_read_input_tokens: Option<f64>,
}

/// A response's `context_management` (R13.4).
#[derive(Deserialize)]
struct InContextManagement {
    #[serde(default)]
    applied_edits: Vec<compaction_core::api::applied::AppliedEdit>,
}

/// What the server says it did in the response `value` (a `BetaMessage`):
/// its `context_management.applied_edits`, none when absent.
pub fn applied_edits(
    value: &JsValue,
    field: &str,
) -> Result<Vec<compaction_core::api::applied::AppliedEdit>, JsValue> {
    let cm = crate::js::get(
        value,
        "context_management",
        &format!("{field}.context_management"),
    )?;
    if cm.is_undefined() || cm.is_null() {
        return Ok(Vec::new());
    }
    let cm: InContextManagement = crate::engine::from_js(&cm).map_err(|e| {
        js_error(
            INVALID_MESSAGE,
            &format!("{field}.context_management"),
            &format!("{field}.context_management: {e}"),
        )
    })?;
    Ok(cm.applied_edits)
}

fn convert(raw: In, field: &str, uuid: impl FnOnce() -> Uuid) -> Result<Message, JsValue> {
    let timestamp = match raw.timestamp {
        None => None,
        Some(text) => Some(Timestamp::parse(&text).ok_or_else(|| {
            js_error(
                INVALID_MESSAGE,
                &format!("{field}.timestamp"),
                &format!(
                    "{field}.timestamp: `{}` is not an RFC 3339 timestamp",
                    shorten(&text)
                ),
            )
        })?),
    };
    let uuid = match raw.uuid {
        Some(u) if u.is_empty() => {
            return Err(js_error(
                INVALID_MESSAGE,
                &format!("{field}.uuid"),
                &format!("{field}.uuid must not be empty"),
            ))
        }
        Some(u) => Uuid(u),
        None => uuid(),
    };
    let role = match raw.role {
        InRole::User => Role::User,
        InRole::Assistant => Role::Assistant,
        InRole::System => Role::System,
    };
    let mut extra = Extra::new();
    if role == Role::System {
        for (key, value) in [("clear_at", raw.clear_at), ("output_config", raw.output_config)] {
            if let Some(value) = value {
                extra.insert(key.to_owned(), value);
            }
        }
    }
    Ok(Message {
        uuid,
        role,
        content: raw.content,
        timestamp,
        usage: match raw.usage {
            None => None,
            Some(u) => Some(usage(&u, field)?),
        },
        extra,
    })
}

/// A usage's counters (the last `message` iteration's when there are
/// iterations), each a whole number from 0 to 2^53 − 1: a larger one is
/// refused, never wrapped.
fn usage(u: &InUsage, field: &str) -> Result<Usage, JsValue> {
    let last = u
        .iterations
        .as_deref()
        .and_then(|its| its.iter().rev().find(|i| i.kind.as_deref() == Some("message")));
    let (at, counters) = match last {
        Some(i) => (
            ".iterations[…]",
            [
                i.input_tokens,
                i.output_tokens,
                i.cache_creation_input_tokens,
                i.cache_read_input_tokens,
            ],
        ),
        None => (
            "",
            [
                u.input_tokens,
                u.output_tokens,
                u.cache_creation_input_tokens,
                u.cache_read_input_tokens,
            ],
        ),
    };
    const NAMES: [&str; 4] = [
        "input_tokens",
        "output_tokens",
        "cache_creation_input_tokens",
        "cache_read_input_tokens",
    ];
    let mut out = [0u64; 4];
    for ((slot, value), name) in out.iter_mut().zip(counters).zip(NAMES) {
        let v = value.unwrap_or(0.0);
        if !(v.fract() == 0.0 && (0.0..=9_007_199_254_740_991.0).contains(&v)) {
            let at = format!("{field}.usage{at}.{name}");
            return Err(js_error(
                INVALID_MESSAGE,
                &at,
                &format!(
                    "{at}: {} is not a token count (a whole number from 0 to 2^53 - 1)",
                    compaction_core::error::Num(v)
                ),
            ));
        }
        *slot = v as u64;
    }
    let [input_tokens, output_tokens, cache_creation_input_tokens, cache_read_input_tokens] = out;
    Ok(Usage {
        input_tokens,
        output_tokens,
        cache_creation_input_tokens,
        cache_read_input_tokens,
    })
}

fn shorten(s: &str) -> String {
    let mut out: String = s.chars().take(40).collect();
    if out.len() < s.len() {
        out.push('…');
    }
    out
}

/// A `Session` (made by the session module's `readSession` or
/// `SessionImporter`), as `loadSession` reads it.
pub struct SessionIn {
    /// The file's report, passed back unread.
    pub report: Json,
    /// The resumed view, each with its `isCompactSummary` flag.
    pub messages: Vec<(Message, bool)>,
    /// The boundary the view starts after.
    pub boundary: Option<String>,
    /// The chain's last record.
    pub leaf: Option<String>,
    /// The file's session id.
    pub session_id: Option<String>,
}

/// A `Session` from a JS object; its messages must carry their uuids. Read
/// field by field, its messages through the same one-pass parser as
/// `loadJson` (no second copy of it in the module).
pub fn session_from_js(value: &JsValue) -> Result<SessionIn, JsValue> {
    let not_a_session = |why: &str| {
        js_error(
            INVALID_ARGUMENT,
            "session",
            &format!("session must be a Session from readSession() or SessionImporter.finish() (`context-compaction/session`): {why}"),
        )
    };
    if !value.is_object() || js_sys::Array::is_array(value) {
        return Err(not_a_session("not an object"));
    }
    let get = |key: &str| js_sys::Reflect::get(value, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED);
    let json = |key: &str| -> Result<String, JsValue> {
        let v = get(key);
        if v.is_undefined() {
            return Err(not_a_session(&format!("no `{key}`")));
        }
        js_sys::JSON::stringify(&v)
            .ok()
            .and_then(|s| s.as_string())
            .ok_or_else(|| not_a_session(&format!("`{key}` is not JSON")))
    };
    let report = Json::parse(&json("report")?).map_err(|_| not_a_session("`report` is not JSON"))?;
    let list = json("messages")?;
    if !list.starts_with('[') {
        return Err(not_a_session("`messages` must be a list"));
    }
    let (_, items) = parse_messages(&list, "session.")?;
    let mut messages = Vec::with_capacity(items.len());
    for (i, m) in items.into_iter().enumerate() {
        let field = format!("session.messages[{i}]");
        let flag = m.is_compact_summary;
        let mut m = m;
        // A counter the engine cannot hold (a file's 2^64 − 1) drops that
        // message's usage (the count estimates it), not the whole session.
        if m.usage.as_ref().is_some_and(|u| usage(u, &field).is_err()) {
            m.usage = None;
        }
        let message = convert(m, &field, || Uuid(String::new()))?;
        if message.uuid.0.is_empty() {
            return Err(js_error(
                INVALID_MESSAGE,
                &format!("{field}.uuid"),
                &format!("{field}.uuid is missing"),
            ));
        }
        messages.push((message, flag));
    }
    let [boundary, leaf, session_id] = crate::js::object_strings(value, ["boundary", "leaf", "sessionId"])
        .map_err(|e| not_a_session(&format!("session{e}")))?;
    Ok(SessionIn {
        report,
        messages,
        boundary,
        leaf,
        session_id,
    })
}

/// One message read from a JS object, not yet given its uuid: everything
/// that runs the caller's code (getters, `toJSON`, a Proxy's traps) is done
/// here, before the engine's state is borrowed.
pub struct Read {
    raw: In,
    applied: Vec<compaction_core::api::applied::AppliedEdit>,
}

/// Reads one message object (see [`Read`]).
pub fn read_js(value: &JsValue, field: &str) -> Result<Read, JsValue> {
    if !value.is_object() {
        return Err(js_error(
            INVALID_MESSAGE,
            field,
            &format!(
                "{field} must be an object like {{ role: \"user\", content: \"…\" }}, got {}",
                crate::js::kind(value)
            ),
        ));
    }
    let raw: In = crate::js::from_js_at(value).map_err(|(e, path)| {
        let field = format!("{field}{path}");
        js_error(INVALID_MESSAGE, &field, &format!("{field}: {e}"))
    })?;
    let applied = applied_edits(value, field)?;
    Ok(Read { raw, applied })
}

impl Read {
    /// The message (its uuid from `uuid` when it has none) and the
    /// response's applied edits.
    pub fn into_message(
        self,
        field: &str,
        uuid: impl FnOnce() -> Uuid,
    ) -> Result<(Message, Vec<compaction_core::api::applied::AppliedEdit>), JsValue> {
        let message = convert(self.raw, field, uuid)?;
        blocks_fit_role(&message, field)?;
        Ok((message, self.applied))
    }
}

/// Refuses a block its role cannot hold in the API: a `tool_use` in a user
/// message, a `tool_result` in an assistant one (the API would refuse the
/// request; the engine would pair them wrongly).
fn blocks_fit_role(message: &Message, field: &str) -> Result<(), JsValue> {
    let wrong = match message.role {
        Role::User => "tool_use",
        Role::Assistant => "tool_result",
        _ => return Ok(()),
    };
    let Some(at) = message.content.blocks().iter().position(|b| b.kind() == wrong) else {
        return Ok(());
    };
    let place = format!("{field}.content[{at}]");
    Err(js_error(
        INVALID_MESSAGE,
        &place,
        &format!(
            "{place}: a `{wrong}` block cannot be in a {} message",
            message.role.as_str()
        ),
    ))
}

/// One message from a JS object.
pub fn from_js(value: &JsValue, field: &str, uuid: impl FnOnce() -> Uuid) -> Result<Message, JsValue> {
    read_js(value, field)?.into_message(field, uuid).map(|(m, _)| m)
}

/// Messages from a JSON string: an array of `MessageParam`s, or an object
/// with a `messages` array (an API request body; its `system` is returned
/// too, as text).
pub fn from_json(
    json: &str,
    mut uuid: impl FnMut() -> Uuid,
) -> Result<(Option<String>, Vec<Message>), JsValue> {
    let (system, items) = parse_messages(json, "")?;
    let mut out = Vec::with_capacity(items.len());
    for (i, raw) in items.into_iter().enumerate() {
        let field = format!("messages[{i}]");
        let message = convert(raw, &field, &mut uuid)?;
        blocks_fit_role(&message, &field)?;
        out.push(message);
    }
    Ok((system, out))
}

/// [`parse_body`] with its errors as JS errors, fields named under `prefix`.
fn parse_messages(json: &str, prefix: &str) -> Result<(Option<String>, Vec<In>), JsValue> {
    // One pass straight into the messages; a message of the wrong shape is
    // named by its index (the list visitor counts); text that is not JSON
    // at all is an INVALID_JSON error on `messages`.
    let at = Cell::new(At::Body);
    // A lone surrogate escape (a text cut in the middle of an emoji) reads
    // as U+FFFD, as the session importer reads it (R11.4).
    let fixed = compaction_core::transcript::replace_lone_surrogates(json.as_bytes()).0;
    let json = std::str::from_utf8(&fixed).unwrap_or(json);
    parse_body(json, &at).map_err(|error| {
        let e = crate::js::clean(&error);
        // A message of the wrong shape in valid JSON, or text that is not
        // JSON at all (even when the parse stopped at a wrong shape before
        // the text broke): a second, cheap pass over the text tells.
        let shape = serde_json::from_slice::<IgnoredAny>(json.as_bytes()).is_ok();
        match at.get() {
            At::Message(i) if shape => {
                // The path inside the message: from the whole text's path
                // (`[3].content[1]`, `.messages[3].content[1]`), past the index.
                let path = crate::js::error_path(json.as_bytes(), &error);
                let marker = format!("[{i}]");
                let inside = path.find(&marker).map_or("", |p| &path[p + marker.len()..]);
                let field = format!("{prefix}messages[{i}]{inside}");
                js_error(INVALID_MESSAGE, &field, &format!("{field}: {e}"))
            }
            At::System if shape => js_error(INVALID_JSON, "system", &format!("system: {e}")),
            _ => js_error(
                INVALID_JSON,
                &format!("{prefix}messages"),
                &format!("{prefix}messages: not a JSON array of messages or an object with `messages`: {e}"),
            ),
        }
    })
}

/// The outer shape, a list or a request body with `messages` (other fields,
/// such as `model` or `max_tokens`, are skipped without being built), told
/// apart by its first character: one pass, never buffered.
fn parse_body(json: &str, at: &Cell<At>) -> serde_json::Result<(Option<String>, Vec<In>)> {
    let mut de = serde_json::Deserializer::from_slice(json.as_bytes());
    let out = if json.trim_start().starts_with('{') {
        de.deserialize_map(BodyVisitor(at))?
    } else {
        (None, de.deserialize_seq(ListVisitor(at))?)
    };
    de.end()?;
    Ok(out)
}

/// Where the parse is, to name the field at fault when it fails.
#[derive(Clone, Copy)]
enum At {
    Body,
    System,
    Message(usize),
}

/// A list of messages that remembers the index of the one being read.
struct ListVisitor<'a>(&'a Cell<At>);

impl<'de> Visitor<'de> for ListVisitor<'_> {
    type Value = Vec<In>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a list of messages")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<In>, A::Error> {
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        loop {
            self.0.set(At::Message(out.len()));
            match seq.next_element::<In>()? {
                Some(item) => out.push(item),
                None => break,
            }
        }
        self.0.set(At::Body);
        Ok(out)
    }
}

impl<'de> DeserializeSeed<'de> for ListVisitor<'_> {
    type Value = Vec<In>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Vec<In>, D::Error> {
        deserializer.deserialize_seq(self)
    }
}

/// A request body: `messages` and, optionally, `system`.
struct BodyVisitor<'a>(&'a Cell<At>);

impl<'de> Visitor<'de> for BodyVisitor<'_> {
    type Value = (Option<String>, Vec<In>);

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a request body with `messages`")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let (mut system, mut messages) = (None, None);
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            match &*key {
                "system" => {
                    self.0.set(At::System);
                    system = map.next_value::<Option<System>>()?.map(|s| s.0);
                    self.0.set(At::Body);
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
#[derive(Deserialize)]
struct SystemBlock {
    #[serde(default)]
    text: Option<String>,
}
