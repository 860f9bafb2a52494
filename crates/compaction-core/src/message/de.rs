//! Streaming `Deserialize` for [`Content`] and [`Block`]: blocks are read
//! straight from the deserializer into their typed fields; fields the engine
//! does not interpret land in `extra` as their JSON text ([`Json`]), never
//! parsed into a tree. Every error names the field (serde's "invalid type:
//! …, expected …" with the field in the expectation).
//!
//! Few visitor types, each asking for the one JSON type it takes
//! (`deserialize_str`, `deserialize_map`…): every visitor type is another
//! copy of the parser in the wasm module.
//!
//! The fast path needs the block's `type` first, as the API and its SDKs
//! write it. A block whose `type` comes later is collected field by field
//! (as text), rewritten with its `type` first and read by the fast path:
//! the same rules, only slower. A block with two `type`s is an error: which
//! one counts would be a guess.

use std::fmt;

use serde::de::{DeserializeSeed, Error as _, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};

use super::json::Text;
use super::{Block, Content, Extra, Json, ToolResultContent};

impl<'de> Deserialize<'de> for Content {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ContentVisitor { in_result: false })
    }
}

impl<'de> Deserialize<'de> for Block {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(BlockVisitor)
    }
}

// --- content: a string or a list of blocks ------------------------------

/// A message's `content`, or (`in_result`) a `tool_result`'s.
#[derive(Clone, Copy)]
struct ContentVisitor {
    in_result: bool,
}

impl<'de> DeserializeSeed<'de> for ContentVisitor {
    type Value = Content;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Content, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ContentVisitor {
    type Value = Content;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        if self.in_result {
            f.write_str("`content` of a `tool_result` block to be a string or a list of blocks")
        } else {
            f.write_str("`content` to be a string or a list of blocks")
        }
    }

    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Content, E> {
        Ok(Content::Text(v.to_owned()))
    }

    fn visit_string<E: serde::de::Error>(self, v: String) -> Result<Content, E> {
        Ok(Content::Text(v))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Content, A::Error> {
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(64));
        while let Some(block) = seq.next_element::<Block>()? {
            out.push(block);
        }
        // A list grows to four blocks at its first push: most hold one or
        // two, and every message keeps its list (the allocator shrinks in
        // place).
        out.shrink_to_fit();
        Ok(Content::Blocks(out))
    }
}

// --- typed scalar fields --------------------------------------------------

/// A string field (`key`) of a block of kind `kind` (`type` itself when
/// `kind` is empty).
struct StringField<'a> {
    kind: &'a str,
    key: &'a str,
}

impl<'de> DeserializeSeed<'de> for StringField<'_> {
    type Value = String;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<String, D::Error> {
        deserializer.deserialize_string(self)
    }
}

impl<'de> Visitor<'de> for StringField<'_> {
    type Value = String;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        if self.kind.is_empty() {
            write!(f, "a block's `{}` to be a string", self.key)
        } else {
            write!(f, "`{}` of a `{}` block to be a string", self.key, self.kind)
        }
    }

    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<String, E> {
        Ok(v.to_owned())
    }

    fn visit_string<E: serde::de::Error>(self, v: String) -> Result<String, E> {
        Ok(v)
    }
}

/// `is_error`: a boolean, or `null` for none.
struct IsError;

impl<'de> DeserializeSeed<'de> for IsError {
    type Value = Option<bool>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Option<bool>, D::Error> {
        deserializer.deserialize_option(self)
    }
}

impl<'de> Visitor<'de> for IsError {
    type Value = Option<bool>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("`is_error` of a `tool_result` block to be a boolean")
    }

    fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<Option<bool>, E> {
        Ok(Some(v))
    }

    fn visit_none<E: serde::de::Error>(self) -> Result<Option<bool>, E> {
        Ok(None)
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<Option<bool>, E> {
        Ok(None)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Option<bool>, D::Error> {
        deserializer.deserialize_bool(self)
    }
}

// --- blocks -------------------------------------------------------------

struct BlockVisitor;

/// The message of an error from re-reading a reordered block, without the
/// position serde_json adds (a position in the rewritten text, not the
/// caller's).
fn without_position(err: &serde_json::Error) -> String {
    let text = err.to_string();
    match crate::text::rsplit_once(&text, " at line ") {
        Some((message, _)) if err.line() > 0 => message.to_owned(),
        _ => text,
    }
}

impl<'de> Visitor<'de> for BlockVisitor {
    type Value = Block;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a content block (an object with a `type`)")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Block, A::Error> {
        let Some(Text(first)) = map.next_key::<Text<'de>>()? else {
            return Err(A::Error::custom("block without a `type`"));
        };
        if first == "type" {
            let kind = map.next_value_seed(StringField {
                kind: "",
                key: "type",
            })?;
            return typed(kind, map);
        }
        // Slow path: every field as text, then the block again, `type` first.
        let mut fields = vec![(first.into_owned(), map.next_value::<Json>()?)];
        let mut kind = None;
        while let Some(Text(key)) = map.next_key::<Text<'de>>()? {
            let value = map.next_value::<Json>()?;
            if key == "type" {
                if kind.is_some() {
                    return Err(A::Error::custom("a block has two `type` fields"));
                }
                kind = Some(value);
            } else {
                fields.push((key.into_owned(), value));
            }
        }
        let Some(kind) = kind else {
            return Err(A::Error::custom("block without a `type`"));
        };
        let mut text = String::with_capacity(64);
        text.push_str("{\"type\":");
        text.push_str(kind.text());
        for (key, value) in &fields {
            text.push(',');
            push_quoted(&mut text, key);
            text.push(':');
            text.push_str(value.text());
        }
        text.push('}');
        serde_json::from_str(&text).map_err(|e| A::Error::custom(without_position(&e)))
    }
}

/// Appends `s` as a JSON string.
fn push_quoted(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if u32::from(c) < 0x20 => {
                out.push_str("\\u00");
                let n = u32::from(c);
                for d in [n >> 4, n & 0xf] {
                    out.push(char::from_digit(d, 16).unwrap_or('0'));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// The typed fields of a block whose `type` came first.
#[derive(Default)]
struct Fields {
    text: Option<String>,
    id: Option<String>,
    name: Option<String>,
    input: Option<Json>,
    tool_use_id: Option<String>,
    content: Option<ToolResultContent>,
    is_error: Option<bool>,
    thinking: Option<String>,
}

fn required<E: serde::de::Error>(value: Option<String>, key: &str, kind: &str) -> Result<String, E> {
    value.ok_or_else(|| E::custom(format!("`{kind}` block: missing `{key}`")))
}

/// Reads the rest of a block of kind `kind`: the fields its kind types go
/// to their slots, every other field to `extra`, as its text.
fn typed<'de, A: MapAccess<'de>>(kind: String, mut map: A) -> Result<Block, A::Error> {
    let mut f = Fields::default();
    let mut extra = Extra::new();
    while let Some(Text(key)) = map.next_key::<Text<'de>>()? {
        let slot = match (kind.as_str(), key.as_ref()) {
            (_, "type") => return Err(A::Error::custom("a block has two `type` fields")),
            ("tool_result", "content") => {
                f.content = Some(match map.next_value_seed(ContentVisitor { in_result: true })? {
                    Content::Text(text) => ToolResultContent::Text(text),
                    Content::Blocks(blocks) => ToolResultContent::Blocks(blocks),
                });
                continue;
            }
            ("tool_use", "input") => {
                f.input = Some(map.next_value()?);
                continue;
            }
            ("tool_result", "is_error") => {
                f.is_error = map.next_value_seed(IsError)?;
                continue;
            }
            ("text", "text") => &mut f.text,
            ("tool_use", "id") => &mut f.id,
            ("tool_use", "name") => &mut f.name,
            ("tool_result", "tool_use_id") => &mut f.tool_use_id,
            ("thinking", "thinking") => &mut f.thinking,
            _ => {
                extra.insert(key.into_owned(), map.next_value()?);
                continue;
            }
        };
        *slot = Some(map.next_value_seed(StringField {
            kind: &kind,
            key: &key,
        })?);
    }
    Ok(match kind.as_str() {
        "text" => Block::Text {
            text: required(f.text, "text", &kind)?,
            extra,
        },
        "tool_use" => Block::ToolUse {
            id: required(f.id, "id", &kind)?,
            name: required(f.name, "name", &kind)?,
            input: f.input.unwrap_or_else(Json::empty_object),
            extra,
        },
        "tool_result" => Block::ToolResult {
            tool_use_id: required(f.tool_use_id, "tool_use_id", &kind)?,
            content: f.content.unwrap_or(ToolResultContent::Absent),
            is_error: f.is_error,
            extra,
        },
        "thinking" => Block::Thinking {
            thinking: required(f.thinking, "thinking", &kind)?,
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
    use serde_json::{json, Value};

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
        // And the content alone through `Content::from_value` (already
        // parsed JSON): the same blocks.
        if let (Ok(a), Some(content)) = (&a, v.get("content")) {
            let c = Content::from_value(content.clone()).map_err(|e| e.to_string());
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
            (json!(5), "invalid type: integer `5`, expected `content` to be a string or a list of blocks"),
            (
                json!({"a": 1}),
                "invalid type: map, expected `content` to be a string or a list of blocks",
            ),
            (json!([3]), "invalid type: integer `3`, expected a content block (an object with a `type`)"),
            (json!([[1]]), "invalid type: sequence, expected a content block (an object with a `type`)"),
            (json!([{}]), "block without a `type`"),
            (json!([{"type": 1}]), "invalid type: integer `1`, expected a block's `type` to be a string"),
            (
                json!([{"type": "text", "type": "text"}]),
                "`text` block: missing `text`",
            ),
            (json!([{"type": "text"}]), "`text` block: missing `text`"),
            (
                json!([{"type": "tool_use", "id": "t", "name": null}]),
                "invalid type: null, expected `name` of a `tool_use` block to be a string",
            ),
            (
                json!([{"type": "tool_result", "tool_use_id": "t", "content": 7}]),
                "invalid type: integer `7`, expected `content` of a `tool_result` block to be a string or a list of blocks",
            ),
            (
                json!([{"type": "tool_result", "tool_use_id": "t", "content": [2]}]),
                "invalid type: integer `2`, expected a content block (an object with a `type`)",
            ),
            (
                json!([{"type": "tool_result", "tool_use_id": "t", "is_error": "yes"}]),
                "invalid type: string \"yes\", expected `is_error` of a `tool_result` block to be a boolean",
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
    fn a_late_type_keeps_keys_that_need_escaping() {
        let text = r#"{"uuid":"u","role":"user","content":[{"q\"\\\u0001\n":[1, 2],"type":"x"}]}"#;
        let m: Message = serde_json::from_str(text).unwrap();
        assert_eq!(
            serde_json::to_string(&m.content).unwrap(),
            r#"[{"type":"x","q\"\\\u0001\n":[1, 2]}]"#
        );
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
