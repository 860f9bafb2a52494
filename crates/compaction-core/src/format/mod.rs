//! Provider formats: the histories agents hold in other SDKs' shapes (the
//! AI SDK's `ModelMessage`, OpenAI Chat Completions and Responses items,
//! LangChain's stored messages), converted to the engine's Anthropic-shaped
//! [`Message`]s and back.
//!
//! Lossless by construction: a [`Ledger`] keeps every item's original JSON
//! beside the message made from it, and [`Ledger::export`] gives the
//! original back for every message no tier touched. Only what a tier
//! rewrote is converted back: a cleared or reduced tool result is patched
//! into its original item (nothing else of the item changes), a dropped
//! block leaves its item, and messages the engine wrote (a summary, an
//! attachment, a collapsed segment) are written fresh in the format.
//! Opaque items (encrypted reasoning, provider compaction items, signed
//! parts) become blocks of kinds the engine never edits, so they are kept
//! whole or dropped whole with their message.
//!
//! Leading system messages (before the first other message) are the
//! format's system prompt: kept outside the view, always first in the
//! export, counted as the system prompt ([`Ledger::system_text`]).

use serde_json::value::RawValue;

use crate::message::{Block, Content, Json, Message, Role, Usage, Uuid};

pub(crate) use helpers::*;
pub use ledger::{fresh, Emit, Ledger, Origin};
pub use usage::{read_usage, report_usage};

mod ai_sdk;
mod helpers;
mod langchain;
mod ledger;
mod openai_chat;
mod openai_responses;
mod usage;

/// A history's shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// Anthropic `MessageParam`s: the engine's own shape, no conversion.
    Anthropic,
    /// The Vercel AI SDK's `ModelMessage`.
    AiSdk,
    /// OpenAI Chat Completions messages.
    OpenAiChat,
    /// OpenAI Responses input items.
    OpenAiResponses,
    /// LangChain's stored messages (`{type, data}`).
    LangChain,
}

impl Format {
    /// Every format, in the order of [`Format::NAMES`].
    pub const ALL: [Format; 5] = [
        Format::Anthropic,
        Format::AiSdk,
        Format::OpenAiChat,
        Format::OpenAiResponses,
        Format::LangChain,
    ];

    /// The formats' names, as settings spell them.
    pub const NAMES: [&'static str; 5] = [
        "anthropic",
        "ai-sdk",
        "openai-chat",
        "openai-responses",
        "langchain",
    ];

    /// The name (`"ai-sdk"`…).
    pub fn name(self) -> &'static str {
        let at = Format::ALL.iter().position(|f| *f == self).unwrap_or(0);
        Format::NAMES[at]
    }

    /// The format named `name`.
    pub fn from_name(name: &str) -> Option<Format> {
        let at = Format::NAMES.iter().position(|n| *n == name)?;
        Format::ALL.get(at).copied()
    }

    /// Whether the provider behind the format supports Anthropic's
    /// server-side context editing (R4.2: otherwise Tier 1 takes the
    /// client's time-based path).
    pub fn context_editing(self) -> bool {
        self == Format::Anthropic
    }
}

/// A history item the format cannot read: where (`messages[3].content[1].toolCallId`)
/// and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path}: {reason}")]
pub struct FormatError {
    /// The field at fault, from `messages`.
    pub path: String,
    /// Why, in lowercase words.
    pub reason: String,
}

impl FormatError {
    pub(crate) fn new(path: impl Into<String>, reason: impl Into<String>) -> Self {
        FormatError {
            path: path.into(),
            reason: reason.into(),
        }
    }
}

/// Where a block of a converted message lives in its item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum At {
    /// The item is the block (a tool message, a Responses output item).
    Whole,
    /// Element `i` of the item's content list.
    Part(usize),
    /// Element `i` of the item's tool-call list.
    Call(usize),
    /// Part of the item no rewrite reaches (a string content).
    Fixed,
}

/// A block's origin: which item of its message, and where in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Loc {
    pub(crate) item: usize,
    pub(crate) at: At,
}

/// One engine message made from provider items, before it is stored.
#[derive(Debug, Clone, PartialEq)]
pub struct Converted {
    /// Its role.
    pub role: Role,
    /// Its content, Anthropic-shaped.
    pub content: Content,
    /// A leading system message: the format's system prompt, not a view
    /// message.
    pub preamble: bool,
    /// Index of its first item in the list read.
    pub first: usize,
    /// The usage reported for it (a model reply's: [`report_usage`], or a
    /// LangChain `ai` message's own `usage_metadata`).
    pub usage: Option<Usage>,
    items: Vec<Json>,
    locs: Vec<Loc>,
}

impl Converted {
    /// How many provider items it was made from.
    pub fn item_count(&self) -> usize {
        self.items.len()
    }

    /// The engine message, with this uuid; its origin goes to [`Ledger::record`].
    pub fn into_message(self, uuid: Uuid) -> (Message, Origin) {
        let origin = Origin {
            items: self.items,
            locs: self.locs,
        };
        let mut message = Message::new(uuid.0, self.role, self.content);
        message.usage = self.usage.map(Box::new);
        (message, origin)
    }
}

/// Reads a JSON array of items in `format`.
pub fn read(format: Format, json: &str, started: bool) -> Result<Vec<Converted>, FormatError> {
    // Lone surrogate escapes (a JS string cut inside an emoji) read as U+FFFD,
    // as the engine and the importer read them (R11.4).
    let json = crate::message::surrogates::replace_lone_surrogates(json.as_bytes()).0;
    let raws: Vec<Box<RawValue>> = serde_json::from_slice(&json)
        .map_err(|e| FormatError::new("messages", format!("not a JSON array of messages: {e}")))?;
    read_items(format, raws, started, "messages[]")
}

fn parse_raw(json: &str, path: &str) -> Result<Box<RawValue>, FormatError> {
    let json = crate::message::surrogates::replace_lone_surrogates(json.as_bytes()).0;
    serde_json::from_slice(&json).map_err(|e| FormatError::new(path, format!("not JSON: {e}")))
}

/// `path` names the items: `messages[]` gets each index, anything else is
/// the one item's own name.
fn read_items(
    format: Format,
    raws: Vec<Box<RawValue>>,
    started: bool,
    path: &str,
) -> Result<Vec<Converted>, FormatError> {
    let name = |i: usize| {
        if path == "messages[]" {
            format!("messages[{i}]")
        } else {
            path.to_owned()
        }
    };
    let items: Vec<Json> = raws.into_iter().map(Json::from_raw).collect();
    let mut values = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        values.push(object(item, &name(i))?);
    }
    let mut out = match format {
        Format::OpenAiResponses => openai_responses::read(&values, &name)?,
        _ => {
            let mut out = Vec::with_capacity(values.len());
            for (i, v) in values.iter().enumerate() {
                let path = name(i);
                let one = match format {
                    Format::AiSdk => ai_sdk::read(v, &path)?,
                    Format::OpenAiChat => openai_chat::read(v, &path)?,
                    Format::LangChain => langchain::read(v, &path)?,
                    Format::OpenAiResponses | Format::Anthropic => {
                        return Err(FormatError::new(path, "not a converted format"));
                    }
                };
                out.push(one.into_converted(i));
            }
            out
        }
    };
    // Items to their messages, preamble marked.
    let mut items = items.into_iter();
    let mut started = started;
    for c in &mut out {
        let n = c.items.len();
        c.items = items.by_ref().take(n).collect();
        c.preamble = !started && c.role == Role::System;
        started |= !c.preamble;
    }
    Ok(out)
}

/// What a one-item reader makes: the message's role, content and each
/// block's place in the item.
pub(crate) struct One {
    pub(crate) role: Role,
    pub(crate) content: Content,
    pub(crate) ats: Vec<At>,
    /// The usage the item carries (LangChain's `usage_metadata`).
    pub(crate) usage: Option<Usage>,
}

impl One {
    pub(crate) fn text(role: Role, text: String) -> One {
        One {
            role,
            content: Content::Text(text),
            ats: Vec::new(),
            usage: None,
        }
    }

    pub(crate) fn blocks(role: Role, parts: Vec<(Block, At)>) -> One {
        let (blocks, ats) = parts.into_iter().unzip();
        One {
            role,
            content: Content::Blocks(blocks),
            ats,
            usage: None,
        }
    }

    fn into_converted(self, first: usize) -> Converted {
        Converted {
            role: self.role,
            content: self.content,
            preamble: false,
            first,
            usage: self.usage,
            // A placeholder, replaced by the item itself in `read_items`.
            items: vec![Json::null()],
            locs: self.ats.into_iter().map(|at| Loc { item: 0, at }).collect(),
        }
    }
}

/// Builds a [`Converted`] from several items (Responses).
pub(crate) fn converted(role: Role, first: usize, count: usize, parts: Vec<(Block, Loc)>) -> Converted {
    let (blocks, locs): (Vec<Block>, Vec<Loc>) = parts.into_iter().unzip();
    Converted {
        role,
        content: Content::Blocks(blocks),
        preamble: false,
        first,
        usage: None,
        // Placeholders, replaced by the items themselves in `read_items`.
        items: vec![Json::null(); count],
        locs,
    }
}
