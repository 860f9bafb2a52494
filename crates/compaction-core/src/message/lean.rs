//! [`to_json_string`]: JSON text exactly as `serde_json::to_string` writes
//! it, with every struct written through serde_json's map writer.
//!
//! serde_json writes a struct's field as a map entry too, but first checks
//! the field's key against its raw-value marker (a call comparing two
//! strings, compiled into every field of every `Serialize` the module
//! holds). [`Maps`] starts a struct as a map (the same `{`, the same
//! `"key":value` entries, the same `}`), so no field checks anything; only a
//! raw value (a [`Json`](super::Json)'s text), whose struct name is the
//! marker, takes serde_json's struct writer. The name is a constant at each
//! struct's `serialize_struct`, so which way it goes is decided when the
//! module is built, not at run time. A struct's map, a map and a sequence
//! are started without a length and an option's value written as itself,
//! as serde_json writes them anyway (`{}` and `[]` when empty; `Some(v)` as
//! `v`): what no caller needs is not computed or passed at each of them.
//! [`to_json_string`] is its only user: what it wraps is serde_json's
//! serializer, always.

use std::fmt::Display;

use serde::ser::{
    Serialize, SerializeMap, SerializeSeq, SerializeStruct, SerializeStructVariant, SerializeTuple,
    SerializeTupleStruct, SerializeTupleVariant, Serializer,
};

/// The struct name serde_json's `RawValue` writes itself under (its
/// `raw::TOKEN`, which it does not export).
const RAW_VALUE: &str = "$serde_json::private::RawValue";

/// The newtype name a [`Json`](super::Json) writes its raw value under:
/// serde_json's serializers ignore it (they write the raw value inside);
/// [`Maps`] hands that value on unwrapped.
pub(crate) const RAW_JSON: &str = "$compaction::Json";

/// `value` as JSON text, byte for byte what `serde_json::to_string` writes
/// (and fails where it fails), in less code per struct field.
pub fn to_json_string<T: Serialize + ?Sized>(value: &T) -> serde_json::Result<String> {
    serde_json::to_string(&Lean(value))
}

/// A value written through [`Maps`].
struct Lean<'a, T: ?Sized>(&'a T);

impl<T: Serialize + ?Sized> Serialize for Lean<'_, T> {
    #[inline]
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(Maps(serializer))
    }
}

/// A serializer (and each of its compound writers) that hands everything
/// to the one it wraps, but a struct to its map writer; what it writes
/// inside goes through `Maps` again.
struct Maps<S>(S);

/// A struct's fields, as map entries.
struct Fields<M>(M);

impl<S: Serializer> Serializer for Maps<S> {
    type Ok = S::Ok;
    type Error = S::Error;
    type SerializeSeq = Maps<S::SerializeSeq>;
    type SerializeTuple = Maps<S::SerializeTuple>;
    type SerializeTupleStruct = Maps<S::SerializeTupleStruct>;
    type SerializeTupleVariant = Maps<S::SerializeTupleVariant>;
    type SerializeMap = Maps<S::SerializeMap>;
    type SerializeStruct = Fields<S::SerializeMap>;
    type SerializeStructVariant = Maps<S::SerializeStructVariant>;

    fn serialize_bool(self, v: bool) -> Result<S::Ok, S::Error> {
        self.0.serialize_bool(v)
    }
    fn serialize_i8(self, v: i8) -> Result<S::Ok, S::Error> {
        self.0.serialize_i8(v)
    }
    fn serialize_i16(self, v: i16) -> Result<S::Ok, S::Error> {
        self.0.serialize_i16(v)
    }
    fn serialize_i32(self, v: i32) -> Result<S::Ok, S::Error> {
        self.0.serialize_i32(v)
    }
    fn serialize_i64(self, v: i64) -> Result<S::Ok, S::Error> {
        self.0.serialize_i64(v)
    }
    fn serialize_i128(self, v: i128) -> Result<S::Ok, S::Error> {
        self.0.serialize_i128(v)
    }
    fn serialize_u8(self, v: u8) -> Result<S::Ok, S::Error> {
        self.0.serialize_u8(v)
    }
    fn serialize_u16(self, v: u16) -> Result<S::Ok, S::Error> {
        self.0.serialize_u16(v)
    }
    fn serialize_u32(self, v: u32) -> Result<S::Ok, S::Error> {
        self.0.serialize_u32(v)
    }
    fn serialize_u64(self, v: u64) -> Result<S::Ok, S::Error> {
        self.0.serialize_u64(v)
    }
    fn serialize_u128(self, v: u128) -> Result<S::Ok, S::Error> {
        self.0.serialize_u128(v)
    }
    fn serialize_f32(self, v: f32) -> Result<S::Ok, S::Error> {
        self.0.serialize_f32(v)
    }
    fn serialize_f64(self, v: f64) -> Result<S::Ok, S::Error> {
        self.0.serialize_f64(v)
    }
    fn serialize_char(self, v: char) -> Result<S::Ok, S::Error> {
        self.0.serialize_char(v)
    }
    fn serialize_str(self, v: &str) -> Result<S::Ok, S::Error> {
        self.0.serialize_str(v)
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<S::Ok, S::Error> {
        self.0.serialize_bytes(v)
    }
    fn serialize_none(self) -> Result<S::Ok, S::Error> {
        self.0.serialize_none()
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<S::Ok, S::Error> {
        // serde_json writes the value itself.
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<S::Ok, S::Error> {
        self.0.serialize_unit()
    }
    fn serialize_unit_struct(self, name: &'static str) -> Result<S::Ok, S::Error> {
        self.0.serialize_unit_struct(name)
    }
    fn serialize_unit_variant(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
    ) -> Result<S::Ok, S::Error> {
        self.0.serialize_unit_variant(name, index, variant)
    }
    /// A [`Json`](super::Json)'s raw value goes to the wrapped serializer
    /// as it is (serde_json writes its text verbatim). Inlined, so that the
    /// name's comparison folds away.
    #[inline(always)]
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        value: &T,
    ) -> Result<S::Ok, S::Error> {
        if name.len() == RAW_JSON.len() && name == RAW_JSON {
            return self.0.serialize_newtype_struct(name, value);
        }
        self.0.serialize_newtype_struct(name, &Lean(value))
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<S::Ok, S::Error> {
        self.0
            .serialize_newtype_variant(name, index, variant, &Lean(value))
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<Self::SerializeSeq, S::Error> {
        let _ = len;
        self.0.serialize_seq(None).map(Maps)
    }
    fn serialize_tuple(self, len: usize) -> Result<Self::SerializeTuple, S::Error> {
        self.0.serialize_tuple(len).map(Maps)
    }
    fn serialize_tuple_struct(
        self,
        name: &'static str,
        len: usize,
    ) -> Result<Self::SerializeTupleStruct, S::Error> {
        self.0.serialize_tuple_struct(name, len).map(Maps)
    }
    fn serialize_tuple_variant(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Self::SerializeTupleVariant, S::Error> {
        self.0
            .serialize_tuple_variant(name, index, variant, len)
            .map(Maps)
    }
    fn serialize_map(self, len: Option<usize>) -> Result<Self::SerializeMap, S::Error> {
        let _ = len;
        self.0.serialize_map(None).map(Maps)
    }
    /// A raw value written as a struct is refused, not written as a map:
    /// [`Json`](super::Json) writes its text through
    /// [`Maps::serialize_newtype_struct`]. Inlined, so that the name's
    /// comparison folds away wherever the name is not the marker's length
    /// (every struct).
    #[inline(always)]
    fn serialize_struct(self, name: &'static str, len: usize) -> Result<Self::SerializeStruct, S::Error> {
        if name.len() == RAW_VALUE.len() && name == RAW_VALUE {
            return Err(serde::ser::Error::custom("a raw value outside a Json"));
        }
        // serde_json writes `{}` for an empty map either way; the length
        // goes unread, and so uncounted.
        let _ = len;
        self.0.serialize_map(None).map(Fields)
    }
    fn serialize_struct_variant(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Self::SerializeStructVariant, S::Error> {
        self.0
            .serialize_struct_variant(name, index, variant, len)
            .map(Maps)
    }
    fn collect_str<T: Display + ?Sized>(self, value: &T) -> Result<S::Ok, S::Error> {
        self.0.collect_str(value)
    }
    fn is_human_readable(&self) -> bool {
        self.0.is_human_readable()
    }
}

impl<M: SerializeMap> SerializeMap for Maps<M> {
    type Ok = M::Ok;
    type Error = M::Error;

    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), M::Error> {
        self.0.serialize_key(key)
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), M::Error> {
        self.0.serialize_value(&Lean(value))
    }
    fn serialize_entry<K: Serialize + ?Sized, V: Serialize + ?Sized>(
        &mut self,
        key: &K,
        value: &V,
    ) -> Result<(), M::Error> {
        self.0.serialize_entry(key, &Lean(value))
    }
    fn end(self) -> Result<M::Ok, M::Error> {
        self.0.end()
    }
}

/// The compound writers but a map's: each element or field through
/// [`Maps`] (a struct's field as its map's entry).
macro_rules! compounds {
    ($($writer:ident for $ty:ident<$inner:ident>: $method:ident => $to:ident $(, $key:ident)?;)*) => {$(
        impl<M: $inner> $writer for $ty<M> {
            type Ok = M::Ok;
            type Error = M::Error;

            fn $method<T: Serialize + ?Sized>(
                &mut self,
                $($key: &'static str,)?
                value: &T,
            ) -> Result<(), M::Error> {
                self.0.$to($($key,)? &Lean(value))
            }
            fn end(self) -> Result<M::Ok, M::Error> {
                self.0.end()
            }
        }
    )*};
}

compounds! {
    SerializeSeq for Maps<SerializeSeq>: serialize_element => serialize_element;
    SerializeTuple for Maps<SerializeTuple>: serialize_element => serialize_element;
    SerializeTupleStruct for Maps<SerializeTupleStruct>: serialize_field => serialize_field;
    SerializeTupleVariant for Maps<SerializeTupleVariant>: serialize_field => serialize_field;
    SerializeStructVariant for Maps<SerializeStructVariant>: serialize_field => serialize_field, key;
    SerializeStruct for Fields<SerializeMap>: serialize_field => serialize_entry, key;
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
