//! OpenAI Chat Completions messages (`system`, `developer`, `user`,
//! `assistant` with `tool_calls`, `tool` with `tool_call_id`; `content`
//! may be `null`): each `tool_calls` entry is a `tool_use` block, each
//! `tool` message a user message holding its `tool_result`.

use serde_json::Value;

use super::{image, input_json, object, opaque, result_text, str_at, text_of, At, FormatError, One};
use crate::message::{Block, Content, Extra, Message, Role, ToolResultContent};

/// One Chat Completions message.
pub(super) fn read(v: &Value, path: &str) -> Result<One, FormatError> {
    let role = str_at(v, "role", path)?;
    let content = v.get("content");
    match role {
        "system" | "developer" => Ok(One::text(Role::System, text_of(content, path)?)),
        "user" => match content {
            Some(Value::String(s)) => Ok(One::text(Role::User, s.clone())),
            Some(Value::Array(parts)) => {
                let mut out = Vec::with_capacity(parts.len());
                for (i, p) in parts.iter().enumerate() {
                    let at = format!("{path}.content[{i}]");
                    let block = match str_at(p, "type", &at)? {
                        "text" => Block::text(str_at(p, "text", &at)?),
                        "image_url" => image(p),
                        other => opaque(other, p),
                    };
                    out.push((block, At::Part(i)));
                }
                Ok(One::blocks(Role::User, out))
            }
            _ => Err(FormatError::new(
                format!("{path}.content"),
                "must be a string or a list of parts",
            )),
        },
        "assistant" => {
            let mut out = Vec::new();
            match content {
                Some(Value::String(s)) if !s.is_empty() => out.push((Block::text(s.as_str()), At::Fixed)),
                Some(Value::String(_)) | Some(Value::Null) | None => {}
                Some(Value::Array(parts)) => {
                    for (i, p) in parts.iter().enumerate() {
                        let at = format!("{path}.content[{i}]");
                        let block = match str_at(p, "type", &at)? {
                            "text" => Block::text(str_at(p, "text", &at)?),
                            other => opaque(other, p),
                        };
                        out.push((block, At::Part(i)));
                    }
                }
                Some(_) => {
                    return Err(FormatError::new(
                        format!("{path}.content"),
                        "must be a string, a list of parts or null",
                    ))
                }
            }
            match v.get("tool_calls") {
                None | Some(Value::Null) => {}
                Some(Value::Array(calls)) => {
                    for (i, c) in calls.iter().enumerate() {
                        let at = format!("{path}.tool_calls[{i}]");
                        let id = str_at(c, "id", &at)?.to_owned();
                        // `function` calls, or `custom` ones (free-form input).
                        let (name, input) = match (c.get("function"), c.get("custom")) {
                            (Some(f), _) => {
                                (str_at(f, "name", &format!("{at}.function"))?, f.get("arguments"))
                            }
                            (None, Some(f)) => (str_at(f, "name", &format!("{at}.custom"))?, f.get("input")),
                            (None, None) => {
                                return Err(FormatError::new(format!("{at}.function"), "is missing"))
                            }
                        };
                        out.push((
                            Block::ToolUse {
                                id,
                                name: name.to_owned(),
                                input: input_json(input),
                                extra: Extra::new(),
                            },
                            At::Call(i),
                        ));
                    }
                }
                Some(_) => return Err(FormatError::new(format!("{path}.tool_calls"), "must be a list")),
            }
            if out.len() == 1 && out[0].1 == At::Fixed {
                return Ok(One::text(Role::Assistant, text_of(content, path)?));
            }
            Ok(One::blocks(Role::Assistant, out))
        }
        "tool" => {
            let id = str_at(v, "tool_call_id", path)?.to_owned();
            let text = text_of(content, path)?;
            Ok(One::blocks(
                Role::User,
                vec![(
                    Block::ToolResult {
                        tool_use_id: id,
                        content: ToolResultContent::Text(text),
                        is_error: None,
                        extra: Extra::new(),
                    },
                    At::Whole,
                )],
            ))
        }
        other => Err(FormatError::new(
            format!("{path}.role"),
            format!("`{other}` is not a Chat Completions role (system, developer, user, assistant, tool)"),
        )),
    }
}

/// A message the engine wrote, as Chat Completions messages: each tool
/// result a `tool` message of its own, first.
pub(super) fn fresh(m: &Message) -> Vec<Value> {
    let text = super::content_text(&m.content);
    match m.role {
        Role::System => vec![object([("role", "system".into()), ("content", text.into())])],
        Role::User => {
            let mut out: Vec<Value> = m
                .content
                .blocks()
                .iter()
                .filter_map(|b| match b {
                    Block::ToolResult {
                        tool_use_id, content, ..
                    } => Some(object([
                        ("role", "tool".into()),
                        ("tool_call_id", tool_use_id.clone().into()),
                        ("content", result_text(content).into()),
                    ])),
                    _ => None,
                })
                .collect();
            let has_text = matches!(m.content, Content::Text(_))
                || m.content.blocks().iter().any(|b| matches!(b, Block::Text { .. }));
            if has_text || out.is_empty() {
                out.push(object([("role", "user".into()), ("content", text.into())]));
            }
            out
        }
        Role::Assistant => {
            let calls: Vec<Value> = m
                .content
                .blocks()
                .iter()
                .filter_map(|b| match b {
                    Block::ToolUse { id, name, input, .. } => Some(object([
                        ("id", id.clone().into()),
                        ("type", "function".into()),
                        (
                            "function",
                            object([("name", name.clone().into()), ("arguments", input.text().into())]),
                        ),
                    ])),
                    _ => None,
                })
                .collect();
            let content = if text.is_empty() && !calls.is_empty() {
                Value::Null
            } else {
                text.into()
            };
            let mut msg = object([("role", "assistant".into()), ("content", content)]);
            if !calls.is_empty() {
                if let Some(o) = msg.as_object_mut() {
                    o.insert("tool_calls".into(), Value::Array(calls));
                }
            }
            vec![msg]
        }
    }
}
