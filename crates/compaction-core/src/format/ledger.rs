//! The [`Ledger`]: every item's original beside the message made from it,
//! and the way back ([`Ledger::export`]): originals for what no tier
//! touched, patches for what a tier rewrote, fresh items for what the
//! engine wrote.

use std::ops::Range;

use super::{
    ai_sdk, array, content_text, langchain, list, obj, object, openai_chat, openai_responses, parse_raw,
    read, read_items, result_text, string, to_json,
};
use super::{At, Converted, Format, FormatError, Loc};
use crate::hash::HashMap;
use crate::message::{Block, Content, Extra, Json, Message, Uuid};

/// The provider items a message was made from, and where each block came
/// from in them.
#[derive(Debug, Clone, PartialEq)]
pub struct Origin {
    pub(super) items: Vec<Json>,
    pub(super) locs: Vec<Loc>,
}

/// What one provider item of an export is.
#[derive(Debug, Clone, PartialEq)]
pub enum Emit<'a> {
    /// The item recorded as number `id`, unchanged: give back the original.
    Kept {
        /// Its number, in [`Ledger::record`] order.
        id: usize,
        /// Its JSON text, as it came.
        json: &'a Json,
    },
    /// An item written by the conversion (a rewritten or new message).
    New(Json),
}

impl Emit<'_> {
    /// The item's JSON text.
    pub fn text(&self) -> &str {
        match self {
            Emit::Kept { json, .. } => json.text(),
            Emit::New(json) => json.text(),
        }
    }
}

/// The originals of one engine's history in a format: what [`read`] made,
/// once stored, and the way back.
#[derive(Debug, Clone)]
pub struct Ledger {
    format: Format,
    items: Vec<Json>,
    by_uuid: HashMap<Uuid, (Range<usize>, Vec<Loc>)>,
    preamble: Vec<usize>,
    system: String,
    started: bool,
}

impl Ledger {
    /// An empty ledger for `format`.
    pub fn new(format: Format) -> Self {
        Ledger {
            format,
            items: Vec::new(),
            by_uuid: HashMap::default(),
            preamble: Vec::new(),
            system: String::new(),
            started: false,
        }
    }

    /// Its format.
    pub fn format(&self) -> Format {
        self.format
    }

    /// Reads a JSON array of items (nothing is recorded: store the messages,
    /// then [`Ledger::record`] each). Leading system messages are marked
    /// [`Converted::preamble`] while the ledger holds no other message.
    pub fn read(&self, json: &str) -> Result<Vec<Converted>, FormatError> {
        read(self.format, json, self.started)
    }

    /// Reads one item (an `append`), its errors named under `path`.
    pub fn read_one(&self, json: &str, path: &str) -> Result<Vec<Converted>, FormatError> {
        let raw = parse_raw(json, path)?;
        read_items(self.format, vec![raw], self.started, path)
    }

    /// Records the origin of `message`: a view message the store holds (by
    /// its uuid), or, with `preamble`, a leading system message kept
    /// outside the view. Returns the numbers its items get, in order.
    pub fn record(&mut self, message: &Message, origin: Origin, preamble: bool) -> Range<usize> {
        let start = self.items.len();
        self.items.extend(origin.items);
        let ids = start..self.items.len();
        if preamble {
            self.preamble.extend(ids.clone());
            if !self.system.is_empty() {
                self.system.push('\n');
            }
            self.system.push_str(&content_text(&message.content));
        } else {
            self.started = true;
            self.by_uuid
                .insert(message.uuid.clone(), (ids.clone(), origin.locs));
        }
        ids
    }

    /// The preamble's text (the format's system prompt), for the count.
    pub fn system_text(&self) -> &str {
        &self.system
    }

    /// The history to send in the format: the preamble, then each view
    /// message (`stored` finds the store's copy by uuid).
    pub fn export<'a>(
        &'a self,
        view: impl IntoIterator<Item = &'a Message>,
        stored: impl Fn(&Uuid) -> Option<&'a Message>,
    ) -> Vec<Emit<'a>> {
        let mut out: Vec<Emit<'a>> = self.preamble.iter().map(|&id| self.kept(id)).collect();
        for m in view {
            match (self.by_uuid.get(&m.uuid), stored(&m.uuid)) {
                (Some((ids, locs)), Some(original)) => self.export_stored(m, original, ids, locs, &mut out),
                _ => out.extend(fresh(self.format, m).into_iter().map(Emit::New)),
            }
        }
        out
    }

    fn kept(&self, id: usize) -> Emit<'_> {
        match self.items.get(id) {
            Some(json) => Emit::Kept { id, json },
            None => Emit::New(Json::null()),
        }
    }

    fn export_stored<'a>(
        &'a self,
        now: &Message,
        original: &Message,
        ids: &Range<usize>,
        locs: &[Loc],
        out: &mut Vec<Emit<'a>>,
    ) {
        if std::ptr::eq(now, original) || now.content == original.content {
            out.extend(ids.clone().map(|id| self.kept(id)));
            return;
        }
        match self.patched(now, original, ids, locs) {
            Some(items) => out.extend(items),
            None => out.extend(fresh(self.format, now).into_iter().map(Emit::New)),
        }
    }

    /// The items of a stored message a tier rewrote: unchanged items as
    /// they came, changed tool results patched in, dropped blocks taken
    /// out; `None` when the rewrite is not one these steps describe.
    fn patched<'a>(
        &'a self,
        now: &Message,
        original: &Message,
        ids: &Range<usize>,
        locs: &[Loc],
    ) -> Option<Vec<Emit<'a>>> {
        let (old, new) = (original.content.blocks(), now.content.blocks());
        if old.len() != locs.len() || matches!(now.content, Content::Text(_)) {
            return None;
        }
        // Each old block: kept as is, kept with new content, or dropped.
        let mut fate: Vec<Option<&Block>> = Vec::with_capacity(old.len());
        let mut j = 0;
        for b in old {
            match new.get(j) {
                Some(n) if same_block(b, n) => {
                    fate.push(Some(n));
                    j += 1;
                }
                _ => fate.push(None),
            }
        }
        if j != new.len() {
            return None;
        }
        let mut out = Vec::with_capacity(ids.len());
        for (k, id) in ids.clone().enumerate() {
            let mine: Vec<usize> = (0..old.len()).filter(|&i| locs[i].item == k).collect();
            let unchanged = mine.iter().all(|&i| fate[i] == old.get(i));
            if unchanged {
                out.push(self.kept(id));
                continue;
            }
            if mine.iter().all(|&i| fate[i].is_none()) {
                continue; // every block of the item left: the item leaves
            }
            let mut value = object(self.items.get(id)?, "").ok()?;
            // Changes first, then removals from the back (indices stay true).
            for &i in &mine {
                if let Some(n) = fate[i] {
                    if Some(n) != old.get(i) {
                        set_result(self.format, &mut value, locs[i].at, n)?;
                    }
                }
            }
            for &i in mine.iter().rev() {
                if fate[i].is_none() {
                    remove_part(self.format, &mut value, locs[i].at)?;
                }
            }
            out.push(Emit::New(to_json(&value)));
        }
        Some(out)
    }
}

/// Whether `new` is `old`, possibly with new content (a tool result's).
fn same_block(old: &Block, new: &Block) -> bool {
    match (old, new) {
        (Block::ToolResult { tool_use_id: a, .. }, Block::ToolResult { tool_use_id: b, .. }) => a == b,
        (Block::ToolUse { id: a, .. }, Block::ToolUse { id: b, .. }) => a == b,
        _ => old == new,
    }
}

/// Writes a rewritten tool result into its item.
fn set_result(format: Format, item: &mut Extra, at: At, block: &Block) -> Option<()> {
    let Block::ToolResult {
        content, is_error, ..
    } = block
    else {
        return None;
    };
    let text = result_text(content);
    let write = |target: &mut Extra| match format {
        Format::AiSdk => ai_sdk::set_output(target, text, is_error.unwrap_or(false)),
        Format::OpenAiResponses => target.insert("output".to_owned(), string(&text)),
        _ => target.insert("content".to_owned(), string(&text)),
    };
    match at {
        At::Whole => edit(format, item, |holder| {
            write(holder);
            Some(())
        }),
        At::Part(i) => edit(format, item, |holder| {
            edit_list(holder, "content", |parts| {
                let mut part = object(parts.get(i)?, "").ok()?;
                write(&mut part);
                *parts.get_mut(i)? = to_json(&part);
                Some(())
            })
        }),
        At::Call(_) | At::Fixed => None,
    }
}

/// Takes a dropped block's part out of its item.
fn remove_part(format: Format, item: &mut Extra, at: At) -> Option<()> {
    let (key, i) = match at {
        At::Part(i) => ("content", i),
        At::Call(i) => ("tool_calls", i),
        At::Whole | At::Fixed => return None,
    };
    edit(format, item, |holder| {
        edit_list(holder, key, |list| {
            (i < list.len()).then(|| {
                list.remove(i);
            })
        })
    })
}

/// Runs `f` on the object holding a message's fields: the item, or a
/// LangChain stored message's `data`.
fn edit(format: Format, item: &mut Extra, f: impl FnOnce(&mut Extra) -> Option<()>) -> Option<()> {
    if format != Format::LangChain {
        return f(item);
    }
    let mut data = object(item.get("data")?, "").ok()?;
    f(&mut data)?;
    item.insert("data".to_owned(), to_json(&data));
    Some(())
}

/// Runs `f` on the list at `key` and writes it back.
fn edit_list(holder: &mut Extra, key: &str, f: impl FnOnce(&mut Vec<Json>) -> Option<()>) -> Option<()> {
    let mut items = list(holder.get(key)?)?;
    f(&mut items)?;
    holder.insert(key.to_owned(), array(items));
    Some(())
}

/// A message the engine wrote (or one no patch describes), in the format.
pub fn fresh(format: Format, m: &Message) -> Vec<Json> {
    match format {
        Format::AiSdk => ai_sdk::fresh(m),
        Format::OpenAiChat => openai_chat::fresh(m),
        Format::OpenAiResponses => openai_responses::fresh(m),
        Format::LangChain => langchain::fresh(m),
        Format::Anthropic => {
            let content = crate::message::to_json_string(&m.content)
                .ok()
                .and_then(|t| Json::parse(&t).ok())
                .unwrap_or_else(Json::null);
            vec![obj([("role", string(m.role.as_str())), ("content", content)])]
        }
    }
}
