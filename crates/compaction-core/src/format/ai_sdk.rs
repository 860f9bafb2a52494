//! The Vercel AI SDK's `ModelMessage` (`system`, `user`, `assistant`,
//! `tool`): `tool-call` parts become `tool_use` blocks, `tool-result` parts
//! of a `tool` message `tool_result` blocks (joined by `toolCallId`).
//! Reasoning signed for Anthropic (`providerOptions.anthropic.signature` or
//! `redactedData`) is thinking (R13.1 applies); other reasoning, approvals,
//! provider-executed calls, files and custom parts are opaque blocks.

use serde_json::Value;

use super::{image, input_json, object, opaque, result_text, str_at, At, FormatError, One};
use crate::message::{Block, Content, Extra, Json, Message, Role, ToolResultContent};

/// One `ModelMessage`.
pub(super) fn read(v: &Value, path: &str) -> Result<One, FormatError> {
    let role = str_at(v, "role", path)?;
    let content = v.get("content");
    match role {
        "system" => match content {
            Some(Value::String(s)) => Ok(One::text(Role::System, s.clone())),
            _ => Err(FormatError::new(
                format!("{path}.content"),
                "a system message's content must be a string",
            )),
        },
        "user" | "assistant" => {
            let role = if role == "user" {
                Role::User
            } else {
                Role::Assistant
            };
            match content {
                Some(Value::String(s)) => Ok(One::text(role, s.clone())),
                Some(Value::Array(parts)) => {
                    let mut out = Vec::with_capacity(parts.len());
                    for (i, p) in parts.iter().enumerate() {
                        out.push((part(p, role, &format!("{path}.content[{i}]"))?, At::Part(i)));
                    }
                    Ok(One::blocks(role, out))
                }
                _ => Err(FormatError::new(
                    format!("{path}.content"),
                    "must be a string or a list of parts",
                )),
            }
        }
        "tool" => {
            let Some(Value::Array(parts)) = content else {
                return Err(FormatError::new(
                    format!("{path}.content"),
                    "a tool message's content must be a list of parts",
                ));
            };
            let mut out = Vec::with_capacity(parts.len());
            for (i, p) in parts.iter().enumerate() {
                let at = format!("{path}.content[{i}]");
                let block = match str_at(p, "type", &at)? {
                    "tool-result" => tool_result(p, &at)?,
                    other => opaque(other, p),
                };
                out.push((block, At::Part(i)));
            }
            Ok(One::blocks(Role::User, out))
        }
        other => Err(FormatError::new(
            format!("{path}.role"),
            format!("`{other}` is not a ModelMessage role (system, user, assistant, tool)"),
        )),
    }
}

fn part(p: &Value, role: Role, path: &str) -> Result<Block, FormatError> {
    let kind = str_at(p, "type", path)?;
    Ok(match kind {
        "text" => Block::text(str_at(p, "text", path)?),
        "image" => image(p),
        "reasoning" => {
            let text = str_at(p, "text", path)?;
            let anthropic = p.pointer("/providerOptions/anthropic");
            match anthropic.and_then(|a| a.get("signature")).and_then(Value::as_str) {
                Some(sig) => Block::Thinking {
                    thinking: text.to_owned(),
                    extra: std::iter::once((
                        "signature".to_owned(),
                        Json::from_value(&Value::String(sig.into())),
                    ))
                    .collect(),
                },
                None if anthropic.and_then(|a| a.get("redactedData")).is_some() => {
                    opaque("redacted_thinking", p)
                }
                None => opaque("reasoning", p),
            }
        }
        "tool-call" if role == Role::Assistant && p.get("providerExecuted") != Some(&Value::Bool(true)) => {
            Block::ToolUse {
                id: str_at(p, "toolCallId", path)?.to_owned(),
                name: str_at(p, "toolName", path)?.to_owned(),
                input: input_json(p.get("input")),
                extra: Extra::new(),
            }
        }
        // Provider-executed calls and their results sit in one assistant
        // message: kept or dropped with it.
        other => opaque(other, p),
    })
}

fn tool_result(p: &Value, path: &str) -> Result<Block, FormatError> {
    let id = str_at(p, "toolCallId", path)?.to_owned();
    let output = p
        .get("output")
        .ok_or_else(|| FormatError::new(format!("{path}.output"), "is missing"))?;
    let kind = str_at(output, "type", &format!("{path}.output"))?;
    let value = output.get("value");
    let text = |v: Option<&Value>| match v {
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
        None => String::new(),
    };
    let (content, is_error) = match kind {
        "text" | "json" => (ToolResultContent::Text(text(value)), None),
        "error-text" | "error-json" => (ToolResultContent::Text(text(value)), Some(true)),
        "execution-denied" => (
            ToolResultContent::Text(match output.get("reason").and_then(Value::as_str) {
                Some(reason) => reason.to_owned(),
                None => "Tool execution denied.".to_owned(),
            }),
            Some(true),
        ),
        "content" => {
            let parts = value.and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]);
            let blocks = parts
                .iter()
                .map(|c| match c.get("type").and_then(Value::as_str) {
                    Some("text") => Block::text(c.get("text").and_then(Value::as_str).unwrap_or_default()),
                    Some(k) if k.starts_with("image") => image(c),
                    Some(k) => opaque(k, c),
                    None => opaque("content", c),
                })
                .collect();
            (ToolResultContent::Blocks(blocks), None)
        }
        other => (
            ToolResultContent::Text(text(value)),
            Some(other.starts_with("error")).filter(|e| *e),
        ),
    };
    Ok(Block::ToolResult {
        tool_use_id: id,
        content,
        is_error,
        extra: Extra::new(),
    })
}

/// A rewritten result into a `tool-result` part: its output keeps its kind
/// where the new text still is one (JSON that parses stays `json`).
pub(super) fn set_output(part: &mut Value, text: String, is_error: bool) -> Option<Value> {
    let was = part
        .pointer("/output/type")
        .and_then(Value::as_str)
        .unwrap_or("text");
    let parsed = || serde_json::from_str::<Value>(&text).ok();
    let output = match (was, is_error) {
        ("json", _) => match parsed() {
            Some(v) => object([("type", "json".into()), ("value", v)]),
            None => object([("type", "text".into()), ("value", text.into())]),
        },
        ("error-json", _) => match parsed() {
            Some(v) => object([("type", "error-json".into()), ("value", v)]),
            None => object([("type", "error-text".into()), ("value", text.into())]),
        },
        (_, true) => object([("type", "error-text".into()), ("value", text.into())]),
        _ => object([("type", "text".into()), ("value", text.into())]),
    };
    part.as_object_mut()?.insert("output".into(), output)
}

/// A message the engine wrote, as `ModelMessage`s: tool results go to a
/// `tool` message of their own.
pub(super) fn fresh(m: &Message) -> Vec<Value> {
    let role = m.role.as_str();
    let blocks = match &m.content {
        Content::Text(t) => return vec![object([("role", role.into()), ("content", t.clone().into())])],
        Content::Blocks(b) => b,
    };
    if m.role == Role::System {
        return vec![object([
            ("role", "system".into()),
            ("content", super::content_text(&m.content).into()),
        ])];
    }
    let (mut parts, mut results) = (Vec::new(), Vec::new());
    for b in blocks {
        match b {
            Block::Text { text, .. } => {
                parts.push(object([("type", "text".into()), ("text", text.clone().into())]))
            }
            Block::Thinking { thinking, .. } => parts.push(object([
                ("type", "reasoning".into()),
                ("text", thinking.clone().into()),
            ])),
            Block::ToolUse { id, name, input, .. } => parts.push(object([
                ("type", "tool-call".into()),
                ("toolCallId", id.clone().into()),
                ("toolName", name.clone().into()),
                ("input", serde_json::from_str(input.text()).unwrap_or(Value::Null)),
            ])),
            Block::ToolResult {
                tool_use_id,
                content,
                is_error,
                ..
            } => {
                let mut part = object([
                    ("type", "tool-result".into()),
                    ("toolCallId", tool_use_id.clone().into()),
                    ("toolName", "".into()),
                ]);
                set_output(&mut part, result_text(content), is_error.unwrap_or(false));
                results.push(part);
            }
            // Opaque and image blocks the engine wrote itself do not occur;
            // their text, if any, is kept as text.
            _ => {}
        }
    }
    let mut out = Vec::new();
    if !results.is_empty() {
        out.push(object([
            ("role", "tool".into()),
            ("content", Value::Array(results)),
        ]));
    }
    if !parts.is_empty() || out.is_empty() {
        out.push(object([("role", role.into()), ("content", Value::Array(parts))]));
    }
    out
}
