//! `Deserialize` for [`ApiUsage`] and its `iterations` entries: one visitor
//! for both shapes (they share four of their five fields), where
//! `derive(Deserialize)` compiled two struct visitors into the module. It
//! reads exactly what the derived impls read, with the same errors: every
//! field optional (`null` or absent is `None`), unknown fields skipped, a
//! field given twice refused, the struct as an object or as an array of
//! its fields in order.

use std::fmt;

use serde::de::{DeserializeSeed, Error as _, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};

use super::{ApiIteration, ApiUsage};

/// The four counters, in the order both shapes declare them.
const COUNTERS: [&str; 4] = [
    "input_tokens",
    "output_tokens",
    "cache_creation_input_tokens",
    "cache_read_input_tokens",
];
const USAGE_FIELDS: &[&str] = &[
    "input_tokens",
    "output_tokens",
    "cache_creation_input_tokens",
    "cache_read_input_tokens",
    "iterations",
];
const ITERATION_FIELDS: &[&str] = &[
    "type",
    "input_tokens",
    "output_tokens",
    "cache_creation_input_tokens",
    "cache_read_input_tokens",
];

/// Which struct is read: `usage` itself (its counters, then `iterations`)
/// or one of its iterations (`type`, then its counters).
#[derive(Clone, Copy, PartialEq)]
enum Shape {
    Usage,
    Iteration,
}

/// What either shape holds.
#[derive(Default)]
struct Fields {
    kind: Option<String>,
    counters: [Option<f64>; 4],
    iterations: Option<Vec<ApiIteration>>,
}

impl<'de> Deserialize<'de> for ApiUsage {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let f = deserializer.deserialize_struct("ApiUsage", USAGE_FIELDS, Fields::visitor(Shape::Usage))?;
        let [input_tokens, output_tokens, cache_creation_input_tokens, cache_read_input_tokens] = f.counters;
        Ok(ApiUsage {
            input_tokens,
            output_tokens,
            cache_creation_input_tokens,
            cache_read_input_tokens,
            iterations: f.iterations,
        })
    }
}

impl<'de> Deserialize<'de> for ApiIteration {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let f = deserializer.deserialize_struct(
            "ApiIteration",
            ITERATION_FIELDS,
            Fields::visitor(Shape::Iteration),
        )?;
        let [input_tokens, output_tokens, cache_creation_input_tokens, cache_read_input_tokens] = f.counters;
        Ok(ApiIteration {
            kind: f.kind,
            input_tokens,
            output_tokens,
            cache_creation_input_tokens,
            cache_read_input_tokens,
        })
    }
}

impl Fields {
    fn visitor(shape: Shape) -> FieldsVisitor {
        FieldsVisitor(shape)
    }
}

/// A field of the shape being read.
enum Field {
    Kind,
    Counter(usize),
    Iterations,
    Other,
}

/// Reads a key as the shape's [`Field`].
struct Key(Shape);

impl<'de> DeserializeSeed<'de> for Key {
    type Value = Field;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Field, D::Error> {
        deserializer.deserialize_identifier(self)
    }
}

impl<'de> Visitor<'de> for Key {
    type Value = Field;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("field identifier")
    }

    fn visit_str<E: serde::de::Error>(self, name: &str) -> Result<Field, E> {
        Ok(match COUNTERS.iter().position(|c| *c == name) {
            Some(i) => Field::Counter(i),
            None if self.0 == Shape::Iteration && name == "type" => Field::Kind,
            None if self.0 == Shape::Usage && name == "iterations" => Field::Iterations,
            None => Field::Other,
        })
    }
}

struct FieldsVisitor(Shape);

impl<'de> Visitor<'de> for FieldsVisitor {
    type Value = Fields;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(match self.0 {
            Shape::Usage => "struct ApiUsage",
            Shape::Iteration => "struct ApiIteration",
        })
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Fields, A::Error> {
        let mut kind: Option<Option<String>> = None;
        let mut counters: [Option<Option<f64>>; 4] = [None; 4];
        let mut iterations: Option<Option<Vec<ApiIteration>>> = None;
        while let Some(key) = map.next_key_seed(Key(self.0))? {
            match key {
                Field::Kind => {
                    if kind.is_some() {
                        return Err(A::Error::duplicate_field("type"));
                    }
                    kind = Some(map.next_value()?);
                }
                Field::Counter(i) => {
                    if counters[i].is_some() {
                        return Err(A::Error::duplicate_field(COUNTERS[i]));
                    }
                    counters[i] = Some(map.next_value()?);
                }
                Field::Iterations => {
                    if iterations.is_some() {
                        return Err(A::Error::duplicate_field("iterations"));
                    }
                    iterations = Some(map.next_value()?);
                }
                Field::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(Fields {
            kind: kind.flatten(),
            counters: counters.map(Option::flatten),
            iterations: iterations.flatten(),
        })
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Fields, A::Error> {
        // The fields in declaration order; a missing one is `None`.
        let mut out = Fields::default();
        if self.0 == Shape::Iteration {
            out.kind = seq.next_element::<Option<String>>()?.flatten();
        }
        for slot in &mut out.counters {
            *slot = seq.next_element::<Option<f64>>()?.flatten();
        }
        if self.0 == Shape::Usage {
            out.iterations = seq.next_element::<Option<Vec<ApiIteration>>>()?.flatten();
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The derived impls this file replaces, to compare against.
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct ApiUsage {
        #[serde(default)]
        input_tokens: Option<f64>,
        #[serde(default)]
        output_tokens: Option<f64>,
        #[serde(default)]
        cache_creation_input_tokens: Option<f64>,
        #[serde(default)]
        cache_read_input_tokens: Option<f64>,
        #[serde(default)]
        iterations: Option<Vec<ApiIteration>>,
    }

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct ApiIteration {
        #[serde(rename = "type", default)]
        kind: Option<String>,
        #[serde(default)]
        input_tokens: Option<f64>,
        #[serde(default)]
        output_tokens: Option<f64>,
        #[serde(default)]
        cache_creation_input_tokens: Option<f64>,
        #[serde(default)]
        cache_read_input_tokens: Option<f64>,
    }

    #[test]
    fn reads_and_refuses_what_the_derived_impls_did() {
        let cases = [
            r#"{}"#,
            r#"null"#,
            r#"{"input_tokens": 5, "output_tokens": null, "model": "x", "type": 3}"#,
            r#"{"input_tokens": 5, "input_tokens": 6}"#,
            r#"{"iterations": null}"#,
            r#"{"iterations": [], "iterations": []}"#,
            r#"{"iterations": [{"type": "message", "input_tokens": 1.5, "iterations": 7}]}"#,
            r#"{"iterations": [{"type": 5}]}"#,
            r#"{"iterations": [{"type": "a", "type": "b"}]}"#,
            r#"{"iterations": [{"cache_read_input_tokens": 2, "cache_read_input_tokens": 2}]}"#,
            r#"{"iterations": [["message", 1, 2, 3, 4]]}"#,
            r#"{"iterations": [["message", 1], []]}"#,
            r#"{"iterations": [["message", 1, 2, 3, 4, 5]]}"#,
            r#"{"iterations": {"type": "message"}}"#,
            r#"{"iterations": ["x"]}"#,
            r#"[1, 2, 3, 4, [{"type": "message", "output_tokens": 9}]]"#,
            r#"[1, null]"#,
            r#"[1, 2, 3, 4, null, 6]"#,
            r#"{"output_tokens": "7"}"#,
            r#"{"output_tokens": true}"#,
            r#"{"output_tokens": 1e400}"#,
            r#"{"output_tokens": -0.0, "cache_creation_input_tokens": 18446744073709551615}"#,
            r#"{"input\u005ftokens": 3}"#,
            r#""usage""#,
            r#"7"#,
            r#"{"input_tokens": 5,}"#,
            r#"{"input_tokens": 5"#,
        ];
        for text in cases {
            let ours = serde_json::from_str::<super::ApiUsage>(text)
                .map(|u| format!("{u:?}"))
                .map_err(|e| e.to_string());
            let derived = serde_json::from_str::<ApiUsage>(text)
                .map(|u| format!("{u:?}"))
                .map_err(|e| e.to_string());
            assert_eq!(ours, derived, "{text}");
            // Through serde_json's `Value` too (the CLI's path for records).
            let Ok(value) = serde_json::from_str::<serde_json::Value>(text) else {
                continue;
            };
            let ours = serde_json::from_value::<super::ApiUsage>(value.clone())
                .map(|u| format!("{u:?}"))
                .map_err(|e| e.to_string());
            let derived = serde_json::from_value::<ApiUsage>(value)
                .map(|u| format!("{u:?}"))
                .map_err(|e| e.to_string());
            assert_eq!(ours, derived, "{text} as a Value");
        }
    }
}
