//! LangChain's stored messages (`{type, data}`, as
//! `mapChatMessagesToStoredMessages` writes them): `ai` messages' `tool_calls`
//! are `tool_use` blocks, `tool` messages (`tool_call_id`) user messages
//! holding their `tool_result`. Anthropic-style content blocks keep their
//! meaning (`thinking` with its signature); a `tool_use` content block
//! duplicates a `tool_calls` entry and stays opaque.

use serde_json::Value;

use super::{image, input_json, object, opaque, result_text, str_at, text_of, At, FormatError, One};
use crate::message::{Block, Extra, Json, Message, Role, ToolResultContent};

/// One stored message.
pub(super) fn read(v: &Value, path: &str) -> Result<One, FormatError> {
    let kind = str_at(v, "type", path)?;
    let data = v
        .get("data")
        .filter(|d| d.is_object())
        .ok_or_else(|| FormatError::new(format!("{path}.data"), "must be an object"))?;
    let dpath = format!("{path}.data");
    let content = data.get("content");
    match kind {
        "system" => Ok(One::text(Role::System, text_of(content, &dpath)?)),
        "human" | "generic" | "ai" => {
            let role = match kind {
                "ai" => Role::Assistant,
                "generic" if data.get("role").and_then(Value::as_str) == Some("assistant") => Role::Assistant,
                _ => Role::User,
            };
            let mut out = Vec::new();
            match content {
                Some(Value::String(s)) if role == Role::User => return Ok(One::text(role, s.clone())),
                Some(Value::String(s)) => {
                    if !s.is_empty() {
                        out.push((Block::text(s.as_str()), At::Fixed));
                    }
                }
                Some(Value::Array(parts)) => {
                    for (i, p) in parts.iter().enumerate() {
                        out.push((part(p, &format!("{dpath}.content[{i}]"))?, At::Part(i)));
                    }
                }
                Some(Value::Null) | None => {}
                Some(_) => {
                    return Err(FormatError::new(
                        format!("{dpath}.content"),
                        "must be a string or a list of content blocks",
                    ))
                }
            }
            if role == Role::Assistant {
                if let Some(calls) = data.get("tool_calls").and_then(Value::as_array) {
                    for (i, c) in calls.iter().enumerate() {
                        let at = format!("{dpath}.tool_calls[{i}]");
                        out.push((
                            Block::ToolUse {
                                id: str_at(c, "id", &at)?.to_owned(),
                                name: str_at(c, "name", &at)?.to_owned(),
                                input: input_json(c.get("args")),
                                extra: Extra::new(),
                            },
                            At::Call(i),
                        ));
                    }
                }
                if out.len() == 1 && out[0].1 == At::Fixed {
                    return Ok(One::text(role, text_of(content, &dpath)?));
                }
            }
            Ok(One::blocks(role, out))
        }
        "tool" => {
            let id = str_at(data, "tool_call_id", &dpath)?.to_owned();
            let content = match content {
                Some(Value::Array(parts)) => ToolResultContent::Blocks(
                    parts
                        .iter()
                        .enumerate()
                        .map(|(i, p)| part(p, &format!("{dpath}.content[{i}]")))
                        .collect::<Result<_, _>>()?,
                ),
                other => ToolResultContent::Text(text_of(other, &dpath)?),
            };
            let is_error = (data.get("status").and_then(Value::as_str) == Some("error")).then_some(true);
            Ok(One::blocks(
                Role::User,
                vec![(
                    Block::ToolResult {
                        tool_use_id: id,
                        content,
                        is_error,
                        extra: Extra::new(),
                    },
                    At::Whole,
                )],
            ))
        }
        other => Err(FormatError::new(
            format!("{path}.type"),
            format!("`{other}` is not a stored message type (human, ai, system, tool, generic)"),
        )),
    }
}

fn part(p: &Value, path: &str) -> Result<Block, FormatError> {
    if let Value::String(s) = p {
        return Ok(Block::text(s.as_str()));
    }
    let kind = str_at(p, "type", path)?;
    Ok(match kind {
        "text" => Block::text(p.get("text").and_then(Value::as_str).unwrap_or_default()),
        "thinking" => Block::Thinking {
            thinking: p
                .get("thinking")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
            extra: p
                .get("signature")
                .map(|s| ("signature".to_owned(), Json::from_value(s)))
                .into_iter()
                .collect(),
        },
        "redacted_thinking" => opaque("redacted_thinking", p),
        "image_url" | "image" => image(p),
        // A `tool_use` block repeats a `tool_calls` entry: the entry pairs.
        "tool_use" => opaque("langchain_tool_use", p),
        other => opaque(other, p),
    })
}

/// A message the engine wrote, as stored messages.
pub(super) fn fresh(m: &Message) -> Vec<Value> {
    let text = super::content_text(&m.content);
    let stored = |kind: &str, data: Value| object([("type", kind.into()), ("data", data)]);
    match m.role {
        Role::System => vec![stored("system", object([("content", text.into())]))],
        Role::User => {
            let mut out: Vec<Value> = m
                .content
                .blocks()
                .iter()
                .filter_map(|b| match b {
                    Block::ToolResult {
                        tool_use_id, content, ..
                    } => Some(stored(
                        "tool",
                        object([
                            ("content", result_text(content).into()),
                            ("tool_call_id", tool_use_id.clone().into()),
                        ]),
                    )),
                    _ => None,
                })
                .collect();
            if out.is_empty() || !text.is_empty() {
                out.push(stored("human", object([("content", text.into())])));
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
                        ("name", name.clone().into()),
                        ("args", serde_json::from_str(input.text()).unwrap_or(Value::Null)),
                        ("id", id.clone().into()),
                        ("type", "tool_call".into()),
                    ])),
                    _ => None,
                })
                .collect();
            vec![stored(
                "ai",
                object([("content", text.into()), ("tool_calls", Value::Array(calls))]),
            )]
        }
    }
}
