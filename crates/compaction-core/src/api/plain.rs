//! A summary request's messages for the plain Messages API (R13.3, R13.2):
//! a host sends them with `client.messages.create`, with no beta, where a
//! `role: "system"` message, a `compaction` block or a tool change is
//! refused. What they say still reaches the summariser.

use crate::message::{Block, Content, Message, Role};

/// The user message put first when a summary request's messages would
/// otherwise start with the model's: a prefix cut at a legal group (R7.5's
/// truncation, a collapse segment) can, and the API refuses a first
/// message that is not the user's ("messages: first message must use the
/// \"user\" role").
pub const LEFT_OUT: &str = "[Earlier messages of this conversation are left out of this request.]";

/// `messages` as the plain API takes them: a mid-conversation system
/// message becomes a user message with its text (its `clear_at` and
/// `output_config` only steer the live request); a `compaction` block
/// becomes a text block with its summary (`content`); `tool_addition` /
/// `tool_removal` blocks are left out. A message left with no block (and
/// so no `tool_use`) is left out. When the first message is the
/// assistant's, a user message saying so ([`LEFT_OUT`]) goes first.
pub(crate) fn plain(messages: Vec<Message>) -> Vec<Message> {
    let mut out: Vec<Message> = messages.into_iter().filter_map(plain_message).collect();
    if out.first().is_some_and(|m| m.role == Role::Assistant) {
        out.insert(
            0,
            Message::new("left-out", Role::User, Content::Text(LEFT_OUT.into())),
        );
    }
    out
}

fn plain_message(mut m: Message) -> Option<Message> {
    if m.role == Role::System {
        m.role = Role::User;
        m.extra.remove("clear_at");
        m.extra.remove("output_config");
    }
    if let Content::Blocks(blocks) = &mut m.content {
        let before = blocks.len();
        let mut out = Vec::with_capacity(before);
        for b in blocks.drain(..) {
            match b.kind() {
                "compaction" => {
                    let text = match &b {
                        Block::Other { extra, .. } => extra.str_field("content").map(|s| s.into_owned()),
                        _ => None,
                    };
                    if let Some(text) = text.filter(|t| !t.is_empty()) {
                        out.push(Block::text(text));
                    }
                }
                "tool_addition" | "tool_removal" => {}
                _ => out.push(b),
            }
        }
        *blocks = out;
        if blocks.is_empty() && before > 0 {
            return None;
        }
    }
    Some(m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::{Extra, Json};

    #[test]
    fn the_first_message_is_always_the_users() {
        let reply = Message::new("a", Role::Assistant, Content::Text("Done 27.".into()));
        let next = Message::new("u", Role::User, Content::Text("Task 28".into()));
        let out = plain(vec![reply.clone(), next.clone()]);
        assert_eq!(out.len(), 3);
        assert_eq!(out[0].role, Role::User);
        assert_eq!(out[0].content, Content::Text(LEFT_OUT.into()));
        assert_eq!(out[1..], [reply.clone(), next.clone()]);
        // A user-first list is left as it is.
        assert_eq!(plain(vec![next.clone(), reply.clone()]), vec![next, reply]);
        assert!(plain(Vec::new()).is_empty());
    }

    #[test]
    fn system_messages_compaction_blocks_and_tool_changes_become_plain() {
        let mut system = Message::new("s", Role::System, Content::Text("be brief".into()));
        system
            .extra
            .insert("clear_at".into(), Json::from_value(&serde_json::json!("never")));
        let mut extra = Extra::new();
        extra.insert(
            "content".into(),
            Json::from_value(&serde_json::json!("earlier: fixed f1")),
        );
        extra.insert(
            "encrypted_content".into(),
            Json::from_value(&serde_json::json!("xyz")),
        );
        let compaction = Message::new(
            "c",
            Role::Assistant,
            Content::Blocks(vec![Block::Other {
                kind: "compaction".into(),
                extra,
            }]),
        );
        let tools = Message::new(
            "t",
            Role::System,
            Content::Blocks(vec![Block::Other {
                kind: "tool_addition".into(),
                extra: Extra::new(),
            }]),
        );
        let out = plain(vec![system, compaction, tools, Message::user("u", "go on")]);
        assert_eq!(out.len(), 3);
        assert_eq!(out[0].role, Role::User);
        assert!(out[0].extra.get("clear_at").is_none());
        assert_eq!(out[1].content.blocks(), &[Block::text("earlier: fixed f1")]);
        assert_eq!(out[2].uuid.as_str(), "u");
    }
}
