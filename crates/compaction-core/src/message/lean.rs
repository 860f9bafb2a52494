//! [`to_json_string`]: JSON text exactly as `serde_json::to_string` writes
//! it (and failing where it fails), through a writer of the crate's own.
//!
//! serde_json's serializer writes a struct's field as a map entry: it
//! checks the field's key against its raw-value marker (a call comparing
//! two strings, compiled into every field of every `Serialize` the module
//! holds), keeps a state per compound (empty, first, rest) and escapes the
//! key through its map-key serializer. [`Writer`] writes into one `String`:
//! a comma before every field or element but the first, a field's name as
//! an escaped string and `:` through one function for every struct, and
//! `{`, `[`, `]`, `}` as themselves, so a field costs one call and its
//! value. Numbers, strings and the raw JSON a [`Json`](super::Json) holds
//! come out as serde_json writes them: integers through `itoa`, floats
//! through `zmij` (`null` when not finite), strings with serde_json's
//! escapes (`\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`, other control
//! characters as `\u00xx`), a raw value verbatim. A map's keys are written
//! as serde_json writes them (strings; numbers and booleans quoted); what it
//! refuses as a key, [`Writer`] refuses with the same message.

use std::fmt::{Display, Write as _};

use serde::ser::{
    Error as _, Impossible, Serialize, SerializeMap, SerializeSeq, SerializeStruct, SerializeStructVariant,
    SerializeTuple, SerializeTupleStruct, SerializeTupleVariant, Serializer,
};
use serde_json::Error;

/// The struct name serde_json's `RawValue` writes itself under (its
/// `raw::TOKEN`, which it does not export).
const RAW_VALUE: &str = "$serde_json::private::RawValue";

/// The newtype name a [`Json`](super::Json) writes its raw value under:
/// serde_json's serializers ignore it (they write the raw value inside);
/// [`Writer`] writes that value's text as it is.
pub(crate) const RAW_JSON: &str = "$compaction::Json";

/// `value` as JSON text, byte for byte what `serde_json::to_string` writes
/// (and fails where it fails), in less code per struct field.
pub fn to_json_string<T: Serialize + ?Sized>(value: &T) -> serde_json::Result<String> {
    let mut out = String::with_capacity(128);
    value.serialize(Writer(&mut out))?;
    Ok(out)
}

/// Writes a value's JSON text at the end of a string.
struct Writer<'a>(&'a mut String);

/// A sequence, map or struct being written: whether the next element or
/// entry is the first, and what closes it (`]`, `}`, or `]}` and `}}` for an
/// enum variant's).
struct Compound<'a> {
    out: &'a mut String,
    first: bool,
    close: &'static str,
}

/// `text` as a JSON string, escaped as serde_json escapes it: `\"`, `\\`,
/// `\b`, `\t`, `\n`, `\f`, `\r`, any other control character as `\u00xx`.
#[inline(never)]
pub(crate) fn escape(out: &mut String, text: &str) {
    put(out, "\"");
    let mut start = 0;
    for (at, byte) in text.bytes().enumerate() {
        let short = match byte {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            0x08 => "\\b",
            0x09 => "\\t",
            0x0A => "\\n",
            0x0C => "\\f",
            0x0D => "\\r",
            0x00..=0x1F => "",
            _ => continue,
        };
        // Only ASCII bytes are escaped, so `at` is a character boundary.
        put(out, &text[start..at]);
        start = at + 1;
        if short.is_empty() {
            const HEX: &str = "0123456789abcdef";
            let (high, low) = (usize::from(byte >> 4), usize::from(byte & 0xF));
            put(out, "\\u00");
            put(out, &HEX[high..=high]);
            put(out, &HEX[low..=low]);
        } else {
            put(out, short);
        }
    }
    put(out, &text[start..]);
    put(out, "\"");
}

/// `text` at the end of `out`: one copy of `push_str`'s code for every
/// place that writes text, not one each (the session module, built for
/// speed, would inline it into each).
#[inline(never)]
fn put(out: &mut String, text: &str) {
    out.push_str(text);
}

/// An integer as serde_json writes one (`itoa`).
#[inline(never)]
fn integer<I: itoa::Integer>(out: &mut String, value: I) {
    put(out, itoa::Buffer::new().format(value));
}

/// A float as serde_json writes one: `zmij`'s shortest text, `null` when
/// not finite.
#[inline(never)]
fn float<F: zmij::Float + Into<f64>>(out: &mut String, value: F) {
    if value.into().is_finite() {
        put(out, zmij::Buffer::new().format_finite(value));
    } else {
        put(out, "null");
    }
}

/// A character as a JSON string.
#[inline(never)]
fn character(out: &mut String, value: char) {
    escape(out, value.encode_utf8(&mut [0; 4]));
}

/// What `value`'s `Display` writes, as a JSON string.
fn displayed<T: Display + ?Sized>(out: &mut String, value: &T) -> Result<(), Error> {
    let mut text = String::new();
    write!(text, "{value}").map_err(|_| Error::custom("an error in a Display implementation"))?;
    escape(out, &text);
    Ok(())
}

impl<'a> Writer<'a> {
    /// An integer.
    fn int<I: itoa::Integer>(self, value: I) -> Result<(), Error> {
        integer(self.0, value);
        Ok(())
    }

    /// Opens a compound with `open`, to be closed with `close`.
    fn open(self, open: &str, close: &'static str) -> Compound<'a> {
        put(self.0, open);
        Compound {
            out: self.0,
            first: true,
            close,
        }
    }

    /// Opens `{"variant":` then a compound with `open`, closed with `close`.
    fn variant(self, variant: &str, open: &str, close: &'static str) -> Compound<'a> {
        self.0.push('{');
        escape(self.0, variant);
        self.0.push(':');
        self.open(open, close)
    }
}

impl Compound<'_> {
    /// A comma unless this is the first element or entry.
    fn next(&mut self) {
        if !self.first {
            self.out.push(',');
        }
        self.first = false;
    }

    /// The next element.
    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.next();
        value.serialize(Writer(&mut *self.out))
    }

    /// A struct field's name and `:`.
    #[inline(never)]
    fn field_name(&mut self, key: &str) {
        self.next();
        escape(self.out, key);
        self.out.push(':');
    }

    /// A struct field: its name, `:` and its value.
    fn field<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) -> Result<(), Error> {
        self.field_name(key);
        value.serialize(Writer(&mut *self.out))
    }

    /// Closes the compound.
    fn close(self) -> Result<(), Error> {
        put(self.out, self.close);
        Ok(())
    }
}

/// A `Serializer`'s integer methods, each through `self.int` (the
/// narrower integers widened: `itoa` writes them alike).
macro_rules! integers {
    () => {
        integers! {
            serialize_i8(i8) as i64;
            serialize_i16(i16) as i64;
            serialize_i32(i32) as i64;
            serialize_i64(i64) as i64;
            serialize_i128(i128) as i128;
            serialize_u8(u8) as u64;
            serialize_u16(u16) as u64;
            serialize_u32(u32) as u64;
            serialize_u64(u64) as u64;
            serialize_u128(u128) as u128;
        }
    };
    ($($method:ident($ty:ty) as $wide:ty;)*) => {$(
        fn $method(self, v: $ty) -> Result<(), Error> {
            self.int(<$wide>::from(v))
        }
    )*};
}

impl<'a> Serializer for Writer<'a> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Compound<'a>;
    type SerializeTuple = Compound<'a>;
    type SerializeTupleStruct = Compound<'a>;
    type SerializeTupleVariant = Compound<'a>;
    type SerializeMap = Compound<'a>;
    type SerializeStruct = Compound<'a>;
    type SerializeStructVariant = Compound<'a>;

    fn serialize_bool(self, v: bool) -> Result<(), Error> {
        put(self.0, if v { "true" } else { "false" });
        Ok(())
    }
    integers!();
    fn serialize_f32(self, v: f32) -> Result<(), Error> {
        float(self.0, v);
        Ok(())
    }
    fn serialize_f64(self, v: f64) -> Result<(), Error> {
        float(self.0, v);
        Ok(())
    }
    fn serialize_char(self, v: char) -> Result<(), Error> {
        character(self.0, v);
        Ok(())
    }
    fn serialize_str(self, v: &str) -> Result<(), Error> {
        escape(self.0, v);
        Ok(())
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<(), Error> {
        let mut seq = self.open("[", "]");
        for byte in v {
            seq.element(byte)?;
        }
        seq.close()
    }
    fn serialize_none(self) -> Result<(), Error> {
        self.serialize_unit()
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Error> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), Error> {
        put(self.0, "null");
        Ok(())
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<(), Error> {
        self.serialize_unit()
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<(), Error> {
        self.serialize_str(variant)
    }
    /// A [`Json`](super::Json)'s raw value is written as its text. Inlined,
    /// so that the name's comparison folds away.
    #[inline(always)]
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        if name.len() == RAW_JSON.len() && name == RAW_JSON {
            return value.serialize(Verbatim(&mut *self.0));
        }
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        let inner = self.variant(variant, "", "}");
        value.serialize(Writer(&mut *inner.out))?;
        inner.close()
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Compound<'a>, Error> {
        Ok(self.open("[", "]"))
    }
    fn serialize_tuple(self, _len: usize) -> Result<Compound<'a>, Error> {
        Ok(self.open("[", "]"))
    }
    fn serialize_tuple_struct(self, _name: &'static str, _len: usize) -> Result<Compound<'a>, Error> {
        Ok(self.open("[", "]"))
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Compound<'a>, Error> {
        Ok(self.variant(variant, "[", "]}"))
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Compound<'a>, Error> {
        Ok(self.open("{", "}"))
    }
    /// A raw value written as a struct is refused: [`Json`](super::Json)
    /// writes its text through [`Writer::serialize_newtype_struct`].
    /// Inlined, so that the name's comparison folds away wherever the name
    /// is not the marker's length (every struct).
    #[inline(always)]
    fn serialize_struct(self, name: &'static str, _len: usize) -> Result<Compound<'a>, Error> {
        if name.len() == RAW_VALUE.len() && name == RAW_VALUE {
            return Err(Error::custom("a raw value outside a Json"));
        }
        Ok(self.open("{", "}"))
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Compound<'a>, Error> {
        Ok(self.variant(variant, "{", "}}"))
    }
    fn collect_str<T: Display + ?Sized>(self, value: &T) -> Result<(), Error> {
        displayed(self.0, value)
    }
}

impl SerializeMap for Compound<'_> {
    type Ok = ();
    type Error = Error;

    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
        self.next();
        key.serialize(Key(&mut *self.out))
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.out.push(':');
        value.serialize(Writer(&mut *self.out))
    }
    fn end(self) -> Result<(), Error> {
        self.close()
    }
}

/// The compound writers but a map's: each element after a comma, each
/// struct field after a comma and its name.
macro_rules! compounds {
    ($($writer:ident: $method:ident => $each:ident $(, $key:ident)?;)*) => {$(
        impl $writer for Compound<'_> {
            type Ok = ();
            type Error = Error;

            fn $method<T: Serialize + ?Sized>(
                &mut self,
                $($key: &'static str,)?
                value: &T,
            ) -> Result<(), Error> {
                self.$each($($key,)? value)
            }
            fn end(self) -> Result<(), Error> {
                self.close()
            }
        }
    )*};
}

compounds! {
    SerializeSeq: serialize_element => element;
    SerializeTuple: serialize_element => element;
    SerializeTupleStruct: serialize_field => element;
    SerializeTupleVariant: serialize_field => element;
    SerializeStruct: serialize_field => field, key;
    SerializeStructVariant: serialize_field => field, key;
}

/// What serde_json says of a map key that is not a string, a number, a
/// boolean or a character.
fn key_must_be_a_string() -> Error {
    Error::custom("key must be a string")
}

/// Refuses each listed `Serializer` method with `$error`; those listed
/// after `@generic` take a value of any `Serialize` type last.
macro_rules! refuse {
    ($error:expr; $($method:ident($($arg:ty),*) -> $ok:ty;)* @generic $($value_method:ident($($value_arg:ty),*);)*) => {
        $(fn $method(self, $(_: $arg),*) -> Result<$ok, Error> {
            Err($error)
        })*
        $(fn $value_method<T: Serialize + ?Sized>(self, $(_: $value_arg,)* _: &T) -> Result<(), Error> {
            Err($error)
        })*
    };
}

/// The `Serializer` types a key or a raw value never opens.
macro_rules! no_compounds {
    () => {
        type SerializeSeq = Impossible<(), Error>;
        type SerializeTuple = Impossible<(), Error>;
        type SerializeTupleStruct = Impossible<(), Error>;
        type SerializeTupleVariant = Impossible<(), Error>;
        type SerializeMap = Impossible<(), Error>;
        type SerializeStructVariant = Impossible<(), Error>;
    };
}

/// A map's key, as serde_json writes one: a string as itself, a number or
/// a boolean as its text in quotes.
struct Key<'a>(&'a mut String);

impl Key<'_> {
    /// An integer, in quotes.
    fn int<I: itoa::Integer>(self, value: I) -> Result<(), Error> {
        self.quoted(itoa::Buffer::new().format(value))
    }

    /// `text` in quotes (it needs no escape).
    fn quoted(self, text: &str) -> Result<(), Error> {
        self.0.push('"');
        put(self.0, text);
        self.0.push('"');
        Ok(())
    }
}

impl Serializer for Key<'_> {
    type Ok = ();
    type Error = Error;
    type SerializeStruct = Impossible<(), Error>;
    no_compounds!();

    fn serialize_str(self, v: &str) -> Result<(), Error> {
        escape(self.0, v);
        Ok(())
    }
    fn serialize_char(self, v: char) -> Result<(), Error> {
        character(self.0, v);
        Ok(())
    }
    fn serialize_bool(self, v: bool) -> Result<(), Error> {
        self.quoted(if v { "true" } else { "false" })
    }
    integers!();
    fn serialize_f32(self, v: f32) -> Result<(), Error> {
        if !v.is_finite() {
            return Err(Error::custom("float key must be finite (got NaN or +/-inf)"));
        }
        self.quoted(zmij::Buffer::new().format_finite(v))
    }
    fn serialize_f64(self, v: f64) -> Result<(), Error> {
        if !v.is_finite() {
            return Err(Error::custom("float key must be finite (got NaN or +/-inf)"));
        }
        self.quoted(zmij::Buffer::new().format_finite(v))
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<(), Error> {
        self.serialize_str(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        value.serialize(self)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Error> {
        value.serialize(self)
    }
    fn collect_str<T: Display + ?Sized>(self, value: &T) -> Result<(), Error> {
        displayed(self.0, value)
    }
    refuse! { key_must_be_a_string();
        serialize_bytes(&[u8]) -> ();
        serialize_none() -> ();
        serialize_unit() -> ();
        serialize_unit_struct(&'static str) -> ();
        serialize_seq(Option<usize>) -> Impossible<(), Error>;
        serialize_tuple(usize) -> Impossible<(), Error>;
        serialize_tuple_struct(&'static str, usize) -> Impossible<(), Error>;
        serialize_tuple_variant(&'static str, u32, &'static str, usize) -> Impossible<(), Error>;
        serialize_map(Option<usize>) -> Impossible<(), Error>;
        serialize_struct(&'static str, usize) -> Impossible<(), Error>;
        serialize_struct_variant(&'static str, u32, &'static str, usize) -> Impossible<(), Error>;
        @generic
        serialize_newtype_variant(&'static str, u32, &'static str);
    }
}

/// A [`Json`](super::Json)'s raw value (serde_json's `RawValue`, which
/// writes itself as a struct of one string field, its text): the text,
/// verbatim.
struct Verbatim<'a>(&'a mut String);

/// What a raw value's serialisation is not.
fn not_raw() -> Error {
    Error::custom("a Json holds a raw value")
}

impl<'a> Serializer for Verbatim<'a> {
    type Ok = ();
    type Error = Error;
    type SerializeStruct = Self;
    no_compounds!();

    fn serialize_str(self, v: &str) -> Result<(), Error> {
        put(self.0, v);
        Ok(())
    }
    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<Self, Error> {
        Ok(self)
    }
    fn collect_str<T: Display + ?Sized>(self, _value: &T) -> Result<(), Error> {
        Err(not_raw())
    }
    refuse! { not_raw();
        serialize_bool(bool) -> ();
        serialize_i8(i8) -> ();
        serialize_i16(i16) -> ();
        serialize_i32(i32) -> ();
        serialize_i64(i64) -> ();
        serialize_i128(i128) -> ();
        serialize_u8(u8) -> ();
        serialize_u16(u16) -> ();
        serialize_u32(u32) -> ();
        serialize_u64(u64) -> ();
        serialize_u128(u128) -> ();
        serialize_f32(f32) -> ();
        serialize_f64(f64) -> ();
        serialize_char(char) -> ();
        serialize_bytes(&[u8]) -> ();
        serialize_none() -> ();
        serialize_unit() -> ();
        serialize_unit_struct(&'static str) -> ();
        serialize_unit_variant(&'static str, u32, &'static str) -> ();
        serialize_seq(Option<usize>) -> Impossible<(), Error>;
        serialize_tuple(usize) -> Impossible<(), Error>;
        serialize_tuple_struct(&'static str, usize) -> Impossible<(), Error>;
        serialize_tuple_variant(&'static str, u32, &'static str, usize) -> Impossible<(), Error>;
        serialize_map(Option<usize>) -> Impossible<(), Error>;
        serialize_struct_variant(&'static str, u32, &'static str, usize) -> Impossible<(), Error>;
        @generic
        serialize_some();
        serialize_newtype_struct(&'static str);
        serialize_newtype_variant(&'static str, u32, &'static str);
    }
}

impl SerializeStruct for Verbatim<'_> {
    type Ok = ();
    type Error = Error;

    /// The raw value's one field: its text.
    fn serialize_field<T: Serialize + ?Sized>(&mut self, _key: &'static str, value: &T) -> Result<(), Error> {
        value.serialize(Verbatim(&mut *self.0))
    }
    fn end(self) -> Result<(), Error> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use proptest::prelude::*;
    use serde::Serialize;

    use super::to_json_string;
    use crate::message::{Extra, Json, Message};

    /// What both writers make of `value`: the same text, or both an error.
    fn same<T: Serialize + ?Sized>(value: &T) -> String {
        let lean = to_json_string(value);
        let plain = serde_json::to_string(value);
        match (lean, plain) {
            (Ok(lean), Ok(plain)) => {
                assert_eq!(lean, plain);
                lean
            }
            (Err(lean), Err(plain)) => {
                assert_eq!(lean.to_string(), plain.to_string());
                String::new()
            }
            (lean, plain) => panic!("lean {lean:?}, serde_json {plain:?}"),
        }
    }

    #[derive(Serialize)]
    struct Unit;

    #[derive(Serialize)]
    struct Newtype(u8);

    #[derive(Serialize)]
    struct Pair(i64, &'static str);

    #[derive(Serialize)]
    enum Outer {
        Unit,
        Newtype(Json),
        Tuple(u8, Option<u8>),
        Struct { a: f64, b: Vec<Json> },
    }

    #[derive(Serialize)]
    #[serde(tag = "kind", rename_all = "camelCase")]
    enum Inner {
        Empty,
        Full { text: String, json: Json },
        Wrapped(Pair2),
    }

    #[derive(Serialize)]
    struct Empty {}

    #[derive(Serialize)]
    struct Skipping {
        #[serde(skip_serializing_if = "Option::is_none")]
        a: Option<Option<u8>>,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        b: Vec<Empty>,
    }

    #[derive(Serialize)]
    struct Pair2 {
        left: u32,
        right: Option<Json>,
    }

    #[derive(Serialize)]
    #[serde(tag = "t", content = "c")]
    enum Adjacent {
        A(Json),
        B { x: bool },
    }

    #[derive(Serialize)]
    #[serde(untagged)]
    enum Either {
        Text(String),
        Raw(Json),
        Many(Vec<Inner>),
    }

    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Everything {
        unit: Unit,
        newtype: Newtype,
        pair: Pair,
        tuple: (char, i128, u128),
        outer: Vec<Outer>,
        inner: Vec<Inner>,
        adjacent: Vec<Adjacent>,
        either: Vec<Either>,
        floats: [f64; 4],
        #[serde(skip_serializing_if = "Option::is_none")]
        skipped: Option<u8>,
        absent: Option<String>,
        map: BTreeMap<String, Json>,
        empty: Vec<u8>,
        empty_map: BTreeMap<u8, u8>,
        bytes: serde_json::Value,
        #[serde(flatten)]
        extra: Extra,
    }

    fn json(text: &str) -> Json {
        Json::parse(text).unwrap()
    }

    #[test]
    fn writes_what_serde_json_writes() {
        let mut extra = Extra::new();
        extra.insert("cache_control".to_owned(), json(r#"{"type":"ephemeral"}"#));
        extra.insert("we\"ird\n".to_owned(), json("[1, 2.50 ,{}]"));
        let value = Everything {
            unit: Unit,
            newtype: Newtype(7),
            pair: Pair(-3, "a \"quoted\"\u{1} word"),
            tuple: ('é', -1 << 100, 1 << 120),
            outer: vec![
                Outer::Unit,
                Outer::Newtype(json(r#" {"z":1,"a":[true,null]} "#)),
                Outer::Tuple(1, None),
                Outer::Struct {
                    a: 0.1,
                    b: vec![json("1e2"), json("\"\\u00e9\"")],
                },
            ],
            inner: vec![
                Inner::Empty,
                Inner::Full {
                    text: "line\nbreak".to_owned(),
                    json: json("{}"),
                },
                Inner::Wrapped(Pair2 {
                    left: 4,
                    right: Some(json("null")),
                }),
            ],
            adjacent: vec![Adjacent::A(json("3")), Adjacent::B { x: true }],
            either: vec![
                Either::Text("t".to_owned()),
                Either::Raw(json(r#"{"k":"v"}"#)),
                Either::Many(vec![Inner::Empty]),
            ],
            floats: [f64::NAN, f64::INFINITY, -0.0, 1.5e300],
            skipped: None,
            absent: None,
            map: [("b".to_owned(), json("2")), ("a".to_owned(), json("[]"))].into(),
            empty: Vec::new(),
            empty_map: BTreeMap::new(),
            bytes: serde_json::json!({"n": [1, -2, 3.5], "s": "x"}),
            extra,
        };
        assert_eq!(same(&Vec::<u8>::new()), "[]");
        assert_eq!(same(&[Vec::new(), vec![1u8]]), "[[],[1]]");
        assert_eq!(same(&BTreeMap::<String, u8>::new()), "{}");
        assert_eq!(
            same(&[BTreeMap::new(), BTreeMap::from([(1u8, 2u8)])]),
            r#"[{},{"1":2}]"#
        );
        assert_eq!(same(&Empty {}), "{}");
        assert_eq!(
            same(&Skipping {
                a: None,
                b: Vec::new()
            }),
            "{}"
        );
        assert_eq!(
            same(&Skipping {
                a: Some(None),
                b: vec![Empty {}]
            }),
            r#"{"a":null,"b":[{}]}"#
        );
        assert_eq!(
            same(&Skipping {
                a: Some(Some(1)),
                b: Vec::new()
            }),
            r#"{"a":1}"#
        );
        let text = same(&value);
        assert!(
            text.contains(r#""outer":["Unit",{"Newtype":{"z":1,"a":[true,null]}}"#),
            "{text}"
        );
        assert!(text.contains(r#""cache_control":{"type":"ephemeral"}"#), "{text}");
    }

    /// A unit-variant key, a newtype key and a sequence key (refused).
    #[derive(Serialize, PartialEq, Eq, PartialOrd, Ord)]
    enum KeyKind {
        Named,
    }

    #[derive(Serialize, PartialEq, Eq, PartialOrd, Ord)]
    struct Wrapped(i16);

    /// Written through `collect_str`.
    struct Shown(&'static str);

    impl Serialize for Shown {
        fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            serializer.collect_str(self.0)
        }
    }

    /// Written through `serialize_bytes`.
    struct Bytes(&'static [u8]);

    impl Serialize for Bytes {
        fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            serializer.serialize_bytes(self.0)
        }
    }

    #[test]
    fn keys_bytes_and_displayed_text_are_written_alike() {
        assert_eq!(same(&BTreeMap::from([(-3i8, 1u8), (7, 2)])), r#"{"-3":1,"7":2}"#);
        assert_eq!(
            same(&BTreeMap::from([(u128::MAX, 'x')])),
            format!(r#"{{"{}":"x"}}"#, u128::MAX)
        );
        assert_eq!(
            same(&BTreeMap::from([(true, ()), (false, ())])),
            r#"{"false":null,"true":null}"#
        );
        assert_eq!(same(&BTreeMap::from([('\n', 0.5f32)])), r#"{"\n":0.5}"#);
        assert_eq!(same(&BTreeMap::from([(KeyKind::Named, 1)])), r#"{"Named":1}"#);
        assert_eq!(same(&BTreeMap::from([(Wrapped(-1), Some(2))])), r#"{"-1":2}"#);
        assert_eq!(same(&BTreeMap::from([(Some(1u32), 2)])), r#"{"1":2}"#);
        assert_eq!(same(&BTreeMap::from([(vec![1u8], 2)])), "");
        assert_eq!(same(&BTreeMap::from([((), 2)])), "");
        assert_eq!(same(&BTreeMap::from([(None::<u8>, 2)])), "");
        assert_eq!(same(&Shown("a \"b\"\u{7}")), r#""a \"b\"\u0007""#);
        assert_eq!(same(&Bytes(&[0, 255])), "[0,255]");
        assert_eq!(same(&Bytes(&[])), "[]");
        assert_eq!(
            same(&(f32::NAN, 1.25f32, -0.0f32, u8::MAX, i128::MIN)),
            format!("[null,1.25,-0.0,255,{}]", i128::MIN)
        );
    }

    #[test]
    fn messages_are_written_as_serde_json_writes_them() {
        let texts = [
            r#"{"uuid":"m1","role":"user","content":"hi"}"#,
            r#"{"uuid":"m1","role":"assistant","content":[{"type":"text","text":"a","citations":null},{"type":"tool_use","id":"t1","name":"Read","input":{"path":"/a","n":2.50}},{"type":"mystery","x":[1,{"y":2}]}],"stop_reason":"tool_use","usage":{"input_tokens":3,"output_tokens":4,"cache_read_input_tokens":5}}"#,
            r#"{"uuid":"m1","role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"ok"}],"is_error":false,"cache_control":{"type":"ephemeral"}}]}"#,
            r#"{"uuid":"m1","role":"assistant","content":[{"type":"thinking","thinking":"hm","signature":"c2ln"},{"type":"redacted_thinking","data":"xyz"}]}"#,
        ];
        for text in texts {
            let message: Message = serde_json::from_str(text).unwrap();
            same(&message);
            same(&message.content);
        }
    }

    #[test]
    fn a_raw_value_outside_a_json_is_refused() {
        let raw = serde_json::value::RawValue::from_string("[1]".to_owned()).unwrap();
        assert!(to_json_string(&raw).is_err());
        assert_eq!(to_json_string(&json("[1]")).unwrap(), "[1]");
    }

    #[test]
    fn a_json_reads_back_into_a_value() {
        let value = serde_json::to_value(json(r#"{"a":[1,2]}"#)).unwrap();
        assert_eq!(value, serde_json::json!({"a": [1, 2]}));
    }

    proptest! {
        #[test]
        fn strings_and_numbers_are_written_alike(s in ".*", n in any::<i64>(), f in any::<f64>(), keys in proptest::collection::vec(".*", 0..4)) {
            same(&(s.as_str(), n, f));
            let map: BTreeMap<&str, Option<f64>> = keys.iter().map(|k| (k.as_str(), Some(f))).collect();
            same(&map);
        }
    }
}
