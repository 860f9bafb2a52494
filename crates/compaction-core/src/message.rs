//! The message model: Anthropic Messages API shapes (SPEC "Vocabulary"),
//! each message with a stable uuid and, optionally, a timestamp and the API
//! `usage` of the request that produced it.
//!
//! Blocks of unknown kinds, and unknown fields of known kinds, are kept
//! verbatim, as their JSON text ([`Json`], [`Extra`]): what comes in goes
//! out unchanged unless a rule changes it.

use serde::{Deserialize, Serialize};

use crate::time::Timestamp;

mod de;
mod de_message;
mod de_usage;
mod json;
mod lean;
pub mod scan;
mod ser;
pub mod surrogates;

pub(crate) use json::{field_in, Text};
pub use json::{Extra, Json};
pub(crate) use lean::escape as write_json_string;
pub use lean::to_json_string;

/// A message's stable identity in the store.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Uuid(pub String);

impl Uuid {
    /// The uuid as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl From<&str> for Uuid {
    fn from(s: &str) -> Self {
        Uuid(s.to_owned())
    }
}

impl std::fmt::Display for Uuid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The user, or the client on the user's behalf (tool results).
    User,
    /// The model.
    Assistant,
    /// A mid-conversation system message (SDK 1.14's `BetaSystemMessageParam`,
    /// R13.3): kept where the caller put it, never moved into the top-level
    /// `system` (that would invalidate every later thinking block).
    System,
}

/// Read by hand: a string naming the role (serde's derive also reads an
/// enum from `{ "user": null }` and names a wrong type "expected ident").
impl<'de> Deserialize<'de> for Role {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let Text(name) = Text::deserialize(deserializer)?;
        match &*name {
            "user" => Ok(Role::User),
            "assistant" => Ok(Role::Assistant),
            "system" => Ok(Role::System),
            other => Err(serde::de::Error::unknown_variant(
                other,
                &["user", "assistant", "system"],
            )),
        }
    }
}

impl Role {
    /// The role as the API spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::System => "system",
        }
    }
}

/// A message's content: a plain string or a list of blocks.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Content {
    /// `"content": "…"`.
    Text(String),
    /// `"content": [ {…}, … ]`.
    Blocks(Vec<Block>),
}

impl Content {
    /// The blocks, if the content is a list (a plain string has none).
    pub fn blocks(&self) -> &[Block] {
        match self {
            Content::Text(_) => &[],
            Content::Blocks(blocks) => blocks,
        }
    }

    /// Content from JSON already parsed: the same blocks its `Deserialize`
    /// makes from the text.
    pub fn from_value(value: serde_json::Value) -> Result<Self, serde_json::Error> {
        Content::deserialize(value)
    }
}

/// The content of a `tool_result` block.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolResultContent {
    /// No `content` field.
    Absent,
    /// `"content": "…"`.
    Text(String),
    /// `"content": [text | image | …]`.
    Blocks(Vec<Block>),
}

/// One content block. Known kinds are typed; anything else is
/// [`Block::Other`], kept verbatim.
#[derive(Debug, Clone, PartialEq)]
pub enum Block {
    /// `{type: "text", text}`.
    Text {
        /// The text.
        text: String,
        /// Other fields, verbatim.
        extra: Extra,
    },
    /// `{type: "tool_use", id, name, input}`.
    ToolUse {
        /// The call's id, matched by a `tool_result`'s `tool_use_id`.
        id: String,
        /// The tool's name (`Read`, `Bash`…).
        name: String,
        /// The tool's input, verbatim.
        input: Json,
        /// Other fields, verbatim.
        extra: Extra,
    },
    /// `{type: "tool_result", tool_use_id, content, is_error}`.
    ToolResult {
        /// The id of the `tool_use` this answers.
        tool_use_id: String,
        /// The result.
        content: ToolResultContent,
        /// `is_error`, if present.
        is_error: Option<bool>,
        /// Other fields, verbatim.
        extra: Extra,
    },
    /// `{type: "thinking", thinking, signature}`.
    Thinking {
        /// The reasoning text.
        thinking: String,
        /// Other fields (`signature`), verbatim.
        extra: Extra,
    },
    /// `{type: "image", source}`: the source stays in `extra`.
    Image {
        /// All fields but `type`, verbatim.
        extra: Extra,
    },
    /// A block of any other kind (`redacted_thinking`, `document`,
    /// `server_tool_use`, kinds not yet invented), kept verbatim.
    Other {
        /// Its `type`.
        kind: String,
        /// All fields but `type`, verbatim.
        extra: Extra,
    },
}

impl Block {
    /// A plain text block.
    pub fn text(text: impl Into<String>) -> Self {
        Block::Text {
            text: text.into(),
            extra: Extra::new(),
        }
    }

    /// The block's `type`.
    pub fn kind(&self) -> &str {
        match self {
            Block::Text { .. } => "text",
            Block::ToolUse { .. } => "tool_use",
            Block::ToolResult { .. } => "tool_result",
            Block::Thinking { .. } => "thinking",
            Block::Image { .. } => "image",
            Block::Other { kind, .. } => kind,
        }
    }
}

/// The largest token figure the engine accepts: 2^53 − 1, so that every
/// figure survives a trip through a JavaScript number unchanged.
pub const MAX_TOKENS: u64 = (1 << 53) - 1;

/// The API `usage` of the request that produced an assistant message.
/// With `iterations` (server compaction, server tool loops), the last
/// `message` iteration is the context the reply was sampled from, and its
/// counters are the ones kept (R13.4: a `compaction` iteration reports the
/// cost of summarising, not the context's size).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "ApiUsage")]
pub struct Usage {
    /// Uncached input tokens.
    #[serde(default)]
    pub input_tokens: u64,
    /// Output tokens.
    #[serde(default)]
    pub output_tokens: u64,
    /// Input tokens written to the prompt cache.
    #[serde(default)]
    pub cache_creation_input_tokens: u64,
    /// Input tokens read from the prompt cache.
    #[serde(default)]
    pub cache_read_input_tokens: u64,
}

/// `usage` as the API sends it: the four counters as JSON numbers (`null`
/// or absent reads as 0) and the optional per-iteration breakdown. Convert
/// it with `Usage::try_from`, which keeps the last `message` iteration's
/// counters and refuses any that is not a token count.
///
/// Its `Deserialize` (and its iterations') is written out in `de_usage`:
/// one visitor for both shapes.
#[derive(Debug, Clone, Default)]
pub struct ApiUsage {
    input_tokens: Option<f64>,
    output_tokens: Option<f64>,
    cache_creation_input_tokens: Option<f64>,
    cache_read_input_tokens: Option<f64>,
    iterations: Option<Vec<ApiIteration>>,
}

/// One entry of `usage.iterations`: its `type` and its four counters.
#[derive(Debug, Clone, Default)]
struct ApiIteration {
    kind: Option<String>,
    input_tokens: Option<f64>,
    output_tokens: Option<f64>,
    cache_creation_input_tokens: Option<f64>,
    cache_read_input_tokens: Option<f64>,
}

/// A usage counter that is not a whole number from 0 to 2^53 − 1, or
/// counters that add up to more: refused, never wrapped or rounded.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("usage{path}: {} {}", crate::error::Num(*.value), if *.sum {
    "is what its four counters add up to, more than a token count holds (2^53 - 1)"
} else {
    "is not a token count (a whole number from 0 to 2^53 - 1)"
})]
pub struct BadTokenCount {
    /// Where, below `usage`: `.input_tokens`, `.iterations[2].output_tokens`
    /// (empty for the sum of the top-level counters).
    pub path: String,
    /// The number given, or the sum.
    pub value: f64,
    /// Whether `value` is the counters' sum (each alone a token count).
    pub sum: bool,
}

impl TryFrom<ApiUsage> for Usage {
    type Error = BadTokenCount;

    fn try_from(raw: ApiUsage) -> Result<Self, BadTokenCount> {
        raw.usage()
    }
}

impl ApiUsage {
    /// The engine's [`Usage`]: the last `message` iteration's counters when
    /// there are iterations, else the top-level ones; each must be a whole
    /// number from 0 to 2^53 − 1.
    pub fn usage(&self) -> Result<Usage, BadTokenCount> {
        let raw = self;
        let last_message = raw.iterations.as_deref().and_then(|its| {
            its.iter()
                .enumerate()
                .rev()
                .find(|(_, i)| i.kind.as_deref() == Some("message"))
        });
        let (at, c) = match last_message {
            Some((n, i)) => (
                Some(n),
                [
                    i.input_tokens,
                    i.output_tokens,
                    i.cache_creation_input_tokens,
                    i.cache_read_input_tokens,
                ],
            ),
            None => (
                None,
                [
                    raw.input_tokens,
                    raw.output_tokens,
                    raw.cache_creation_input_tokens,
                    raw.cache_read_input_tokens,
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
        for ((slot, value), name) in out.iter_mut().zip(c).zip(NAMES) {
            let v = value.unwrap_or(0.0);
            if !(v.fract() == 0.0 && (0.0..=MAX_TOKENS as f64).contains(&v)) {
                let at = at.map(|n| format!(".iterations[{n}]")).unwrap_or_default();
                return Err(BadTokenCount {
                    path: crate::text::concat3(&at, ".", name),
                    value: v,
                    sum: false,
                });
            }
            // Whole and within 0..=2^53−1: the cast is exact.
            *slot = v as u64;
        }
        // The count adds them up (R1.6): the sum must be a token count too.
        let sum = out.iter().try_fold(0u64, |a, &n| a.checked_add(n));
        if sum.is_none_or(|sum| sum > MAX_TOKENS) {
            return Err(BadTokenCount {
                path: at.map(|n| format!(".iterations[{n}]")).unwrap_or_default(),
                value: out.iter().map(|&n| n as f64).sum(),
                sum: true,
            });
        }
        let [input_tokens, output_tokens, cache_creation_input_tokens, cache_read_input_tokens] = out;
        Ok(Usage {
            input_tokens,
            output_tokens,
            cache_creation_input_tokens,
            cache_read_input_tokens,
        })
    }
}

impl Usage {
    /// The full prompt size of that request: input + cache-creation +
    /// cache-read tokens (R1.6).
    pub fn prompt_tokens(&self) -> u64 {
        self.input_tokens
            .saturating_add(self.cache_creation_input_tokens)
            .saturating_add(self.cache_read_input_tokens)
    }

    /// All four counters zeroed (R7.6: preserved messages lose them).
    pub fn zeroed() -> Self {
        Usage::default()
    }
}

/// One message of the conversation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Message {
    /// Stable identity in the store.
    pub uuid: Uuid,
    /// Who wrote it.
    pub role: Role,
    /// What it says.
    pub content: Content,
    /// When it was written, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<Timestamp>,
    /// The usage of the request that produced it (assistant messages).
    /// Boxed: most messages have none (user messages, a plan's input), and
    /// inline it took 40 bytes of every message in wasm (now 4; a message
    /// is 56 bytes, not 72).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Box<Usage>>,
    /// The message's other fields, verbatim and in order: a `role: "system"`
    /// message's `clear_at` and `output_config` (R13.3). Always empty for
    /// user and assistant messages, whose `MessageParam` has no other field
    /// (a response's `id`, `model`, `stop_reason`… are not history).
    #[serde(flatten, skip_serializing_if = "Extra::is_empty")]
    pub extra: Extra,
}

impl Message {
    /// A user message with plain text content.
    pub fn user(uuid: impl Into<String>, text: impl Into<String>) -> Self {
        Message::new(uuid, Role::User, Content::Text(text.into()))
    }

    /// An assistant message with plain text content.
    pub fn assistant(uuid: impl Into<String>, text: impl Into<String>) -> Self {
        Message::new(uuid, Role::Assistant, Content::Text(text.into()))
    }

    /// A message with the given content and no timestamp or usage.
    pub fn new(uuid: impl Into<String>, role: Role, content: Content) -> Self {
        Message {
            uuid: Uuid(uuid.into()),
            role,
            content,
            timestamp: None,
            usage: None,
            extra: Extra::new(),
        }
    }

    /// Ids of the `tool_use` blocks in this message.
    pub fn tool_use_ids(&self) -> impl Iterator<Item = &str> {
        self.content.blocks().iter().filter_map(|b| match b {
            Block::ToolUse { id, .. } => Some(id.as_str()),
            _ => None,
        })
    }

    /// `tool_use_id`s of the `tool_result` blocks in this message.
    pub fn tool_result_ids(&self) -> impl Iterator<Item = &str> {
        self.content.blocks().iter().filter_map(|b| match b {
            Block::ToolResult { tool_use_id, .. } => Some(tool_use_id.as_str()),
            _ => None,
        })
    }

    /// Whether it holds a server `compaction` block (R13.2).
    pub fn holds_compaction(&self) -> bool {
        self.content.blocks().iter().any(|b| b.kind() == "compaction")
    }

    /// A real user prompt: a user message that is not only tool results
    /// (SPEC "turn").
    pub fn is_user_prompt(&self) -> bool {
        self.role == Role::User
            && match &self.content {
                Content::Text(_) => true,
                Content::Blocks(blocks) => blocks.iter().any(|b| !matches!(b, Block::ToolResult { .. })),
            }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn roundtrip(v: Value) -> Value {
        let m: Message = serde_json::from_value(v).unwrap();
        serde_json::to_value(&m).unwrap()
    }

    #[test]
    fn known_and_unknown_blocks_round_trip_verbatim() {
        let v = json!({
            "uuid": "u1",
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "hmm", "signature": "sig"},
                {"type": "text", "text": "hi", "cache_control": {"type": "ephemeral"}},
                {"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "a.rs"}},
                {"type": "redacted_thinking", "data": "xyz"},
                {"type": "future_kind", "anything": [1, 2, 3]}
            ],
            "usage": {"input_tokens": 1, "output_tokens": 2, "cache_creation_input_tokens": 3, "cache_read_input_tokens": 4}
        });
        assert_eq!(roundtrip(v.clone()), v);
    }

    #[test]
    fn tool_results_keep_content_shape_and_is_error_presence() {
        let v = json!({
            "uuid": "u2",
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "t1", "content": "ok"},
                {"type": "tool_result", "tool_use_id": "t2", "content": [{"type": "text", "text": "x"}, {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AA=="}}], "is_error": true},
                {"type": "tool_result", "tool_use_id": "t3"}
            ]
        });
        assert_eq!(roundtrip(v.clone()), v);
    }

    #[test]
    fn numbers_in_unknown_fields_survive_a_round_trip() {
        // Found by the message_json fuzz target: without serde_json's
        // float_roundtrip the last digit moved.
        let text = r#"{"uuid":"u","role":"assistant","content":[{"type":"x","n":9644444444444444444444,"f":0.30000000000000004}]}"#;
        let once: Message = serde_json::from_str(text).unwrap();
        let printed = serde_json::to_string(&once).unwrap();
        let twice: Message = serde_json::from_str(&printed).unwrap();
        assert_eq!(once, twice);
        assert_eq!(printed, serde_json::to_string(&twice).unwrap());
    }

    #[test]
    fn bad_blocks_are_errors_naming_the_field() {
        let err = serde_json::from_value::<Message>(json!({
            "uuid": "u", "role": "user", "content": [{"type": "tool_result", "tool_use_id": 5}]
        }))
        .unwrap_err();
        assert!(err.to_string().contains("tool_use_id"), "{err}");
        let err = serde_json::from_value::<Message>(
            json!({"uuid": "u", "role": "user", "content": [{"text": "x"}]}),
        )
        .unwrap_err();
        assert!(err.to_string().contains("type"), "{err}");
    }

    #[test]
    fn user_prompt_means_not_only_tool_results() {
        let prompt = Message::user("a", "do it");
        assert!(prompt.is_user_prompt());
        let results: Message = serde_json::from_value(json!({
            "uuid": "b", "role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "x"}]
        }))
        .unwrap();
        assert!(!results.is_user_prompt());
        assert!(!Message::assistant("c", "done").is_user_prompt());
    }

    #[test]
    fn usage_keeps_the_last_message_iteration_and_refuses_what_is_not_a_count() {
        let usage = |v: Value| {
            serde_json::from_value::<ApiUsage>(v)
                .map(Usage::try_from)
                .unwrap()
        };
        let u = usage(
            json!({"input_tokens": 900, "cache_read_input_tokens": null, "iterations": [
                {"type": "message", "input_tokens": 1},
                {"type": "compaction", "input_tokens": 150000},
                {"type": "message", "input_tokens": 2100, "output_tokens": 40},
                {"type": "compaction", "input_tokens": 7}
            ]}),
        )
        .unwrap();
        assert_eq!(
            (u.input_tokens, u.output_tokens, u.cache_read_input_tokens),
            (2100, 40, 0)
        );
        let top = usage(json!({"input_tokens": 9007199254740991_u64, "iterations": []})).unwrap();
        assert_eq!(top.input_tokens, (1 << 53) - 1);
        for (v, path) in [
            (json!({"input_tokens": 9007199254740992_u64}), ".input_tokens"),
            (json!({"output_tokens": -1}), ".output_tokens"),
            (
                json!({"iterations": [{"type": "message", "cache_read_input_tokens": 1.5}]}),
                ".iterations[0].cache_read_input_tokens",
            ),
        ] {
            let err = usage(v).unwrap_err();
            assert_eq!(err.path, path);
            assert!(err.to_string().starts_with(&format!("usage{path}: ")), "{err}");
        }
        // Each a token count, their sum not (issue 27): the count adds them.
        let max = 9007199254740991_u64;
        let err = usage(json!({"input_tokens": max, "cache_read_input_tokens": max})).unwrap_err();
        assert_eq!((err.path.as_str(), err.sum), ("", true));
        assert_eq!(
            err.to_string(),
            "usage: 18014398509481982 is what its four counters add up to, more than a token count holds (2^53 - 1)"
        );
        let err =
            usage(json!({"iterations": [{"type": "message", "input_tokens": max, "output_tokens": 1}]}))
                .unwrap_err();
        assert_eq!(err.path, ".iterations[0]");
        // Through a message, serde names the problem too.
        let err = serde_json::from_value::<Message>(json!({
            "uuid": "u", "role": "assistant", "content": "x", "usage": {"input_tokens": 18446744073709551615_u64}
        }))
        .unwrap_err();
        assert!(err.to_string().contains("usage.input_tokens"), "{err}");
    }
}
