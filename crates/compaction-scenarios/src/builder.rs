//! Writing a session: prompts, replies, tool calls with their results,
//! usage, calls and idle time, each message with a deterministic uuid.

use std::sync::Arc;

use serde_json::json;

use compaction_core::message::{Block, Content, Extra, Json, Message, Role, ToolResultContent};
use compaction_core::time::Timestamp;

use crate::Event;

pub(crate) fn at(minute: i64) -> Timestamp {
    Timestamp::from_unix_ms(1_796_000_000_000 + minute * 60_000)
}

/// A session under construction.
pub(crate) struct Builder {
    events: Vec<Event>,
    n: usize,
    minute: i64,
}

impl Builder {
    pub(crate) fn new() -> Self {
        Builder {
            events: Vec::new(),
            n: 0,
            minute: 0,
        }
    }

    pub(crate) fn id(&mut self, kind: &str) -> String {
        self.n += 1;
        format!("{kind}-{:04}", self.n)
    }

    pub(crate) fn prompt(&mut self, text: &str) -> &mut Self {
        let id = self.id("user");
        self.events.push(Event::Append(Arc::new(Message::user(id, text))));
        self
    }

    /// Pins the message appended last (extension).
    pub(crate) fn pin_last(&mut self) -> &mut Self {
        if let Some(Event::Append(m)) = self.events.iter().rev().find(|e| matches!(e, Event::Append(_))) {
            let uuid = m.uuid.clone();
            self.events.push(Event::Pin(uuid));
        }
        self
    }

    pub(crate) fn say(&mut self, text: &str) -> &mut Self {
        let id = self.id("assistant");
        let mut m = Message::assistant(id, text);
        m.timestamp = Some(at(self.minute));
        self.events.push(Event::Append(Arc::new(m)));
        self
    }

    /// An assistant tool call and its result of `chars` characters.
    pub(crate) fn tool(&mut self, name: &str, path: &str, chars: usize) -> &mut Self {
        let body: String = format!("{name} {path}\n").repeat(chars / (name.len() + path.len() + 2) + 1);
        self.tool_text(name, path, body.chars().take(chars).collect())
    }

    /// An assistant tool call on `path` and its result, `text`.
    pub(crate) fn tool_text(&mut self, name: &str, path: &str, text: String) -> &mut Self {
        let call_id = self.id("assistant");
        let tool_id = format!("toolu_{:04}", self.n);
        let mut call = Message::new(
            call_id,
            Role::Assistant,
            Content::Blocks(vec![Block::ToolUse {
                id: tool_id.clone(),
                name: name.to_owned(),
                input: Json::from_value(&json!({ "file_path": path })),
                extra: Default::default(),
            }]),
        );
        call.timestamp = Some(at(self.minute));
        let result_id = self.id("user");
        let result = Message::new(
            result_id,
            Role::User,
            Content::Blocks(vec![Block::ToolResult {
                tool_use_id: tool_id,
                content: ToolResultContent::Text(text),
                is_error: None,
                extra: Default::default(),
            }]),
        );
        self.events.push(Event::Append(Arc::new(call)));
        self.events.push(Event::Append(Arc::new(result)));
        self.minute += 1;
        self
    }

    /// Opens the assistant message appended last with a signed `thinking`
    /// block (its reasoning `text`, a signature made from its uuid), as a
    /// model with extended thinking replies.
    pub(crate) fn think(&mut self, text: &str) -> &mut Self {
        self.open_last_reply(|uuid| {
            let mut extra = Extra::new();
            extra.insert(
                "signature".into(),
                Json::from_value(&json!(format!("EqQBCkYIBxgCKkD{uuid}"))),
            );
            Block::Thinking {
                thinking: text.to_owned(),
                extra,
            }
        })
    }

    /// Opens the assistant message appended last with a
    /// `redacted_thinking` block (encrypted reasoning, signed like any
    /// thinking block).
    pub(crate) fn redacted(&mut self) -> &mut Self {
        self.open_last_reply(|uuid| {
            let mut extra = Extra::new();
            extra.insert(
                "data".into(),
                Json::from_value(&json!(format!("EmwKAhgBEgy{uuid}RedactedReasoning"))),
            );
            Block::Other {
                kind: "redacted_thinking".to_owned(),
                extra,
            }
        })
    }

    fn open_last_reply(&mut self, block: impl FnOnce(&str) -> Block) -> &mut Self {
        if let Some(Event::Append(m)) = self
            .events
            .iter_mut()
            .rev()
            .find(|e| matches!(e, Event::Append(m) if m.role == Role::Assistant))
        {
            let m = Arc::make_mut(m);
            let first = block(&m.uuid.0);
            let rest = match std::mem::replace(&mut m.content, Content::Blocks(Vec::new())) {
                Content::Text(text) => vec![Block::text(text)],
                Content::Blocks(blocks) => blocks,
            };
            m.content = Content::Blocks(std::iter::once(first).chain(rest).collect());
        }
        self
    }

    pub(crate) fn call(&mut self) -> &mut Self {
        self.events.push(Event::Call(Some(at(self.minute))));
        self
    }

    pub(crate) fn idle(&mut self, minutes: i64) -> &mut Self {
        self.minute += minutes;
        self
    }

    pub(crate) fn event(&mut self, e: Event) -> &mut Self {
        self.events.push(e);
        self
    }

    /// The index the next event will have.
    pub(crate) fn at(&self) -> usize {
        self.events.len()
    }

    pub(crate) fn done(&mut self) -> Vec<Event> {
        std::mem::take(&mut self.events)
    }
}
