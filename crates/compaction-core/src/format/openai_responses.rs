//! OpenAI Responses input items. Consecutive items of the model's side
//! (assistant `message`s, `reasoning`, `function_call` and the other calls)
//! make one assistant message, so a reasoning item never leaves the call it
//! precedes; consecutive outputs (`function_call_output` and every other
//! `*_output` joined by `call_id`) make one user message of tool results.
//! Calls and outputs pair by `call_id`. `reasoning` (with its
//! `encrypted_content`), server tool calls and approvals are opaque blocks;
//! a `compaction` item is a message of its own holding a `compaction`
//! block, so it starts the view like an Anthropic compaction block (R13.2).

use super::{
    converted, has_text, image, input_json, list, obj, object, opaque, result_text, str_at, string, text_of,
    At, Converted, FormatError, Loc,
};
use crate::message::{Block, Content, Extra, Json, Message, Role, ToolResultContent};

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

fn side(v: &Extra, path: &str) -> Result<Side, FormatError> {
    let kind = v.str_field("type");
    Ok(match kind.as_deref() {
        Some("message") | None => match &*str_at(v, "role", path)? {
            "system" | "developer" => Side::System,
            "user" => Side::User,
            "assistant" => Side::Model,
            other => {
                return Err(FormatError::new(
                    crate::text::concat(path, ".role"),
                    crate::text::concat3(
                        "`",
                        other,
                        "` is not a Responses message role (user, assistant, system, developer)",
                    ),
                ))
            }
        },
        Some("compaction") => Side::Compaction,
        Some("mcp_approval_response") => Side::Outputs,
        Some(k) if k.ends_with("_output") && v.contains_key("call_id") => Side::Outputs,
        Some(_) => Side::Model,
    })
}

/// The items, grouped into messages.
pub(super) fn read(values: &[Extra], name: &dyn Fn(usize) -> String) -> Result<Vec<Converted>, FormatError> {
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
        if let (Side::System | Side::User, Some(text)) = (s, values[i].str_field("content")) {
            c.content = Content::Text(text.into_owned());
            c.locs.clear();
        }
        out.push(c);
        i = end;
    }
    Ok(out)
}

fn blocks(v: &Extra, path: &str) -> Result<Vec<(Block, At)>, FormatError> {
    let kind = v
        .str_field("type")
        .map_or_else(|| "message".to_owned(), |k| k.into_owned());
    let block = match kind.as_str() {
        "message" => {
            let cpath = crate::text::concat(path, ".content");
            let content = v.get("content");
            if let Some(s) = content.and_then(Json::as_str) {
                return Ok(vec![(Block::text(s), At::Fixed)]);
            }
            let parts = content
                .and_then(list)
                .ok_or_else(|| FormatError::new(&cpath, "must be a string or a list of parts"))?;
            let mut out = Vec::with_capacity(parts.len());
            for (i, p) in parts.iter().enumerate() {
                let at = format!("{cpath}[{i}]");
                let o = object(p, &at)?;
                let block = match &*str_at(&o, "type", &at)? {
                    "input_text" | "output_text" => Block::text(str_at(&o, "text", &at)?),
                    "input_image" => image(p),
                    other => opaque(other, &o),
                };
                out.push((block, At::Part(i)));
            }
            return Ok(out);
        }
        "compaction" => {
            str_at(v, "encrypted_content", path)?;
            opaque("compaction", v)
        }
        k if v.contains_key("call_id") => {
            let id = str_at(v, "call_id", path)?.into_owned();
            if k.ends_with("_output") {
                let output = v.get("output");
                let content = match output.and_then(list) {
                    Some(parts) => ToolResultContent::Blocks(
                        parts
                            .iter()
                            .map(|p| match p.str_field("type").as_deref() {
                                Some("input_text") | Some("output_text") => {
                                    Block::text(p.str_field("text").unwrap_or_default())
                                }
                                Some("input_image") | Some("computer_screenshot") => image(p),
                                Some(t) => opaque(t, &object(p, path).unwrap_or_default()),
                                None => opaque("output", &object(p, path).unwrap_or_default()),
                            })
                            .collect(),
                    ),
                    None => match output {
                        Some(o) if o.is_object() => ToolResultContent::Blocks(vec![image(o)]),
                        other => ToolResultContent::Text(text_of(other, path)?),
                    },
                };
                Block::ToolResult {
                    tool_use_id: id,
                    content,
                    is_error: None,
                    extra: Extra::new(),
                }
            } else {
                let name = v
                    .str_field("name")
                    .map_or_else(|| k.to_owned(), |n| n.into_owned());
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
pub(super) fn fresh(m: &Message) -> Vec<Json> {
    let text = super::content_text(&m.content);
    let message = |role: &str, text: &str| {
        obj([
            ("type", string("message")),
            ("role", string(role)),
            ("content", string(text)),
        ])
    };
    if m.role == Role::System {
        return vec![message("system", &text)];
    }
    let mut out = Vec::new();
    for b in m.content.blocks() {
        match b {
            Block::ToolResult {
                tool_use_id, content, ..
            } => out.push(obj([
                ("type", string("function_call_output")),
                ("call_id", string(tool_use_id)),
                ("output", string(&result_text(content))),
            ])),
            Block::ToolUse { id, name, input, .. } => out.push(obj([
                ("type", string("function_call")),
                ("call_id", string(id)),
                ("name", string(name)),
                ("arguments", string(input.text())),
            ])),
            _ => {}
        }
    }
    if has_text(&m.content) || out.is_empty() {
        // Text first, as the model wrote it before its calls.
        out.insert(0, message(m.role.as_str(), &text));
    }
    out
}
