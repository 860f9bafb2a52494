//! The `format` setting: histories in another SDK's shape (`ai-sdk`,
//! `openai-chat`, `openai-responses`, `langchain`), converted by
//! `compaction_core::format`. This file only moves values: JS items in (as
//! JSON text), the core's [`Ledger`] between, and out again the caller's own
//! objects for every item no tier touched (the same objects, so nothing a
//! JSON copy would lose is lost), the core's JSON for the rest.

use compaction_core::engine::EngineSettings as CoreSettings;
use compaction_core::format::{Converted, Emit, Format, FormatError, Ledger};
use compaction_core::message::{Message, Usage, Uuid};
use compaction_core::time::Timestamp;
use wasm_bindgen::prelude::*;

use crate::error::{js_err, js_error, JsErr, INVALID_MESSAGE, INVALID_SETTING};

/// The format of an engine's history, with the originals it was given.
pub(crate) struct Formatted {
    pub(crate) ledger: Ledger,
    /// The caller's objects, by item number (`undefined` for items that
    /// came as JSON text: `loadJson`).
    originals: Vec<JsValue>,
}

/// `settings.format`: absent or `"anthropic"` is `None` (no conversion).
/// Off Anthropic, Tier 1 takes the client's path (R4.2: no server-side
/// context editing).
pub(crate) fn read_format(
    settings_js: &JsValue,
    settings: &mut CoreSettings,
) -> Result<Option<Formatted>, JsValue> {
    if !settings_js.is_object() {
        return Ok(None);
    }
    let v = js_sys::Reflect::get(settings_js, &"format".into()).unwrap_or(JsValue::UNDEFINED);
    if v.is_undefined() {
        return Ok(None);
    }
    let format = v
        .as_string()
        .and_then(|name| Format::from_name(&name))
        .ok_or_else(|| {
            js_error(
                INVALID_SETTING,
                "format",
                &format!(
                    "invalid setting `format` = {}: must be one of {}",
                    crate::thresholds::describe(&v),
                    Format::NAMES.map(|n| format!("\"{n}\"")).join(", ")
                ),
            )
        })?;
    if format == Format::Anthropic {
        return Ok(None);
    }
    settings.microcompact.context_editing = false;
    Ok(Some(Formatted {
        ledger: Ledger::new(format),
        originals: Vec::new(),
    }))
}

impl From<FormatError> for JsErr {
    /// A message the format refused: `INVALID_MESSAGE` naming its path.
    fn from(e: FormatError) -> Self {
        js_err(INVALID_MESSAGE, &e.path, &e.to_string())
    }
}

/// What to append: each converted message, with the caller's objects its
/// items came from.
pub(crate) struct Incoming {
    converted: Vec<Converted>,
    objects: Option<js_sys::Array>,
}

/// One thing [`Formatted::take`] hands on.
pub(crate) enum Piece<'a> {
    /// The system prompt's new text (the format's leading system messages).
    System(&'a str),
    /// A message to append.
    Message(Message),
}

impl Incoming {
    /// How many view messages it holds (leading system messages are not).
    pub(crate) fn messages(&self) -> usize {
        self.converted.iter().filter(|c| !c.preamble).count()
    }

    /// Gives the usage reported for the model reply to its last assistant
    /// message; none there is `INVALID_ARGUMENT` on `usage`.
    pub(crate) fn report(&mut self, usage: Usage) -> Result<(), JsValue> {
        if compaction_core::format::report_usage(&mut self.converted, usage) {
            Ok(())
        } else {
            Err(crate::engine::no_reply())
        }
    }
}

/// The usage argument of `append(message, usage)` / `load(messages,
/// usage)`, in `format`'s shape: `undefined` or `null` is none; a value
/// that is not a usage is `INVALID_ARGUMENT` naming its field
/// (`usage.prompt_tokens`).
pub(crate) fn read_usage(usage: &JsValue, format: Format) -> Result<Option<Usage>, JsValue> {
    if usage.is_undefined() || usage.is_null() {
        return Ok(None);
    }
    let json = usage
        .is_object()
        .then(|| js_sys::JSON::stringify(usage).ok()?.as_string())
        .flatten()
        .ok_or_else(|| {
            js_error(
                crate::error::INVALID_ARGUMENT,
                "usage",
                &format!(
                    "usage must be the usage object the API reported (writable as JSON), got {}",
                    crate::js::kind(usage)
                ),
            )
        })?;
    compaction_core::format::read_usage(format, &json, "usage")
        .map_err(|e| js_error(crate::error::INVALID_ARGUMENT, &e.path, &e.to_string()))
}

impl Formatted {
    /// The format it speaks.
    pub(crate) fn format(&self) -> Format {
        self.ledger.format()
    }

    /// Reads a JSON array of items (`objects`: the array it was written
    /// from, if any). Nothing changes yet.
    pub(crate) fn read(&self, json: &str, objects: Option<js_sys::Array>) -> Result<Incoming, JsErr> {
        let converted = self.ledger.read(json)?;
        Ok(Incoming { converted, objects })
    }

    /// Reads one item (`append`) written as `json` from `object`, named
    /// `field` in errors.
    pub(crate) fn read_one(&self, json: &str, object: &JsValue, field: &str) -> Result<Incoming, JsErr> {
        let converted = self.ledger.read_one(json, field)?;
        Ok(Incoming {
            converted,
            objects: Some(js_sys::Array::of1(object)),
        })
    }

    /// Records `incoming`: each message gets the next of `uuids` (as many
    /// as [`Incoming::messages`]) and the time `now` (the host's last clock
    /// reading: a format carries none, and the time-based path needs one),
    /// is recorded, and is handed to `to` (a leading system message as the
    /// system prompt's new text).
    pub(crate) fn take(
        &mut self,
        incoming: Incoming,
        now: Option<&Timestamp>,
        uuids: Vec<Uuid>,
        mut to: impl FnMut(Piece) -> Result<(), JsValue>,
    ) -> Result<usize, JsValue> {
        let mut uuids = uuids.into_iter();
        let mut n = 0;
        for c in incoming.converted {
            let (first, count, preamble) = (c.first, c.item_count(), c.preamble);
            let id = if preamble { None } else { uuids.next() };
            let (mut m, origin) = c.into_message(id.clone().unwrap_or_else(|| Uuid(String::new())));
            if !preamble && id.is_none() {
                return Err(js_error(
                    INVALID_MESSAGE,
                    "messages",
                    "messages: no uuid left for a message",
                ));
            }
            m.timestamp = now.cloned();
            self.ledger.record(&m, origin, preamble);
            for k in first..first + count {
                let object = incoming
                    .objects
                    .as_ref()
                    .map(|a| a.get(k as u32))
                    .unwrap_or(JsValue::UNDEFINED);
                self.originals.push(object);
            }
            if preamble {
                to(Piece::System(self.ledger.system_text()))?;
            } else {
                to(Piece::Message(m))?;
                n += 1;
            }
        }
        Ok(n)
    }

    /// The view in the format: the caller's objects where nothing changed.
    pub(crate) fn export<'a>(
        &'a self,
        view: impl IntoIterator<Item = &'a Message>,
        stored: impl Fn(&Uuid) -> Option<&'a Message>,
    ) -> Result<JsValue, JsValue> {
        let out = js_sys::Array::new();
        for emit in self.ledger.export(view, stored) {
            let value = match &emit {
                Emit::Kept { id, .. } => match self.originals.get(*id) {
                    Some(object) if !object.is_undefined() => object.clone(),
                    _ => js_sys::JSON::parse(emit.text())?,
                },
                Emit::New(json) => js_sys::JSON::parse(json.text())?,
            };
            out.push(&value);
        }
        Ok(out.into())
    }
}
