//! Small readers and writers every format shares.

use serde_json::Value;

use super::FormatError;
use crate::message::{Block, Content, Extra, Json, ToolResultContent};

/// The string at `key`, or an error naming it.
pub(crate) fn str_at<'a>(v: &'a Value, key: &str, path: &str) -> Result<&'a str, FormatError> {
    match v.get(key) {
        Some(Value::String(s)) => Ok(s),
        Some(_) => Err(FormatError::new(format!("{path}.{key}"), "must be a string")),
        None => Err(FormatError::new(format!("{path}.{key}"), "is missing")),
    }
}

/// A block of a kind the engine never edits, holding the part's fields.
pub(crate) fn opaque(kind: &str, v: &Value) -> Block {
    let extra: Extra = match v {
        Value::Object(map) => map
            .iter()
            .filter(|(k, _)| k.as_str() != "type")
            .map(|(k, v)| (k.clone(), Json::from_value(v)))
            .collect(),
        other => std::iter::once(("value".to_owned(), Json::from_value(other))).collect(),
    };
    Block::Other {
        kind: kind.to_owned(),
        extra,
    }
}

/// An image block (counted as an image) holding the part.
pub(crate) fn image(v: &Value) -> Block {
    Block::Image {
        extra: std::iter::once(("source".to_owned(), Json::from_value(v))).collect(),
    }
}

/// A tool's input: an arguments string that is JSON stays that JSON,
/// anything else is kept as a value.
pub(crate) fn input_json(v: Option<&Value>) -> Json {
    match v {
        None | Some(Value::Null) => Json::empty_object(),
        Some(Value::String(s)) => {
            Json::parse(s).unwrap_or_else(|_| Json::from_value(&Value::String(s.clone())))
        }
        Some(other) => Json::from_value(other),
    }
}

/// The text of a tool result's content (a reduced or cleared result is
/// text; other blocks are left out).
pub(crate) fn result_text(content: &ToolResultContent) -> String {
    match content {
        ToolResultContent::Absent => String::new(),
        ToolResultContent::Text(t) => t.clone(),
        ToolResultContent::Blocks(blocks) => blocks
            .iter()
            .filter_map(|b| match b {
                Block::Text { text, .. } => Some(text.as_str()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

/// The text of a message's content: its text blocks, joined.
pub(crate) fn content_text(content: &Content) -> String {
    match content {
        Content::Text(t) => t.clone(),
        Content::Blocks(blocks) => blocks
            .iter()
            .filter_map(|b| match b {
                Block::Text { text, .. } => Some(text.as_str()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

/// A text content list's or string's text (system messages and the like).
pub(crate) fn text_of(v: Option<&Value>, path: &str) -> Result<String, FormatError> {
    match v {
        Some(Value::String(s)) => Ok(s.clone()),
        Some(Value::Array(parts)) => Ok(parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n")),
        Some(Value::Null) | None => Ok(String::new()),
        Some(_) => Err(FormatError::new(
            format!("{path}.content"),
            "must be a string or a list of parts",
        )),
    }
}

/// A JSON object from pairs.
pub(crate) fn object<const N: usize>(pairs: [(&str, Value); N]) -> Value {
    Value::Object(pairs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
}
