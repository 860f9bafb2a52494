//! OpenAI Responses input items. Consecutive items of the model's side
//! (assistant `message`s, `reasoning`, `function_call` and the other calls)
//! make one assistant message, so a reasoning item never leaves the call it
//! precedes; consecutive outputs (`function_call_output` and every other
//! `*_output` joined by `call_id`) make one user message of tool results.
//! Calls and outputs pair by `call_id`. `reasoning` (with its
//! `encrypted_content`), server tool calls and approvals are opaque blocks;
//! a `compaction` item is a message of its own holding a `compaction`
//! block, so it starts the view like an Anthropic compaction block (R13.2).

use serde_json::Value;

use super::{
    converted, image, input_json, object, opaque, result_text, str_at, text_of, At, Converted, FormatError,
    Loc,
};
use crate::message::{Block, Content, Extra, Message, Role, ToolResultContent};

/// Which message an item belongs to.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    /// A `system` / `developer` message: one message each.
    System,
    /// A user message: one message each.
    User,
    /// Tool outputs, grouped.
    Outputs,
    /// The model's items, grouped.
    Model,
    /// A `compaction` item: one message each.
    Compaction,
}

fn side(v: &Value, path: &str) -> Result<Side, FormatError> {
    let kind = v.get("type").and_then(Value::as_str);
    Ok(match kind {
        Some("message") | None => match str_at(v, "role", path)? {
            "system" | "developer" => Side::System,
            "user" => Side::User,
            "assistant" => Side::Model,
            other => {
                return Err(FormatError::new(
                    format!("{path}.role"),
                    format!("`{other}` is not a Responses message role (user, assistant, system, developer)"),
                ))
            }
        },
        Some("compaction") => Side::Compaction,
        Some("mcp_approval_response") => Side::Outputs,
        Some(k) if k.ends_with("_output") && v.get("call_id").is_some() => Side::Outputs,
        Some(_) => Side::Model,
    })
}

/// The items, grouped into messages.
pub(super) fn read(values: &[Value], name: &dyn Fn(usize) -> String) -> Result<Vec<Converted>, FormatError> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < values.len() {
        let s = side(&values[i], &name(i))?;
        let mut end = i + 1;
        if matches!(s, Side::Outputs | Side::Model) {
            while end < values.len() && side(&values[end], &name(end))? == s {
                end += 1;
            }
        }
        let mut parts = Vec::new();
        for (k, v) in values[i..end].iter().enumerate() {
            for (block, at) in blocks(v, &name(i + k))? {
                parts.push((block, Loc { item: k, at }));
            }
        }
        let role = match s {
            Side::System => Role::System,
            Side::User | Side::Outputs => Role::User,
            Side::Model | Side::Compaction => Role::Assistant,
        };
        let mut c = converted(role, i, end - i, parts);
        // A plain-text message reads as text (a system prompt, a prompt).
        if let (Side::System | Side::User, Some(Value::String(text))) = (s, values[i].get("content")) {
            c.content = Content::Text(text.clone());
            c.locs.clear();
        }
        out.push(c);
        i = end;
    }
    Ok(out)
}

fn blocks(v: &Value, path: &str) -> Result<Vec<(Block, At)>, FormatError> {
    let kind = v.get("type").and_then(Value::as_str).unwrap_or("message");
    let block = match kind {
        "message" => {
            return match v.get("content") {
                Some(Value::String(s)) => Ok(vec![(Block::text(s.as_str()), At::Fixed)]),
                Some(Value::Array(parts)) => {
                    let mut out = Vec::with_capacity(parts.len());
                    for (i, p) in parts.iter().enumerate() {
                        let at = format!("{path}.content[{i}]");
                        let block = match str_at(p, "type", &at)? {
                            "input_text" | "output_text" => Block::text(str_at(p, "text", &at)?),
                            "input_image" => image(p),
                            other => opaque(other, p),
                        };
                        out.push((block, At::Part(i)));
                    }
                    Ok(out)
                }
                _ => Err(FormatError::new(
                    format!("{path}.content"),
                    "must be a string or a list of parts",
                )),
            };
        }
        "compaction" => {
            str_at(v, "encrypted_content", path)?;
            opaque("compaction", v)
        }
        _ if v.get("call_id").is_some() => {
            let id = str_at(v, "call_id", path)?.to_owned();
            if kind.ends_with("_output") {
                let content = match v.get("output") {
                    Some(Value::Array(parts)) => ToolResultContent::Blocks(
                        parts
                            .iter()
                            .map(|p| match p.get("type").and_then(Value::as_str) {
                                Some("input_text") | Some("output_text") => {
                                    Block::text(p.get("text").and_then(Value::as_str).unwrap_or_default())
                                }
                                Some("input_image") | Some("computer_screenshot") => image(p),
                                Some(k) => opaque(k, p),
                                None => opaque("output", p),
                            })
                            .collect(),
                    ),
                    Some(Value::Object(_)) => ToolResultContent::Blocks(vec![image(&v["output"])]),
                    other => ToolResultContent::Text(text_of(other, path)?),
                };
                Block::ToolResult {
                    tool_use_id: id,
                    content,
                    is_error: None,
                    extra: Extra::new(),
                }
            } else {
                let name = v.get("name").and_then(Value::as_str).unwrap_or(kind).to_owned();
                let input = v
                    .get("arguments")
                    .or_else(|| v.get("input"))
                    .or_else(|| v.get("action"));
                Block::ToolUse {
                    id,
                    name,
                    input: input_json(input),
                    extra: Extra::new(),
                }
            }
        }
        other => opaque(other, v),
    };
    Ok(vec![(block, At::Whole)])
}

/// A message the engine wrote, as Responses items.
pub(super) fn fresh(m: &Message) -> Vec<Value> {
    let text = super::content_text(&m.content);
    let message = |role: &str, text: String| {
        object([
            ("type", "message".into()),
            ("role", role.into()),
            ("content", text.into()),
        ])
    };
    match m.role {
        Role::System => vec![message("system", text)],
        Role::User | Role::Assistant => {
            let mut out = Vec::new();
            for b in m.content.blocks() {
                match b {
                    Block::ToolResult {
                        tool_use_id, content, ..
                    } => out.push(object([
                        ("type", "function_call_output".into()),
                        ("call_id", tool_use_id.clone().into()),
                        ("output", result_text(content).into()),
                    ])),
                    Block::ToolUse { id, name, input, .. } => out.push(object([
                        ("type", "function_call".into()),
                        ("call_id", id.clone().into()),
                        ("name", name.clone().into()),
                        ("arguments", input.text().into()),
                    ])),
                    _ => {}
                }
            }
            let has_text = matches!(m.content, Content::Text(_))
                || m.content.blocks().iter().any(|b| matches!(b, Block::Text { .. }));
            if has_text || out.is_empty() {
                // Text first, as the model wrote it before its calls.
                out.insert(0, message(m.role.as_str(), text));
            }
            out
        }
    }
}
