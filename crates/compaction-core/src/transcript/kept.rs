//! A message record's fields the importer does not interpret, kept as one
//! JSON object's text ([`KeptFields`]), shared by the records that have the
//! same ones: a session's records mostly repeat their `cwd`, `sessionId`,
//! `version`, `gitBranch`…, so a million records keep a few texts, not
//! ten million small values.

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

use serde_json::value::RawValue;

use super::line::LineFields;
use super::model::Fields;
use crate::message::{field_in, Json, Text};

/// Fields of a record kept verbatim, in the order they came, as one JSON
/// object's text (a key appears once: a repeated key's last value).
#[derive(Clone, Default, PartialEq, Eq)]
pub struct KeptFields(Option<Arc<str>>);

impl KeptFields {
    /// No fields.
    pub fn new() -> Self {
        KeptFields(None)
    }

    /// The fields as a JSON object's text (`{}` for none).
    pub fn text(&self) -> &str {
        self.0.as_deref().unwrap_or("{}")
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_none()
    }

    /// How many fields.
    pub fn len(&self) -> usize {
        self.fields().len()
    }

    /// The value of `key`, as its JSON text.
    pub fn get(&self, key: &str) -> Option<Json> {
        field_in::<&RawValue>(self.text(), key).map(|raw| Json::from_raw(raw.to_owned()))
    }

    /// Whether `key` is there.
    pub fn contains_key(&self, key: &str) -> bool {
        field_in::<&RawValue>(self.text(), key).is_some()
    }

    /// The string at `key`, if that field is a string.
    pub fn str_field(&self, key: &str) -> Option<Cow<'_, str>> {
        field_in::<Text>(self.text(), key).map(|t| t.0)
    }

    /// The fields, each value as its JSON text, in order.
    pub fn fields(&self) -> Fields {
        serde_json::from_str(self.text()).unwrap_or_default()
    }
}

impl fmt::Debug for KeptFields {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.text())
    }
}

/// The texts kept last, newest first: consecutive records of a session
/// repeat the few their kinds have (no hash table: its code would weigh
/// more in the modules than a look through a handful of texts costs).
#[derive(Debug, Default)]
pub(crate) struct Shared {
    texts: Vec<Arc<str>>,
    buffer: Vec<u8>,
}

/// How many texts [`Shared`] remembers.
const REMEMBERED: usize = 8;

impl Shared {
    /// `fields` kept: the text a record with the same fields already has,
    /// or a new one.
    pub fn keep(&mut self, fields: &LineFields<'_>) -> KeptFields {
        if fields.is_empty() {
            return KeptFields::new();
        }
        let Some(text) = write(&mut self.buffer, fields) else {
            return KeptFields::new();
        };
        let text = match self.texts.iter().position(|kept| **kept == *text) {
            Some(at) => self.texts.remove(at),
            None => Arc::from(text),
        };
        self.texts.insert(0, Arc::clone(&text));
        self.texts.truncate(REMEMBERED);
        KeptFields(Some(text))
    }

    /// `fields` kept in a text of their own (fields no other record has,
    /// as a response's `id` and `usage` make them).
    pub fn own(&mut self, fields: &LineFields<'_>) -> KeptFields {
        if fields.is_empty() {
            return KeptFields::new();
        }
        KeptFields(write(&mut self.buffer, fields).map(Arc::from))
    }
}

/// `fields` as a JSON object's text, written into `buffer`.
fn write<'b>(buffer: &'b mut Vec<u8>, fields: &LineFields<'_>) -> Option<&'b str> {
    fields.write_object(buffer);
    std::str::from_utf8(buffer).ok()
}
