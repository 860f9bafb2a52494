//! Streaming `Deserialize` for [`Content`] and [`Block`]: blocks are read
//! straight from the deserializer into their typed fields, without first
//! becoming a `serde_json::Value` (the cost of a bulk load was mostly that
//! detour). Fields the engine does not interpret still land in `extra`
//! verbatim, and every error names the field, as before.
//!
//! The fast path needs the block's `type` first, as the API and its SDKs
//! write it. A block whose `type` comes later is collected into a map and
//! typed from there (the same rules; only slower). A block with two `type`s
//! is an error: which one counts would be a guess.

use std::borrow::Cow;
use std::fmt;

use serde::de::{DeserializeSeed, Error as _, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::Value;

use super::{Block, Content, Extra, ToolResultContent};

impl<'de> Deserialize<'de> for Content {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ContentVisitor)
    }
}

impl<'de> Deserialize<'de> for Block {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(BlockVisitor)
    }
}

/// Visitor methods for JSON values a visitor does not accept: each becomes
/// a `Value` and goes to `$other`, which words the error.
macro_rules! refuse_other_values {
    ($other:path) => {
        fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<Self::Value, E> {
            Err($other(Value::Bool(v)))
        }
        fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Self::Value, E> {
            Err($other(Value::from(v)))
        }
        fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Self::Value, E> {
            Err($other(Value::from(v)))
        }
        fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Self::Value, E> {
            Err($other(Value::from(v)))
        }
        fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            Err($other(Value::Null))
        }
        fn visit_none<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            Err($other(Value::Null))
        }
    };
}

// --- content: a string or a list of blocks ------------------------------

struct ContentVisitor;

fn content_error<E: serde::de::Error>(other: Value) -> E {
    E::custom(format!(
        "`content` must be a string or a list of blocks, got {other}"
    ))
}

impl<'de> Visitor<'de> for ContentVisitor {
    type Value = Content;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string or a list of blocks")
    }

    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Content, E> {
        Ok(Content::Text(v.to_owned()))
    }

    fn visit_string<E: serde::de::Error>(self, v: String) -> Result<Content, E> {
        Ok(Content::Text(v))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Content, A::Error> {
        blocks(seq).map(Content::Blocks)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Content, A::Error> {
        Err(content_error(rest_of_map(map)?))
    }

    refuse_other_values!(content_error);
}

fn blocks<'de, A: SeqAccess<'de>>(mut seq: A) -> Result<Vec<Block>, A::Error> {
    let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(64));
    while let Some(block) = seq.next_element::<Block>()? {
        out.push(block);
    }
    Ok(out)
}

/// A map the visitor refuses, read whole so the error can show it.
fn rest_of_map<'de, A: MapAccess<'de>>(map: A) -> Result<Value, A::Error> {
    Value::deserialize(serde::de::value::MapAccessDeserializer::new(map))
}

// --- a tool result's content, read knowing the block is a tool_result ---

struct ResultContentVisitor;

fn result_content_error<E: serde::de::Error>(other: Value) -> E {
    E::custom(format!(
        "`tool_result` block: `content` must be a string or a list, got {other}"
    ))
}

impl<'de> DeserializeSeed<'de> for ResultContentVisitor {
    type Value = ToolResultContent;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ResultContentVisitor {
    type Value = ToolResultContent;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string or a list of blocks")
    }

    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(ToolResultContent::Text(v.to_owned()))
    }

    fn visit_string<E: serde::de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(ToolResultContent::Text(v))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        blocks(seq).map(ToolResultContent::Blocks)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        Err(result_content_error(rest_of_map(map)?))
    }

    refuse_other_values!(result_content_error);
}

// --- keys: borrowed from the input when it allows ------------------------

struct Key<'de>(Cow<'de, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a field name")
            }
            fn visit_borrowed_str<E: serde::de::Error>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(v)))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E: serde::de::Error>(self, v: String) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v)))
            }
        }
        deserializer.deserialize_str(KeyVisitor)
    }
}

// --- blocks -------------------------------------------------------------

struct BlockVisitor;

fn block_error<E: serde::de::Error>(other: Value) -> E {
    E::custom(format!("a content block must be an object, got {other}"))
}

impl<'de> Visitor<'de> for BlockVisitor {
    type Value = Block;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a content block (an object with a `type`)")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Block, A::Error> {
        let Some(first) = map.next_key::<Key<'de>>()? else {
            return Err(A::Error::custom("block without a `type`"));
        };
        let value: Value = map.next_value()?;
        match (first.0.as_ref(), value) {
            ("type", Value::String(kind)) => typed(kind, map),
            (key, value) => {
                // Slow path: the whole object first, then its fields.
                let mut all = Extra::new();
                all.insert(key.to_owned(), value);
                while let Some(key) = map.next_key::<Key<'de>>()? {
                    let value: Value = map.next_value()?;
                    if key.0 == "type" && all.contains_key("type") {
                        return Err(A::Error::custom("a block has two `type` fields"));
                    }
                    all.insert(key.0.into_owned(), value);
                }
                Block::from_map(all)
            }
        }
    }

    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Block, E> {
        Err(block_error(Value::String(v.to_owned())))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Block, A::Error> {
        let items = Value::deserialize(serde::de::value::SeqAccessDeserializer::new(seq))?;
        Err(block_error(items))
    }

    refuse_other_values!(block_error);
}

/// The typed fields of a block whose `type` came first.
#[derive(Default)]
struct Fields {
    text: Option<Value>,
    id: Option<Value>,
    name: Option<Value>,
    input: Option<Value>,
    tool_use_id: Option<Value>,
    content: Option<ToolResultContent>,
    is_error: Option<Value>,
    thinking: Option<Value>,
}

fn string<E: serde::de::Error>(value: Option<Value>, key: &str, kind: &str) -> Result<String, E> {
    match value {
        Some(Value::String(s)) => Ok(s),
        Some(other) => Err(E::custom(format!(
            "`{kind}` block: `{key}` must be a string, got {other}"
        ))),
        None => Err(E::custom(format!("`{kind}` block: missing `{key}`"))),
    }
}

/// Reads the rest of a block of kind `kind`: the fields its kind types go
/// to their slots, every other field to `extra`, verbatim.
fn typed<'de, A: MapAccess<'de>>(kind: String, mut map: A) -> Result<Block, A::Error> {
    let mut f = Fields::default();
    let mut extra = Extra::new();
    while let Some(Key(key)) = map.next_key::<Key<'de>>()? {
        let slot = match (kind.as_str(), key.as_ref()) {
            (_, "type") => return Err(A::Error::custom("a block has two `type` fields")),
            ("tool_result", "content") => {
                f.content = Some(map.next_value_seed(ResultContentVisitor)?);
                continue;
            }
            ("text", "text") => &mut f.text,
            ("tool_use", "id") => &mut f.id,
            ("tool_use", "name") => &mut f.name,
            ("tool_use", "input") => &mut f.input,
            ("tool_result", "tool_use_id") => &mut f.tool_use_id,
            ("tool_result", "is_error") => &mut f.is_error,
            ("thinking", "thinking") => &mut f.thinking,
            _ => {
                extra.insert(key.into_owned(), map.next_value()?);
                continue;
            }
        };
        *slot = Some(map.next_value()?);
    }
    Ok(match kind.as_str() {
        "text" => Block::Text {
            text: string(f.text, "text", &kind)?,
            extra,
        },
        "tool_use" => Block::ToolUse {
            id: string(f.id, "id", &kind)?,
            name: string(f.name, "name", &kind)?,
            input: f.input.unwrap_or_else(|| Value::Object(Extra::new())),
            extra,
        },
        "tool_result" => Block::ToolResult {
            tool_use_id: string(f.tool_use_id, "tool_use_id", &kind)?,
            content: f.content.unwrap_or(ToolResultContent::Absent),
            is_error: match f.is_error {
                None | Some(Value::Null) => None,
                Some(Value::Bool(b)) => Some(b),
                Some(other) => {
                    return Err(A::Error::custom(format!(
                        "`tool_result` block: `is_error` must be a boolean, got {other}"
                    )))
                }
            },
            extra,
        },
        "thinking" => Block::Thinking {
            thinking: string(f.thinking, "thinking", &kind)?,
            extra,
        },
        "image" => Block::Image { extra },
        _ => Block::Other { kind, extra },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::Message;
    use serde_json::json;

    fn parse(v: &Value) -> Result<Message, String> {
        // Through the text, as a bulk load reads it (borrowed keys), and
        // through a `Value` (owned keys): the same result.
        let text = serde_json::to_string(v).map_err(|e| e.to_string())?;
        let a = serde_json::from_str::<Message>(&text).map_err(|e| e.to_string());
        let b = serde_json::from_value::<Message>(v.clone()).map_err(|e| e.to_string());
        assert_eq!(a.is_ok(), b.is_ok(), "{a:?} vs {b:?}");
        if let (Ok(a), Ok(b)) = (&a, &b) {
            assert_eq!(a, b);
        }
        // And the content alone through `Content::from_value` (how the
        // transcript importer reads records): the same blocks.
        if let (Ok(a), Some(content)) = (&a, v.get("content")) {
            let c = Content::from_value::<serde_json::Error>(content.clone()).map_err(|e| e.to_string());
            assert_eq!(c.as_ref(), Ok(&a.content));
        }
        a
    }

    #[test]
    fn a_type_after_other_fields_reads_the_same_as_first() {
        let first = json!({"uuid": "u", "role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t", "content": [{"type": "text", "text": "x", "k": 1}], "is_error": false, "z": [1]}
        ]});
        let last = json!({"uuid": "u", "role": "user", "content": [
            {"z": [1], "is_error": false, "content": [{"k": 1, "text": "x", "type": "text"}], "tool_use_id": "t", "type": "tool_result"}
        ]});
        let (a, b) = (parse(&first).unwrap(), parse(&last).unwrap());
        assert_eq!(a, b);
        assert_eq!(serde_json::to_value(&a).unwrap(), first);
    }

    #[test]
    fn fields_another_kind_types_stay_verbatim_in_extra() {
        let v = json!({"uuid": "u", "role": "assistant", "content": [
            {"type": "tool_use", "id": "t", "name": "Read", "input": {}, "text": 5, "content": {"a": null}},
            {"type": "text", "text": "hi", "id": [true], "thinking": "no"},
            {"type": "image", "source": {"type": "url", "url": "https://x"}, "text": "alt"}
        ]});
        let m = parse(&v).unwrap();
        assert_eq!(serde_json::to_value(&m).unwrap(), v);
    }

    #[test]
    fn bad_shapes_are_errors_naming_the_field() {
        let cases = [
            (json!(5), "`content` must be a string or a list of blocks, got 5"),
            (
                json!({"a": 1}),
                "`content` must be a string or a list of blocks, got {\"a\":1}",
            ),
            (json!([3]), "a content block must be an object, got 3"),
            (json!([[1]]), "a content block must be an object, got [1]"),
            (json!([{}]), "block without a `type`"),
            (json!([{"type": 1}]), "block `type` must be a string, got 1"),
            (
                json!([{"type": "text", "type": "text"}]),
                "`text` block: missing `text`",
            ),
            (json!([{"type": "text"}]), "`text` block: missing `text`"),
            (
                json!([{"type": "tool_use", "id": "t", "name": null}]),
                "`tool_use` block: `name` must be a string, got null",
            ),
            (
                json!([{"type": "tool_result", "tool_use_id": "t", "content": 7}]),
                "`tool_result` block: `content` must be a string or a list, got 7",
            ),
            (
                json!([{"type": "tool_result", "tool_use_id": "t", "content": [2]}]),
                "a content block must be an object, got 2",
            ),
            (
                json!([{"type": "tool_result", "tool_use_id": "t", "is_error": "yes"}]),
                "`tool_result` block: `is_error` must be a boolean, got \"yes\"",
            ),
        ];
        for (content, want) in cases {
            let err = parse(&json!({"uuid": "u", "role": "user", "content": content})).unwrap_err();
            assert!(err.contains(want), "{content}: {err}");
        }
    }

    #[test]
    fn two_types_in_one_block_are_an_error() {
        let text = r#"{"uuid":"u","role":"user","content":[{"type":"text","text":"a","type":"image"}]}"#;
        let err = serde_json::from_str::<Message>(text).unwrap_err();
        assert!(err.to_string().contains("two `type` fields"), "{err}");
        let text = r#"{"uuid":"u","role":"user","content":[{"text":"a","type":"text","type":"image"}]}"#;
        let err = serde_json::from_str::<Message>(text).unwrap_err();
        assert!(err.to_string().contains("two `type` fields"), "{err}");
    }

    #[test]
    fn escaped_keys_are_read_like_plain_ones() {
        let text =
            r#"{"uuid":"u","role":"user","content":[{"\u0074ype":"text","te\u0078t":"a","\u00e9":1}]}"#;
        let m: Message = serde_json::from_str(text).unwrap();
        assert_eq!(
            serde_json::to_value(&m).unwrap()["content"],
            json!([{"type": "text", "text": "a", "é": 1}])
        );
    }
}
