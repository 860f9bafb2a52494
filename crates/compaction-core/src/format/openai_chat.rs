//! OpenAI Chat Completions messages (`system`, `developer`, `user`,
//! `assistant` with `tool_calls`, `tool` with `tool_call_id`; `content`
//! may be `null`): each `tool_calls` entry is a `tool_use` block, each
//! `tool` message a user message holding its `tool_result`.

use super::{
    has_text, image, input_json, list, obj, object, opaque, result_text, str_at, string, text_of,
    tool_message, At, FormatError, One,
};
use crate::message::{Block, Extra, Json, Message, Role, ToolResultContent};

/// One Chat Completions message.
pub(super) fn read(v: &Extra, path: &str) -> Result<One, FormatError> {
    let role = str_at(v, "role", path)?;
    let content = v.get("content");
    let cpath = crate::text::concat(path, ".content");
    match &*role {
        "system" | "developer" => Ok(One::text(Role::System, text_of(content, path)?)),
        "user" => {
            if let Some(s) = content.and_then(Json::as_str) {
                return Ok(One::text(Role::User, s.into_owned()));
            }
            let parts = content
                .and_then(list)
                .ok_or_else(|| FormatError::new(&cpath, "must be a string or a list of parts"))?;
            let mut out = Vec::with_capacity(parts.len());
            for (i, p) in parts.iter().enumerate() {
                let at = format!("{cpath}[{i}]");
                let o = object(p, &at)?;
                let block = match &*str_at(&o, "type", &at)? {
                    "text" => Block::text(str_at(&o, "text", &at)?),
                    "image_url" => image(p),
                    other => opaque(other, &o),
                };
                out.push((block, At::Part(i)));
            }
            Ok(One::blocks(Role::User, out))
        }
        "assistant" => {
            let mut out = Vec::new();
            match content {
                None => {}
                Some(c) if c.is_null() => {}
                Some(c) => match (c.as_str(), list(c)) {
                    (Some(s), _) => {
                        if !s.is_empty() {
                            out.push((Block::text(s), At::Fixed));
                        }
                    }
                    (None, Some(parts)) => {
                        for (i, p) in parts.iter().enumerate() {
                            let at = format!("{cpath}[{i}]");
                            let o = object(p, &at)?;
                            let block = match &*str_at(&o, "type", &at)? {
                                "text" => Block::text(str_at(&o, "text", &at)?),
                                other => opaque(other, &o),
                            };
                            out.push((block, At::Part(i)));
                        }
                    }
                    (None, None) => {
                        return Err(FormatError::new(
                            cpath,
                            "must be a string, a list of parts or null",
                        ))
                    }
                },
            }
            if let Some(calls) = v.get("tool_calls").filter(|c| !c.is_null()) {
                let calls = list(calls).ok_or_else(|| {
                    FormatError::new(crate::text::concat(path, ".tool_calls"), "must be a list")
                })?;
                for (i, c) in calls.iter().enumerate() {
                    let at = format!("{path}.tool_calls[{i}]");
                    let c = object(c, &at)?;
                    let id = str_at(&c, "id", &at)?.into_owned();
                    // `function` calls, or `custom` ones (free-form input).
                    let (name, input) = match (c.get("function"), c.get("custom")) {
                        (Some(f), _) => {
                            let f = object(f, &crate::text::concat(&at, ".function"))?;
                            (
                                str_at(&f, "name", &crate::text::concat(&at, ".function"))?.into_owned(),
                                input_json(f.get("arguments")),
                            )
                        }
                        (None, Some(f)) => {
                            let f = object(f, &crate::text::concat(&at, ".custom"))?;
                            (
                                str_at(&f, "name", &crate::text::concat(&at, ".custom"))?.into_owned(),
                                input_json(f.get("input")),
                            )
                        }
                        (None, None) => {
                            return Err(FormatError::new(
                                crate::text::concat(&at, ".function"),
                                "is missing",
                            ))
                        }
                    };
                    out.push((
                        Block::ToolUse {
                            id,
                            name,
                            input,
                            extra: Extra::new(),
                        },
                        At::Call(i),
                    ));
                }
            }
            if out.len() == 1 && out[0].1 == At::Fixed {
                return Ok(One::text(Role::Assistant, text_of(content, path)?));
            }
            Ok(One::blocks(Role::Assistant, out))
        }
        "tool" => {
            let id = str_at(v, "tool_call_id", path)?.into_owned();
            let text = text_of(content, path)?;
            Ok(tool_message(id, ToolResultContent::Text(text), None))
        }
        other => Err(FormatError::new(
            crate::text::concat(path, ".role"),
            crate::text::concat3(
                "`",
                other,
                "` is not a Chat Completions role (system, developer, user, assistant, tool)",
            ),
        )),
    }
}

/// A message the engine wrote, as Chat Completions messages: each tool
/// result a `tool` message of its own, first.
pub(super) fn fresh(m: &Message) -> Vec<Json> {
    let text = super::content_text(&m.content);
    match m.role {
        Role::System => vec![obj([("role", string("system")), ("content", string(&text))])],
        Role::User => {
            let mut out: Vec<Json> = m
                .content
                .blocks()
                .iter()
                .filter_map(|b| match b {
                    Block::ToolResult {
                        tool_use_id, content, ..
                    } => Some(obj([
                        ("role", string("tool")),
                        ("tool_call_id", string(tool_use_id)),
                        ("content", string(&result_text(content))),
                    ])),
                    _ => None,
                })
                .collect();
            if has_text(&m.content) || out.is_empty() {
                out.push(obj([("role", string("user")), ("content", string(&text))]));
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
                        ("id", string(id)),
                        ("type", string("function")),
                        (
                            "function",
                            obj([("name", string(name)), ("arguments", string(input.text()))]),
                        ),
                    ])),
                    _ => None,
                })
                .collect();
            let content = if text.is_empty() && !calls.is_empty() {
                Json::null()
            } else {
                string(&text)
            };
            if calls.is_empty() {
                vec![obj([("role", string("assistant")), ("content", content)])]
            } else {
                vec![obj([
                    ("role", string("assistant")),
                    ("content", content),
                    ("tool_calls", super::array(calls)),
                ])]
            }
        }
    }
}
