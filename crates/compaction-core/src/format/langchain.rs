//! LangChain's stored messages (`{type, data}`, as
//! `mapChatMessagesToStoredMessages` writes them): `ai` messages' `tool_calls`
//! are `tool_use` blocks, `tool` messages (`tool_call_id`) user messages
//! holding their `tool_result`. Anthropic-style content blocks keep their
//! meaning (`thinking` with its signature); a `tool_use` content block
//! duplicates a `tool_calls` entry and stays opaque.

use super::{
    image, input_json, is, list, obj, object, opaque, result_text, str_at, string, text_of, tool_message, At,
    FormatError, One,
};
use crate::message::{Block, Extra, Json, Message, Role, ToolResultContent};

/// One stored message.
pub(super) fn read(v: &Extra, path: &str) -> Result<One, FormatError> {
    let kind = str_at(v, "type", path)?;
    let dpath = crate::text::concat(path, ".data");
    let data = object(
        v.get("data")
            .ok_or_else(|| FormatError::new(&dpath, "is missing"))?,
        &dpath,
    )?;
    let content = data.get("content");
    match &*kind {
        "system" => Ok(One::text(Role::System, text_of(content, &dpath)?)),
        "human" | "generic" | "ai" => {
            let role = if kind == "ai" || (kind == "generic" && is(&data, "role", "assistant")) {
                Role::Assistant
            } else {
                Role::User
            };
            let mut out = Vec::new();
            match content {
                None => {}
                Some(c) if c.is_null() => {}
                Some(c) => match (c.as_str(), list(c)) {
                    (Some(s), _) if role == Role::User => return Ok(One::text(role, s.into_owned())),
                    (Some(s), _) => {
                        if !s.is_empty() {
                            out.push((Block::text(s), At::Fixed));
                        }
                    }
                    (None, Some(parts)) => {
                        for (i, p) in parts.iter().enumerate() {
                            out.push((part(p, &format!("{dpath}.content[{i}]"))?, At::Part(i)));
                        }
                    }
                    (None, None) => {
                        return Err(FormatError::new(
                            crate::text::concat(&dpath, ".content"),
                            "must be a string or a list of content blocks",
                        ))
                    }
                },
            }
            if role == Role::Assistant {
                if let Some(calls) = data.get("tool_calls").and_then(list) {
                    for (i, c) in calls.iter().enumerate() {
                        let at = format!("{dpath}.tool_calls[{i}]");
                        let c = object(c, &at)?;
                        out.push((
                            Block::ToolUse {
                                id: str_at(&c, "id", &at)?.into_owned(),
                                name: str_at(&c, "name", &at)?.into_owned(),
                                input: input_json(c.get("args")),
                                extra: Extra::new(),
                            },
                            At::Call(i),
                        ));
                    }
                }
            }
            let mut one = if role == Role::Assistant && out.len() == 1 && out[0].1 == At::Fixed {
                One::text(role, text_of(content, &dpath)?)
            } else {
                One::blocks(role, out)
            };
            // An `ai` message's own usage, as the Anthropic API's reply carries it.
            if role == Role::Assistant {
                if let Some(u) = data.get("usage_metadata").filter(|u| !u.is_null()) {
                    one.usage = super::read_usage(
                        super::Format::LangChain,
                        u.text(),
                        &crate::text::concat(&dpath, ".usage_metadata"),
                    )?;
                }
            }
            Ok(one)
        }
        "tool" => {
            let id = str_at(&data, "tool_call_id", &dpath)?.into_owned();
            let content = match content.and_then(list) {
                Some(parts) => ToolResultContent::Blocks(
                    parts
                        .iter()
                        .enumerate()
                        .map(|(i, p)| part(p, &format!("{dpath}.content[{i}]")))
                        .collect::<Result<_, _>>()?,
                ),
                None => ToolResultContent::Text(text_of(content, &dpath)?),
            };
            Ok(tool_message(
                id,
                content,
                is(&data, "status", "error").then_some(true),
            ))
        }
        other => Err(FormatError::new(
            crate::text::concat(path, ".type"),
            crate::text::concat3(
                "`",
                other,
                "` is not a stored message type (human, ai, system, tool, generic)",
            ),
        )),
    }
}

fn part(p: &Json, path: &str) -> Result<Block, FormatError> {
    if let Some(s) = p.as_str() {
        return Ok(Block::text(s));
    }
    let o = object(p, path)?;
    let kind = str_at(&o, "type", path)?;
    Ok(match &*kind {
        "text" => Block::text(o.str_field("text").unwrap_or_default()),
        "thinking" => Block::Thinking {
            thinking: o.str_field("thinking").unwrap_or_default().into_owned(),
            extra: o
                .get("signature")
                .map(|s| ("signature".to_owned(), s.clone()))
                .into_iter()
                .collect(),
        },
        "redacted_thinking" => opaque("redacted_thinking", &o),
        "image_url" | "image" => image(p),
        // A `tool_use` block repeats a `tool_calls` entry: the entry pairs.
        "tool_use" => opaque("langchain_tool_use", &o),
        other => opaque(other, &o),
    })
}

/// A message the engine wrote, as stored messages.
pub(super) fn fresh(m: &Message) -> Vec<Json> {
    let text = super::content_text(&m.content);
    let stored = |kind: &str, data: Json| obj([("type", string(kind)), ("data", data)]);
    match m.role {
        Role::System => vec![stored("system", obj([("content", string(&text))]))],
        Role::User => {
            let mut out: Vec<Json> = m
                .content
                .blocks()
                .iter()
                .filter_map(|b| match b {
                    Block::ToolResult {
                        tool_use_id, content, ..
                    } => Some(stored(
                        "tool",
                        obj([
                            ("content", string(&result_text(content))),
                            ("tool_call_id", string(tool_use_id)),
                        ]),
                    )),
                    _ => None,
                })
                .collect();
            if out.is_empty() || !text.is_empty() {
                out.push(stored("human", obj([("content", string(&text))])));
            }
            out
        }
        Role::Assistant => {
            let calls: Vec<Json> = m
                .content
                .blocks()
                .iter()
                .filter_map(|b| match b {
                    Block::ToolUse { id, name, input, .. } => Some(obj([
                        ("name", string(name)),
                        ("args", input.clone()),
                        ("id", string(id)),
                        ("type", string("tool_call")),
                    ])),
                    _ => None,
                })
                .collect();
            vec![stored(
                "ai",
                obj([("content", string(&text)), ("tool_calls", super::array(calls))]),
            )]
        }
    }
}
