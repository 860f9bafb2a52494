//! Messages in: Anthropic `MessageParam`s as JS objects (one append) or as
//! a JSON string (bulk loads: parsed by serde_json inside wasm, which is
//! cheaper than handing wasm an already-parsed JS object), into the engine's
//! `Message`.

use compaction_core::message::{Content, Message, Role, Usage, Uuid};
use compaction_core::time::Timestamp;
use serde::Deserialize;
use wasm_bindgen::JsValue;

use crate::error::{js_error, INVALID_JSON, INVALID_MESSAGE};

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
}

/// `role`: the SDK's `MessageParam` also has `system` messages, which the
/// engine's history does not hold (its system prompt is `setSystem`).
#[derive(Deserialize)]
#[serde(rename_all = "lowercase")]
enum InRole {
    User,
    Assistant,
    System,
}

/// The API's usage; the SDK types the cache counters `number | null`.
#[derive(Deserialize)]
struct InUsage {
    #[serde(default)]
    input_tokens: Option<u64>,
    #[serde(default)]
    output_tokens: Option<u64>,
    #[serde(default)]
    cache_creation_input_tokens: Option<u64>,
    #[serde(default)]
    cache_read_input_tokens: Option<u64>,
}

/// Makes uuids for messages that come without one: `m1`, `m2`, … skipping
/// any the caller used.
#[derive(Debug, Default, Clone)]
pub struct UuidMaker {
    next: u64,
}

impl UuidMaker {
    /// The next free uuid (`taken` says whether the store holds one already).
    pub fn make(&mut self, taken: impl Fn(&Uuid) -> bool) -> Uuid {
        loop {
            self.next += 1;
            let uuid = Uuid(format!("m{}", self.next));
            if !taken(&uuid) {
                return uuid;
            }
        }
    }
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
        InRole::System => {
            return Err(js_error(
                INVALID_MESSAGE,
                &format!("{field}.role"),
                &format!("{field}.role: \"system\" messages are not part of the engine's history; give their text to setSystem()"),
            ))
        }
    };
    Ok(Message {
        uuid,
        role,
        content: raw.content,
        timestamp,
        usage: raw.usage.map(|u| Usage {
            input_tokens: u.input_tokens.unwrap_or(0),
            output_tokens: u.output_tokens.unwrap_or(0),
            cache_creation_input_tokens: u.cache_creation_input_tokens.unwrap_or(0),
            cache_read_input_tokens: u.cache_read_input_tokens.unwrap_or(0),
        }),
    })
}

fn shorten(s: &str) -> String {
    let mut out: String = s.chars().take(40).collect();
    if out.len() < s.len() {
        out.push('…');
    }
    out
}

/// One message from a JS object.
pub fn from_js(value: &JsValue, field: &str, uuid: impl FnOnce() -> Uuid) -> Result<Message, JsValue> {
    if !value.is_object() {
        return Err(js_error(
            INVALID_MESSAGE,
            field,
            &format!("{field} must be an object like {{ role: \"user\", content: \"…\" }}"),
        ));
    }
    let raw: In = crate::engine::from_js(value)
        .map_err(|e| js_error(INVALID_MESSAGE, field, &format!("{field}: {e}")))?;
    convert(raw, field, uuid)
}

/// Messages from a JSON string: an array of `MessageParam`s, or an object
/// with a `messages` array (an API request body; its `system` is returned
/// too, as text).
pub fn from_json(
    json: &str,
    mut uuid: impl FnMut() -> Uuid,
) -> Result<(Option<String>, Vec<Message>), JsValue> {
    // Fast path: one pass straight into the messages. Only when it fails is
    // the input parsed again, message by message, to name the bad one.
    let (system, items) = match parse_body::<In>(json) {
        Ok(body) => body,
        Err(_) => return Err(locate_error(json)),
    };
    let mut out = Vec::with_capacity(items.len());
    for (i, raw) in items.into_iter().enumerate() {
        out.push(convert(raw, &format!("messages[{i}]"), &mut uuid)?);
    }
    Ok((system, out))
}

/// A request body: `messages` and, optionally, `system` (other fields, such
/// as `model` or `max_tokens`, are skipped without being built).
#[derive(Deserialize)]
struct Request<T> {
    #[serde(default)]
    system: Option<serde_json::Value>,
    messages: Vec<T>,
}

/// The outer shape, a list or a request body with `messages`, told apart
/// by its first character: one pass, never buffered (an untagged enum
/// would read the whole input into an intermediate tree first).
fn parse_body<T: serde::de::DeserializeOwned>(json: &str) -> serde_json::Result<(Option<String>, Vec<T>)> {
    if json.trim_start().starts_with('{') {
        let body: Request<T> = serde_json::from_str(json)?;
        Ok((body.system.map(system_text), body.messages))
    } else {
        Ok((None, serde_json::from_str(json)?))
    }
}

/// The error for JSON the fast path refused, naming the message at fault.
fn locate_error(json: &str) -> JsValue {
    let items = match parse_body::<serde_json::Value>(json) {
        Ok(body) => body.1,
        Err(e) => {
            return js_error(
                INVALID_JSON,
                "messages",
                &format!("messages: not a JSON array of messages or an object with `messages`: {e}"),
            )
        }
    };
    for (i, item) in items.into_iter().enumerate() {
        let field = format!("messages[{i}]");
        if let Err(e) = serde_json::from_value::<In>(item) {
            return js_error(INVALID_MESSAGE, &field, &format!("{field}: {e}"));
        }
    }
    js_error(INVALID_JSON, "messages", "messages: not a valid list of messages")
}

/// The text of an API `system` parameter (a string or text blocks).
pub fn system_text(system: serde_json::Value) -> String {
    match system {
        serde_json::Value::String(s) => s,
        serde_json::Value::Array(blocks) => blocks
            .iter()
            .filter_map(|b| b.get("text").and_then(|t| t.as_str()))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}
