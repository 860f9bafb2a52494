//! The Vercel AI SDK's `ModelMessage` (`system`, `user`, `assistant`,
//! `tool`): `tool-call` parts become `tool_use` blocks, `tool-result` parts
//! of a `tool` message `tool_result` blocks (joined by `toolCallId`).
//! Reasoning signed for Anthropic (`providerOptions.anthropic.signature` or
//! `redactedData`) is thinking (R13.1 applies); other reasoning, approvals,
//! provider-executed calls, files and custom parts are opaque blocks.

use super::{
    image, input_json, list, obj, object, opaque, result_text, str_at, string, to_json, At, FormatError, One,
};
use crate::message::{Block, Content, Extra, Json, Message, Role, ToolResultContent};

/// One `ModelMessage`.
pub(super) fn read(v: &Extra, path: &str) -> Result<One, FormatError> {
    let role = str_at(v, "role", path)?;
    let content = v.get("content");
    let cpath = crate::text::concat(path, ".content");
    match &*role {
        "system" => match content.and_then(Json::as_str) {
            Some(s) => Ok(One::text(Role::System, s.into_owned())),
            None => Err(FormatError::new(
                cpath,
                "a system message's content must be a string",
            )),
        },
        "user" | "assistant" => {
            let role = if role == "user" {
                Role::User
            } else {
                Role::Assistant
            };
            if let Some(s) = content.and_then(Json::as_str) {
                return Ok(One::text(role, s.into_owned()));
            }
            let parts = content
                .and_then(list)
                .ok_or_else(|| FormatError::new(&cpath, "must be a string or a list of parts"))?;
            let mut out = Vec::with_capacity(parts.len());
            for (i, p) in parts.iter().enumerate() {
                out.push((part(p, role, &format!("{cpath}[{i}]"))?, At::Part(i)));
            }
            Ok(One::blocks(role, out))
        }
        "tool" => {
            let parts = content.and_then(list).ok_or_else(|| {
                FormatError::new(&cpath, "a tool message's content must be a list of parts")
            })?;
            let mut out = Vec::with_capacity(parts.len());
            for (i, p) in parts.iter().enumerate() {
                let at = format!("{cpath}[{i}]");
                let o = object(p, &at)?;
                let block = match &*str_at(&o, "type", &at)? {
                    "tool-result" => tool_result(&o, &at)?,
                    other => opaque(other, &o),
                };
                out.push((block, At::Part(i)));
            }
            Ok(One::blocks(Role::User, out))
        }
        other => Err(FormatError::new(
            crate::text::concat(path, ".role"),
            crate::text::concat3(
                "`",
                other,
                "` is not a ModelMessage role (system, user, assistant, tool)",
            ),
        )),
    }
}

fn part(p: &Json, role: Role, path: &str) -> Result<Block, FormatError> {
    let o = object(p, path)?;
    let kind = str_at(&o, "type", path)?;
    Ok(match &*kind {
        "text" => Block::text(str_at(&o, "text", path)?),
        "image" => image(p),
        "reasoning" => {
            let text = str_at(&o, "text", path)?;
            let anthropic = o
                .get("providerOptions")
                .and_then(|po| po.field::<Json>("anthropic"));
            let signature = anthropic.as_ref().and_then(|a| a.str_field("signature"));
            match signature {
                Some(sig) => Block::Thinking {
                    thinking: text.into_owned(),
                    extra: std::iter::once(("signature".to_owned(), string(&sig))).collect(),
                },
                None if anthropic
                    .as_ref()
                    .and_then(|a| a.field::<Json>("redactedData"))
                    .is_some() =>
                {
                    opaque("redacted_thinking", &o)
                }
                None => opaque("reasoning", &o),
            }
        }
        "tool-call" if role == Role::Assistant && o.bool_field("providerExecuted") != Some(true) => {
            Block::ToolUse {
                id: str_at(&o, "toolCallId", path)?.into_owned(),
                name: str_at(&o, "toolName", path)?.into_owned(),
                input: input_json(o.get("input")),
                extra: Extra::new(),
            }
        }
        // Provider-executed calls and their results sit in one assistant
        // message: kept or dropped with it.
        other => opaque(other, &o),
    })
}

fn tool_result(o: &Extra, path: &str) -> Result<Block, FormatError> {
    let id = str_at(o, "toolCallId", path)?.into_owned();
    let opath = crate::text::concat(path, ".output");
    let output = object(
        o.get("output")
            .ok_or_else(|| FormatError::new(&opath, "is missing"))?,
        &opath,
    )?;
    let kind = str_at(&output, "type", &opath)?;
    let text = |v: Option<&Json>| match v {
        Some(v) => v
            .as_str()
            .map(|s| s.into_owned())
            .unwrap_or_else(|| v.text().to_owned()),
        None => String::new(),
    };
    let value = output.get("value");
    let (content, is_error) = match &*kind {
        "text" | "json" => (ToolResultContent::Text(text(value)), None),
        "error-text" | "error-json" => (ToolResultContent::Text(text(value)), Some(true)),
        "execution-denied" => (
            ToolResultContent::Text(
                output
                    .str_field("reason")
                    .map_or_else(|| "Tool execution denied.".to_owned(), |r| r.into_owned()),
            ),
            Some(true),
        ),
        "content" => {
            let parts = value.and_then(list).unwrap_or_default();
            let blocks = parts
                .iter()
                .map(|c| match c.str_field("type").as_deref() {
                    Some("text") => Block::text(c.str_field("text").unwrap_or_default()),
                    Some(k) if k.starts_with("image") => image(c),
                    Some(k) => opaque(k, &object(c, path).unwrap_or_default()),
                    None => opaque("content", &object(c, path).unwrap_or_default()),
                })
                .collect();
            (ToolResultContent::Blocks(blocks), None)
        }
        other => (
            ToolResultContent::Text(text(value)),
            other.starts_with("error").then_some(true),
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
pub(super) fn set_output(part: &mut Extra, text: String, is_error: bool) {
    let was = part
        .get("output")
        .and_then(|o| o.str_field("type").map(|t| t.into_owned()))
        .unwrap_or_default();
    let parsed = Json::parse(&text).ok();
    let output = match (was.as_str(), parsed, is_error) {
        ("json", Some(v), _) => obj([("type", string("json")), ("value", v)]),
        ("error-json", Some(v), _) => obj([("type", string("error-json")), ("value", v)]),
        ("error-json", None, _) | (_, _, true) => {
            obj([("type", string("error-text")), ("value", string(&text))])
        }
        _ => obj([("type", string("text")), ("value", string(&text))]),
    };
    part.insert("output".to_owned(), output);
}

/// A message the engine wrote, as `ModelMessage`s: tool results go to a
/// `tool` message of their own.
pub(super) fn fresh(m: &Message) -> Vec<Json> {
    let role = string(m.role.as_str());
    let blocks = match &m.content {
        Content::Text(t) => return vec![obj([("role", role), ("content", string(t))])],
        Content::Blocks(b) => b,
    };
    if m.role == Role::System {
        return vec![obj([
            ("role", role),
            ("content", string(&super::content_text(&m.content))),
        ])];
    }
    let (mut parts, mut results) = (Vec::new(), Vec::new());
    for b in blocks {
        match b {
            Block::Text { text, .. } => parts.push(obj([("type", string("text")), ("text", string(text))])),
            Block::Thinking { thinking, .. } => {
                parts.push(obj([("type", string("reasoning")), ("text", string(thinking))]))
            }
            Block::ToolUse { id, name, input, .. } => parts.push(obj([
                ("type", string("tool-call")),
                ("toolCallId", string(id)),
                ("toolName", string(name)),
                ("input", input.clone()),
            ])),
            Block::ToolResult {
                tool_use_id,
                content,
                is_error,
                ..
            } => {
                let mut part: Extra = [
                    ("type".to_owned(), string("tool-result")),
                    ("toolCallId".to_owned(), string(tool_use_id)),
                    ("toolName".to_owned(), string("")),
                ]
                .into_iter()
                .collect();
                set_output(&mut part, result_text(content), is_error.unwrap_or(false));
                results.push(to_json(&part));
            }
            // Opaque and image blocks the engine writes itself do not occur.
            _ => {}
        }
    }
    let mut out = Vec::new();
    if !results.is_empty() {
        out.push(obj([
            ("role", string("tool")),
            ("content", super::array(results)),
        ]));
    }
    if !parts.is_empty() || out.is_empty() {
        out.push(obj([("role", role), ("content", super::array(parts))]));
    }
    out
}
