//! JSON the engine does not interpret, kept as the text it came in as:
//! [`Json`] (one value: a tool's `input`, an unknown field's value) and
//! [`Extra`] (a block's uninterpreted fields, in the order they came).
//!
//! Keeping the text, rather than a parsed `serde_json::Value`, is what makes
//! "kept verbatim" true to the byte: keys keep their order and numbers their
//! spelling (`2.50` stays `2.50`), so a history sent back to the API is the
//! one the model wrote, and its prompt-cache prefix matches. It is also
//! cheaper: a bulk load copies a tool's input instead of building a tree.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::de::{IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;

/// One JSON value, as its text.
#[derive(Clone)]
pub struct Json(Box<RawValue>);

impl Json {
    /// `{}`: a `tool_use` without an `input` sends an empty one.
    pub fn empty_object() -> Json {
        Json::parse("{}").unwrap_or_else(|_| Json::null())
    }

    /// `null`.
    pub fn null() -> Json {
        Json(RawValue::NULL.to_owned())
    }

    /// The value whose JSON text is `text` (checked, kept as given).
    pub fn parse(text: &str) -> Result<Json, serde_json::Error> {
        serde_json::from_str(text).map(Json)
    }

    /// A value built in code (tests, scenarios), printed compactly.
    pub fn from_value(value: &serde_json::Value) -> Json {
        Json::parse(&value.to_string()).unwrap_or_else(|_| Json::null())
    }

    /// A value already checked by serde_json, kept as given.
    pub fn from_raw(raw: Box<RawValue>) -> Json {
        Json(raw)
    }

    /// The JSON text.
    pub fn text(&self) -> &str {
        self.0.get()
    }

    /// The value at `key` if this is an object with that key and its value
    /// reads as a `T`; `None` otherwise (not an object, no such key, a value
    /// of another type). With a repeated key, the last one counts.
    pub fn field<'a, T: Deserialize<'a>>(&'a self, key: &str) -> Option<T> {
        field_in(self.text(), key)
    }

    /// The string at `key` (see [`Json::field`]), borrowed when it has no
    /// escapes.
    pub fn str_field(&self, key: &str) -> Option<Cow<'_, str>> {
        self.field::<Text>(key).map(|t| t.0)
    }

    /// The value as a `T`, if it reads as one.
    pub fn read<'a, T: Deserialize<'a>>(&'a self) -> Option<T> {
        serde_json::from_str(self.text()).ok()
    }

    /// The string this value is, if it is one.
    pub fn as_str(&self) -> Option<Cow<'_, str>> {
        self.read::<Text>().map(|t| t.0)
    }

    /// `null`.
    pub fn is_null(&self) -> bool {
        self.text() == "null"
    }

    /// An object (`{…}`).
    pub fn is_object(&self) -> bool {
        self.text().starts_with('{')
    }
}

/// [`Json::field`] on any JSON text.
pub(crate) fn field_in<'a, T: Deserialize<'a>>(text: &'a str, key: &str) -> Option<T> {
    let mut de = serde_json::Deserializer::from_str(text);
    de.deserialize_map(Seek::<T> {
        key,
        found: PhantomData,
    })
    .ok()
    .flatten()
}

struct Seek<'k, T> {
    key: &'k str,
    found: PhantomData<T>,
}

impl<'de, T: Deserialize<'de>> Visitor<'de> for Seek<'_, T> {
    type Value = Option<T>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Option<T>, A::Error> {
        let mut found = None;
        while let Some(Text(key)) = map.next_key::<Text<'de>>()? {
            if key == self.key {
                found = Some(map.next_value::<T>()?);
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(found)
    }
}

/// A string, borrowed from the input when it has no escapes.
pub(crate) struct Text<'de>(pub Cow<'de, str>);

impl<'de> Deserialize<'de> for Text<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct TextVisitor;
        impl<'de> Visitor<'de> for TextVisitor {
            type Value = Text<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: serde::de::Error>(self, v: &'de str) -> Result<Text<'de>, E> {
                Ok(Text(Cow::Borrowed(v)))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Text<'de>, E> {
                Ok(Text(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E: serde::de::Error>(self, v: String) -> Result<Text<'de>, E> {
                Ok(Text(Cow::Owned(v)))
            }
        }
        deserializer.deserialize_str(TextVisitor)
    }
}

impl PartialEq for Json {
    /// The same text (`{"a":1}` and `{"a": 1}` differ: verbatim means the
    /// bytes).
    fn eq(&self, other: &Self) -> bool {
        self.text() == other.text()
    }
}

impl fmt::Debug for Json {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.text())
    }
}

impl fmt::Display for Json {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.text())
    }
}

/// The raw value inside a newtype (which serde_json's serializers write as
/// the value itself): [`to_json_string`](super::to_json_string) hands it to
/// serde_json as it is.
impl Serialize for Json {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_newtype_struct(super::lean::RAW_JSON, &self.0)
    }
}

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Box::<RawValue>::deserialize(deserializer).map(Json)
    }
}

/// Fields of a block the engine does not interpret (`cache_control`,
/// `citations`, an image's `source`…), or of a session record the importer
/// does not interpret (`cwd`, `gitBranch`…), in the order they came, each
/// value as its JSON text. A key appears once: inserting it again replaces its
/// value in place, as a JSON object's last duplicate wins.
///
/// Boxed, and absent when empty (never an empty box): almost every block and
/// message has none. 4 bytes in wasm, where a bare `Vec` took 12 in every
/// block and message.
// The box is the point: one pointer inline, where a `Vec` is three words.
#[allow(clippy::box_collection)]
#[derive(Clone, Default, PartialEq)]
pub struct Extra(Option<Box<Vec<(String, Json)>>>);

impl Extra {
    /// No fields.
    pub fn new() -> Self {
        Extra(None)
    }

    fn fields(&self) -> &[(String, Json)] {
        self.0.as_deref().map_or(&[], Vec::as_slice)
    }

    /// How many fields.
    pub fn len(&self) -> usize {
        self.fields().len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_none()
    }

    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<&Json> {
        self.fields().iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// Whether `key` is there.
    pub fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// Sets `key`: in place if it is there, last otherwise.
    pub fn insert(&mut self, key: String, value: Json) {
        let fields = self.0.get_or_insert_with(Box::default);
        match fields.iter_mut().find(|(k, _)| *k == key) {
            Some((_, slot)) => *slot = value,
            None => fields.push((key, value)),
        }
    }

    /// Takes `key` out.
    pub fn remove(&mut self, key: &str) -> Option<Json> {
        let fields = self.0.as_mut()?;
        let at = fields.iter().position(|(k, _)| k == key)?;
        let (_, value) = fields.remove(at);
        if fields.is_empty() {
            self.0 = None;
        }
        Some(value)
    }

    /// The fields, in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&str, &Json)> {
        self.fields().iter().map(|(k, v)| (k.as_str(), v))
    }
}

impl Extra {
    /// The string at `key`, if that field is a string.
    pub fn str_field(&self, key: &str) -> Option<Cow<'_, str>> {
        self.get(key)?.as_str()
    }

    /// The boolean at `key`, if that field is one.
    pub fn bool_field(&self, key: &str) -> Option<bool> {
        self.get(key)?.read()
    }
}

impl Serialize for Extra {
    /// A JSON object, fields in order.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(self.len()))?;
        for (key, value) in self.iter() {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Extra {
    /// A JSON object, each value kept as its text.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ExtraVisitor;
        impl<'de> Visitor<'de> for ExtraVisitor {
            type Value = Extra;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a json object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Extra, A::Error> {
                let mut extra = Extra::new();
                while let Some(Text(key)) = map.next_key::<Text<'de>>()? {
                    let value = map.next_value()?;
                    extra.insert(key.into_owned(), value);
                }
                Ok(extra)
            }
        }
        deserializer.deserialize_map(ExtraVisitor)
    }
}

impl FromIterator<(String, Json)> for Extra {
    fn from_iter<I: IntoIterator<Item = (String, Json)>>(iter: I) -> Self {
        let mut extra = Extra::new();
        for (k, v) in iter {
            extra.insert(k, v);
        }
        extra
    }
}

impl fmt::Debug for Extra {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_kept_to_the_byte() {
        let text = r#"{"z":1,"a":2.50,"m":{"y":1e2,"b":"\u00e9"}}"#;
        let json: Json = serde_json::from_str(text).unwrap();
        assert_eq!(json.text(), text);
        assert_eq!(serde_json::to_string(&json).unwrap(), text);
    }

    #[test]
    fn fields_are_read_without_parsing_the_rest() {
        let json =
            Json::parse(r#"{"file_path":"a.rs","n":[1,{"x":2}],"esc":"a\"b","file_path2":7}"#).unwrap();
        assert_eq!(json.str_field("file_path").as_deref(), Some("a.rs"));
        assert!(matches!(json.str_field("file_path"), Some(Cow::Borrowed(_))));
        assert_eq!(json.str_field("esc").as_deref(), Some("a\"b"));
        assert_eq!(json.str_field("file_path2"), None, "not a string");
        assert_eq!(json.str_field("missing"), None);
        assert_eq!(
            json.field::<Vec<serde_json::Value>>("n").map(|v| v.len()),
            Some(2)
        );
        assert_eq!(Json::parse(r#""not an object""#).unwrap().str_field("a"), None);
        assert_eq!(
            Json::parse(r#"{"a":"1","a":"2"}"#)
                .unwrap()
                .str_field("a")
                .as_deref(),
            Some("2")
        );
    }

    #[test]
    fn extra_keeps_order_and_replaces_in_place() {
        let mut extra = Extra::new();
        extra.insert("z".into(), Json::null());
        extra.insert("a".into(), Json::empty_object());
        extra.insert("z".into(), Json::parse("1").unwrap());
        let keys: Vec<_> = extra.iter().map(|(k, v)| format!("{k}={v}")).collect();
        assert_eq!(keys, ["z=1", "a={}"]);
        assert_eq!(
            extra.remove("z").map(|v| v.text().to_owned()).as_deref(),
            Some("1")
        );
        assert_eq!(extra.len(), 1);
    }

    #[test]
    fn a_value_deserializer_gives_raw_text_too() {
        // The importer reads records as `Value`s; blocks from there still
        // get their raw fields (compact text).
        let json: Json = serde_json::from_value(serde_json::json!({"a": [1, 2]})).unwrap();
        assert_eq!(json.text(), r#"{"a":[1,2]}"#);
    }
}
