//! The summary of Tier 4 (SPEC R7.3, R7.4): the prompt that asks for it, the
//! parser that reads the reply, an offline summariser that writes a reply
//! without a model, and a retention check (extension) on the result.
//!
//! The engine never calls a model. A host sends [`summary_prompt`] (appended
//! to the prefix as a synthetic user message, R7.1) and passes the reply to
//! [`parse_summary`]. A host without a model (the sandbox, a test, a host
//! that opted in to the fallback, R7.10) uses [`offline_summary`] instead;
//! its reply has the model's format, so the same parser reads it.
//! [`check_retention`] then lists the user prompts and edited files the
//! summary lost; a [`RetentionReport`] in [`PromptOptions::retry`] asks the
//! model for them again.
//!
//! ```
//! use compaction_core::message::Message;
//! use compaction_core::summary::{check_retention, offline_summary, parse_summary, PromptOptions};
//!
//! let history = [
//!     Message::user("u1", "Explain what /compact keeps."),
//!     Message::assistant("a1", "It keeps a summary and the recent groups."),
//! ];
//! let reply = offline_summary(&history, &PromptOptions::default());
//! let summary = parse_summary(&reply)?;
//! assert!(summary.starts_with("Summary:\n1. Primary Request and Intent:"));
//! assert!(check_retention(&summary, &history).is_complete());
//! # Ok::<(), compaction_core::Error>(())
//! ```

use std::borrow::Cow;

use crate::message::{Block, Content, Message, Role, ToolResultContent};

pub mod emphasis;
pub mod offline;
pub mod parser;
pub mod prompt;
pub mod retention;

pub use offline::{offline_summary, offline_summary_with, OfflineLimits};
pub use parser::parse_summary;
pub use prompt::{summary_prompt, PromptOptions, SECTIONS, SEED_VERBATIM_LINES};
pub use retention::{check_retention, MissingPrompt, RetentionReport, RETAINED_PROMPT_CHARS};

/// Tools whose `tool_use` input names a file that was read or searched
/// (Claude Code's FileRead, Grep, Glob).
pub const READ_TOOLS: [&str; 3] = ["Read", "Grep", "Glob"];

/// Tools whose `tool_use` input names a file that was written or edited
/// (Claude Code's FileEdit, FileWrite, MultiEdit, NotebookEdit).
pub const EDIT_TOOLS: [&str; 4] = ["Edit", "Write", "MultiEdit", "NotebookEdit"];

/// The `tool_use` input keys that hold a file path, in the order they are read.
pub const PATH_KEYS: [&str; 3] = ["file_path", "path", "notebook_path"];

/// How a tool touched a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FileUse {
    /// Read or searched ([`READ_TOOLS`]).
    Read,
    /// Written or edited ([`EDIT_TOOLS`]).
    Edited,
}

/// The file paths a `tool_use` block names, with how its tool used them.
/// Non-string and empty values are skipped; other tools name none.
pub(crate) fn file_paths(block: &Block) -> Option<(FileUse, Vec<Cow<'_, str>>)> {
    let Block::ToolUse { name, input, .. } = block else {
        return None;
    };
    let kind = if READ_TOOLS.contains(&name.as_str()) {
        FileUse::Read
    } else if EDIT_TOOLS.contains(&name.as_str()) {
        FileUse::Edited
    } else {
        return None;
    };
    let paths = PATH_KEYS
        .iter()
        .filter_map(|key| input.str_field(key).filter(|path| !path.is_empty()))
        .collect();
    Some((kind, paths))
}

/// The text of a real user prompt: its text blocks joined by newlines (a
/// plain-string content is the text). `None` for any other message.
pub(crate) fn user_prompt_text(message: &Message) -> Option<String> {
    if !message.is_user_prompt() {
        return None;
    }
    Some(content_text(&message.content))
}

/// The text of an assistant message (its text blocks joined by newlines),
/// `None` for other roles.
pub(crate) fn assistant_text(message: &Message) -> Option<String> {
    (message.role == Role::Assistant).then(|| content_text(&message.content))
}

/// Text blocks joined by newlines; thinking, tool and image blocks are not
/// text the user or the model wrote to each other.
fn content_text(content: &Content) -> String {
    match content {
        Content::Text(text) => text.clone(),
        Content::Blocks(blocks) => join_text_blocks(blocks),
    }
}

/// The text of a `tool_result`'s content.
pub(crate) fn tool_result_text(content: &ToolResultContent) -> String {
    match content {
        ToolResultContent::Absent => String::new(),
        ToolResultContent::Text(text) => text.clone(),
        ToolResultContent::Blocks(blocks) => join_text_blocks(blocks),
    }
}

fn join_text_blocks(blocks: &[Block]) -> String {
    // A loop, not `Vec<&str>::join`: the module's only `join` over `&str`
    // would compile a second copy of `join` (the `String` one stays).
    let mut out = String::new();
    let texts = blocks.iter().filter_map(|b| match b {
        Block::Text { text, .. } => Some(text.as_str()),
        _ => None,
    });
    for (i, text) in texts.enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(text);
    }
    out
}

/// At most `max_chars` characters of `text`, cut on a character boundary;
/// a cut ends with the marker ` ...[N chars removed]` (N characters).
pub(crate) fn truncate_chars(text: &str, max_chars: usize) -> String {
    match text.char_indices().nth(max_chars) {
        None => text.to_owned(),
        Some((cut, _)) => {
            let removed = text[cut..].chars().count();
            format!("{} ...[{removed} chars removed]", &text[..cut])
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn text_blocks_join_as_join_would() {
        let text = |t: &str| Block::Text {
            text: t.into(),
            extra: Default::default(),
        };
        let other = Block::ToolUse {
            id: "t".into(),
            name: "Read".into(),
            input: crate::message::Json::from_value(&json!({})),
            extra: Default::default(),
        };
        for texts in [
            vec![],
            vec![""],
            vec!["a"],
            vec!["", "b", ""],
            vec!["a", "b\n", "c"],
        ] {
            let mut blocks = vec![other.clone()];
            for t in &texts {
                blocks.extend([text(t), other.clone()]);
            }
            assert_eq!(join_text_blocks(&blocks), texts.join("\n"));
        }
    }

    #[test]
    fn truncation_counts_characters_not_bytes() {
        assert_eq!(truncate_chars("abc", 3), "abc");
        assert_eq!(truncate_chars("日本語です", 2), "日本 ...[3 chars removed]");
        assert_eq!(truncate_chars("😀😀", 0), " ...[2 chars removed]");
    }

    #[test]
    fn file_paths_come_from_known_tools_and_keys_only() {
        let block = |name: &str, input: serde_json::Value| Block::ToolUse {
            id: "t".into(),
            name: name.into(),
            input: crate::message::Json::from_value(&input),
            extra: Default::default(),
        };
        assert_eq!(
            file_paths(&block("Edit", json!({"file_path": "a.rs"}))),
            Some((FileUse::Edited, vec![Cow::from("a.rs")]))
        );
        assert_eq!(
            file_paths(&block("Grep", json!({"pattern": "x", "path": "src"}))),
            Some((FileUse::Read, vec![Cow::from("src")]))
        );
        assert_eq!(
            file_paths(&block("Write", json!({"file_path": 7, "path": ""}))),
            Some((FileUse::Edited, vec![]))
        );
        assert_eq!(file_paths(&block("Bash", json!({"path": "a"}))), None);
        assert_eq!(
            file_paths(&block("Read", json!("not an object"))),
            Some((FileUse::Read, vec![]))
        );
    }
}
