//! The `format` setting in the engine module built without the provider
//! formats (the `engine` feature alone: `context-compaction`). The history
//! is Anthropic's; any other `format` is refused with an error naming the
//! entry that has it (`context-compaction/formats`), so the code of
//! `compaction_core::format` is not in the module every agent loads. The
//! types have the names of `format.rs`'s and no values: an engine here never
//! holds a format, and the compiler drops every path that would use one.

use compaction_core::engine::EngineSettings as CoreSettings;
use compaction_core::format::Format;
use compaction_core::message::{Message, Uuid};
use compaction_core::time::Timestamp;
use wasm_bindgen::prelude::*;

use crate::error::{js_error, INVALID_SETTING};

/// The format of an engine's history: never one in this module.
pub(crate) enum Formatted {}

/// Converted messages to append: never any in this module.
pub(crate) enum Incoming {}

/// One thing [`Formatted::take`] hands on (matched by the engine's state,
/// never made here).
#[expect(dead_code, reason = "no format hands anything on in this module")]
pub(crate) enum Piece<'a> {
    /// The system prompt's new text.
    System(&'a str),
    /// A message to append.
    Message(Message),
}

/// `settings.format`: absent or `"anthropic"` is `None`; anything else is
/// an `INVALID_SETTING` error on `format` that names the entry with the
/// provider formats.
pub(crate) fn read_format(
    settings_js: &JsValue,
    _settings: &mut CoreSettings,
) -> Result<Option<Formatted>, JsValue> {
    if !settings_js.is_object() {
        return Ok(None);
    }
    let v = js_sys::Reflect::get(settings_js, &"format".into()).unwrap_or(JsValue::UNDEFINED);
    if v.is_undefined() || v.as_string().as_deref() == Some(Format::Anthropic.name()) {
        return Ok(None);
    }
    Err(js_error(
        INVALID_SETTING,
        "format",
        &format!(
            "invalid setting `format` = {}: \"context-compaction\" reads Anthropic messages only; the other \
             formats ({}) are in \"context-compaction/formats\" (import {{ Engine, plan }} from it), \
             \"context-compaction/ai-sdk\", \"/openai\" and \"/langchain\"",
            crate::thresholds::describe(&v),
            Format::NAMES
                .iter()
                .filter(|n| **n != Format::Anthropic.name())
                .map(|n| format!("\"{n}\""))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    ))
}

impl Incoming {
    /// How many view messages it holds.
    pub(crate) fn messages(&self) -> usize {
        match *self {}
    }

    /// Gives the reported usage to its model reply.
    pub(crate) fn report(&mut self, _usage: compaction_core::message::Usage) -> Result<(), JsValue> {
        match *self {}
    }
}

impl Formatted {
    /// Reads a JSON array of items.
    pub(crate) fn read(&self, _json: &str, _objects: Option<js_sys::Array>) -> Result<Incoming, JsValue> {
        match *self {}
    }

    /// Reads one item.
    pub(crate) fn read_one(&self, _json: &str, _object: &JsValue, _field: &str) -> Result<Incoming, JsValue> {
        match *self {}
    }

    /// Records `incoming`.
    pub(crate) fn take(
        &mut self,
        _incoming: Incoming,
        _now: Option<&Timestamp>,
        _uuids: Vec<Uuid>,
        _to: impl FnMut(Piece) -> Result<(), JsValue>,
    ) -> Result<usize, JsValue> {
        match *self {}
    }

    /// The view in the format.
    pub(crate) fn export<'a>(
        &'a self,
        _view: impl IntoIterator<Item = &'a Message>,
        _stored: impl Fn(&Uuid) -> Option<&'a Message>,
    ) -> Result<JsValue, JsValue> {
        match *self {}
    }
}
