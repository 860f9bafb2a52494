//! Small readers and writers every format shares. Items are read as the
//! engine reads blocks, without a JSON tree: an object is its fields as
//! text ([`Extra`], in order), a list its elements as text ([`Json`]), and
//! items are written the same way (fields in order, values verbatim), so
//! the conversion adds no JSON tree type to the wasm module.

use std::borrow::Cow;

use super::{At, FormatError, One};
use crate::message::{Block, Content, Extra, Json, Role, ToolResultContent};

/// An object's fields, or an error naming it.
pub(crate) fn object(json: &Json, path: &str) -> Result<Extra, FormatError> {
    if !json.is_object() {
        return Err(FormatError::new(path, "must be an object"));
    }
    serde_json::from_str(json.text()).map_err(|e| FormatError::new(path, e.to_string()))
}

/// A list's elements, when `json` is a list.
pub(crate) fn list(json: &Json) -> Option<Vec<Json>> {
    if json.text().starts_with('[') {
        serde_json::from_str(json.text()).ok()
    } else {
        None
    }
}

/// The string at `key`, or an error naming it.
pub(crate) fn str_at<'a>(o: &'a Extra, key: &str, path: &str) -> Result<Cow<'a, str>, FormatError> {
    match o.get(key) {
        None => Err(FormatError::new(
            crate::text::concat3(path, ".", key),
            "is missing",
        )),
        Some(v) => v
            .as_str()
            .ok_or_else(|| FormatError::new(crate::text::concat3(path, ".", key), "must be a string")),
    }
}

/// Whether `o[key]` is the string `want`.
pub(crate) fn is(o: &Extra, key: &str, want: &str) -> bool {
    o.str_field(key).as_deref() == Some(want)
}

/// A block of a kind the engine never edits, holding the part's fields.
pub(crate) fn opaque(kind: &str, o: &Extra) -> Block {
    Block::Other {
        kind: kind.to_owned(),
        extra: o
            .iter()
            .filter(|(k, _)| *k != "type")
            .map(|(k, v)| (k.to_owned(), v.clone()))
            .collect(),
    }
}

/// An image block (counted as an image) holding the part.
pub(crate) fn image(part: &Json) -> Block {
    Block::Image {
        extra: std::iter::once(("source".to_owned(), part.clone())).collect(),
    }
}

/// A tool's input: an arguments string that is JSON stays that JSON,
/// anything else is kept as a value.
pub(crate) fn input_json(v: Option<&Json>) -> Json {
    match v {
        None => Json::empty_object(),
        Some(v) if v.is_null() => Json::empty_object(),
        Some(v) => match v.as_str() {
            Some(s) => Json::parse(&s).unwrap_or_else(|_| v.clone()),
            None => v.clone(),
        },
    }
}

/// A JSON string.
pub(crate) fn string(s: &str) -> Json {
    let mut text = String::new();
    crate::message::write_json_string(&mut text, s);
    Json::parse(&text).unwrap_or_else(|_| Json::null())
}

/// A JSON list of these values.
pub(crate) fn array(items: Vec<Json>) -> Json {
    crate::message::to_json_string(&items)
        .ok()
        .and_then(|t| Json::parse(&t).ok())
        .unwrap_or_else(Json::null)
}

/// An object of these fields, in order.
pub(crate) fn to_json(o: &Extra) -> Json {
    crate::message::to_json_string(o)
        .ok()
        .and_then(|t| Json::parse(&t).ok())
        .unwrap_or_else(Json::null)
}

/// An object from pairs, in order.
pub(crate) fn obj<const N: usize>(pairs: [(&str, Json); N]) -> Json {
    let o: Extra = pairs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
    to_json(&o)
}

/// The text of a tool result's content (a reduced or cleared result is
/// text; other blocks are left out).
pub(crate) fn result_text(content: &ToolResultContent) -> String {
    match content {
        ToolResultContent::Absent => String::new(),
        ToolResultContent::Text(t) => t.clone(),
        ToolResultContent::Blocks(blocks) => texts(blocks),
    }
}

/// The text of a message's content: its text blocks, joined.
pub(crate) fn content_text(content: &Content) -> String {
    match content {
        Content::Text(t) => t.clone(),
        Content::Blocks(blocks) => texts(blocks),
    }
}

fn texts(blocks: &[Block]) -> String {
    blocks
        .iter()
        .filter_map(|b| match b {
            Block::Text { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A string or a list of text parts, as text (system messages and the like).
pub(crate) fn text_of(v: Option<&Json>, path: &str) -> Result<String, FormatError> {
    let Some(v) = v else {
        return Ok(String::new());
    };
    if v.is_null() {
        return Ok(String::new());
    }
    if let Some(s) = v.as_str() {
        return Ok(s.into_owned());
    }
    match list(v) {
        Some(parts) => Ok(parts
            .iter()
            .filter_map(|p| p.str_field("text").map(Cow::into_owned))
            .collect::<Vec<_>>()
            .join("\n")),
        None => Err(FormatError::new(
            crate::text::concat(path, ".content"),
            "must be a string or a list of parts",
        )),
    }
}

/// A tool message: a user message holding its one `tool_result`.
pub(crate) fn tool_message(id: String, content: ToolResultContent, is_error: Option<bool>) -> One {
    let result = Block::ToolResult {
        tool_use_id: id,
        content,
        is_error,
        extra: Extra::new(),
    };
    One::blocks(Role::User, vec![(result, At::Whole)])
}

/// Whether a message the engine wrote has text (a string, or a text block).
pub(crate) fn has_text(content: &Content) -> bool {
    matches!(content, Content::Text(_)) || content.blocks().iter().any(|b| matches!(b, Block::Text { .. }))
}
