//! `Serialize` for [`Block`]: `type` and the fields its kind types first,
//! in the order the API writes them (`type`, `id`, `name`, `input`; `type`,
//! `tool_use_id`, `content`, `is_error`…), then `extra` in the order it came.
//! A block the API or an SDK wrote comes out as it went in, byte for byte.

use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};

use super::{Block, Json, ToolResultContent};

/// A typed field's value, borrowed.
enum Field<'a> {
    Str(&'a str),
    Json(&'a Json),
    Blocks(&'a [Block]),
    Bool(bool),
}

impl Serialize for Field<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Field::Str(s) => serializer.serialize_str(s),
            Field::Json(v) => v.serialize(serializer),
            Field::Bool(b) => serializer.serialize_bool(*b),
            Field::Blocks(blocks) => {
                let mut seq = serializer.serialize_seq(Some(blocks.len()))?;
                for b in *blocks {
                    seq.serialize_element(b)?;
                }
                seq.end()
            }
        }
    }
}

impl Serialize for Block {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut typed: [(&str, Option<Field>); 4] = [
            ("type", Some(Field::Str(self.kind()))),
            ("", None),
            ("", None),
            ("", None),
        ];
        let extra = match self {
            Block::Text { text, extra } => {
                typed[1] = ("text", Some(Field::Str(text)));
                extra
            }
            Block::ToolUse {
                id,
                name,
                input,
                extra,
            } => {
                typed[1] = ("id", Some(Field::Str(id)));
                typed[2] = ("name", Some(Field::Str(name)));
                typed[3] = ("input", Some(Field::Json(input)));
                extra
            }
            Block::ToolResult {
                tool_use_id,
                content,
                is_error,
                extra,
            } => {
                typed[1] = ("tool_use_id", Some(Field::Str(tool_use_id)));
                match content {
                    ToolResultContent::Absent => {}
                    ToolResultContent::Text(s) => typed[2] = ("content", Some(Field::Str(s))),
                    ToolResultContent::Blocks(b) => typed[2] = ("content", Some(Field::Blocks(b))),
                }
                if let Some(is_error) = is_error {
                    typed[3] = ("is_error", Some(Field::Bool(*is_error)));
                }
                extra
            }
            Block::Thinking { thinking, extra } => {
                typed[1] = ("thinking", Some(Field::Str(thinking)));
                extra
            }
            Block::Image { extra } | Block::Other { extra, .. } => extra,
        };
        // A key in `extra` that is also a typed field (only a block built in
        // code can have one) is left out: the typed value is the one the
        // engine worked with.
        let is_typed = |key: &str| typed.iter().any(|(k, v)| v.is_some() && *k == key);
        let mut map = serializer.serialize_map(None)?;
        for (key, value) in &typed {
            if let Some(value) = value {
                map.serialize_entry(key, value)?;
            }
        }
        for (key, value) in extra.iter() {
            if !is_typed(key) {
                map.serialize_entry(key, value)?;
            }
        }
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use crate::message::{Block, Extra, Json, Message};

    #[test]
    fn blocks_come_out_as_the_api_writes_them() {
        // Typed fields in the API's order, then the rest in the order given.
        let text = r#"{"uuid":"u","role":"user","content":[{"type":"text","text":"hi","cache_control":{"type":"ephemeral"},"zz":2,"a":1},{"type":"tool_use","id":"t","name":"Read","input":{"z":[1,"x"],"a":2.50},"caller":null},{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"x"},{"type":"image","source":{}}],"is_error":true,"b":0},{"type":"tool_result","tool_use_id":"t2","content":"plain"},{"type":"tool_result","tool_use_id":"t3"},{"type":"thinking","thinking":"hmm","signature":"s"},{"type":"redacted_thinking","data":"xyz","aaa":true},{"type":"image","source":{"type":"url"}}]}"#;
        let m: Message = serde_json::from_str(text).unwrap();
        assert_eq!(serde_json::to_string(&m).unwrap(), text);
    }

    #[test]
    fn a_typed_field_wins_over_the_same_key_in_extra() {
        let mut extra = Extra::new();
        extra.insert("text".into(), Json::parse(r#""from extra""#).unwrap());
        extra.insert("a".into(), Json::parse("1").unwrap());
        let block = Block::Text {
            text: "typed".into(),
            extra,
        };
        assert_eq!(
            serde_json::to_string(&block).unwrap(),
            r#"{"type":"text","text":"typed","a":1}"#
        );
    }
}
