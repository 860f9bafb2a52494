//! The context breakdown (SPEC R3.3), like Claude Code's `/context`: where
//! the tokens of a view go.

use serde::Serialize;

use crate::message::{Block, Content, Role};
use crate::view::{Source, View};

/// Estimated tokens per kind of content in a view.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Breakdown {
    /// The system prompt and tool definitions the host sends, and
    /// mid-conversation system messages (R13.3).
    pub system: u64,
    /// User prompts (text, images).
    pub user_messages: u64,
    /// Assistant text and thinking.
    pub assistant_messages: u64,
    /// `tool_use` blocks (names and inputs).
    pub tool_uses: u64,
    /// `tool_result` blocks.
    pub tool_results: u64,
    /// Compaction summaries and collapsed segments.
    pub summaries: u64,
    /// Material restored after a compaction.
    pub attachments: u64,
    /// All of the above.
    pub total: u64,
}

impl Breakdown {
    /// The breakdown of `view`, with `system_tokens` for the system prompt.
    pub fn of(view: &View, system_tokens: u64) -> Self {
        let e = view.estimator();
        let mut b = Breakdown {
            system: system_tokens,
            ..Breakdown::default()
        };
        for entry in view.entries() {
            match entry.source {
                Source::Summary { .. } | Source::Collapse { .. } => b.summaries += entry.tokens,
                Source::Attachment => b.attachments += entry.tokens,
                Source::Stored => match &entry.message.content {
                    Content::Text(text) => match entry.message.role {
                        Role::User => b.user_messages += e.text(text),
                        Role::Assistant => b.assistant_messages += e.text(text),
                        // Mid-conversation system messages (R13.3) are
                        // system text, where the caller put it.
                        Role::System => b.system += e.text(text),
                    },
                    Content::Blocks(blocks) => {
                        for block in blocks {
                            let tokens = e.block(block);
                            match (block, entry.message.role) {
                                (Block::ToolUse { .. }, _) => b.tool_uses += tokens,
                                (Block::ToolResult { .. }, _) => b.tool_results += tokens,
                                (_, Role::User) => b.user_messages += tokens,
                                (_, Role::Assistant) => b.assistant_messages += tokens,
                                (_, Role::System) => b.system += tokens,
                            }
                        }
                    }
                },
            }
        }
        b.total = b.system
            + b.user_messages
            + b.assistant_messages
            + b.tool_uses
            + b.tool_results
            + b.summaries
            + b.attachments;
        b
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::{Message, ToolResultContent};
    use crate::tokens::Estimator;
    use serde_json::json;
    use std::sync::Arc;

    #[test]
    fn each_kind_is_counted_once_and_the_total_is_the_views_estimate() {
        let mut v = View::new(Estimator::default());
        v.push(
            Arc::new(Message::user("u", "x".repeat(40))),
            Source::Stored,
            vec![],
        );
        let call = Message::new(
            "a",
            Role::Assistant,
            Content::Blocks(vec![
                Block::text("y".repeat(8)),
                Block::ToolUse {
                    id: "t".into(),
                    name: "Read".into(),
                    input: crate::message::Json::from_value(&json!({})),
                    extra: Default::default(),
                },
            ]),
        );
        v.push(Arc::new(call), Source::Stored, vec![]);
        let result = Message::new(
            "r",
            Role::User,
            Content::Blocks(vec![Block::ToolResult {
                tool_use_id: "t".into(),
                content: ToolResultContent::Text("z".repeat(400)),
                is_error: None,
                extra: Default::default(),
            }]),
        );
        v.push(Arc::new(result), Source::Stored, vec![]);
        v.push(
            Arc::new(Message::user("s", "s".repeat(80))),
            Source::Summary { replaces: vec![] },
            vec![],
        );
        let b = Breakdown::of(&v, 7);
        assert_eq!(
            (
                b.system,
                b.user_messages,
                b.assistant_messages,
                b.tool_uses,
                b.tool_results,
                b.summaries
            ),
            (7, 10, 2, 2, 100, 20)
        );
        assert_eq!(b.total, 7 + v.estimate());
    }
}
