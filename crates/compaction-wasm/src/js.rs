//! Values across the boundary, both ways, through JSON: serde_json writes
//! and reads, the JS engine's `JSON.parse`/`JSON.stringify` the other side.

use serde::Serialize;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::error::{js_error, ENGINE_ERROR};

/// Values out: plain objects, `null` for absent optionals, numbers (never
/// BigInt). Written as JSON by serde_json and read by the JS engine's
/// `JSON.parse`: one code path for every type (a small module), and fast.
pub fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, JsValue> {
    let json = serde_json::to_string(value).map_err(|err| js_error(ENGINE_ERROR, "", &err.to_string()))?;
    js_sys::JSON::parse(&json)
}

/// Values in: a JS value read through `JSON.stringify` and serde_json (the
/// same path as the JSON-string bulk loads). `undefined`, functions and
/// symbols are errors, never silently dropped.
pub fn from_js<T: serde::de::DeserializeOwned>(value: &JsValue) -> Result<T, String> {
    if value.is_undefined() || value.is_function() || value.is_symbol() {
        return Err("expected a JSON value".to_owned());
    }
    let json = js_sys::JSON::stringify(value)
        .map_err(|e| {
            e.dyn_ref::<js_sys::Error>()
                .map(|e| String::from(e.message()))
                .unwrap_or_else(|| "not serializable as JSON".to_owned())
        })?
        .as_string()
        .ok_or_else(|| "not serializable as JSON".to_owned())?;
    serde_json::from_slice(json.as_bytes()).map_err(|e| e.to_string())
}

/// `Deserialize` for a field-less enum: a string naming one of `names`,
/// the variant at the same place in `all`. One small function, where
/// `derive(Deserialize)` would compile a visitor per enum into the module.
#[cfg(feature = "engine")]
pub(crate) fn variant<'de, D: serde::Deserializer<'de>, T: Copy, const N: usize>(
    deserializer: D,
    names: &'static [&'static str; N],
    all: [T; N],
) -> Result<T, D::Error> {
    let name = <String as serde::Deserialize>::deserialize(deserializer)?;
    names
        .iter()
        .position(|n| *n == name)
        .and_then(|at| all.get(at).copied())
        .ok_or_else(|| serde::de::Error::unknown_variant(&name, names))
}

/// Each object of the JS array `list` as its string fields `keys` (absent
/// or `null`: `None`), read straight from the objects. Anything else is an
/// error naming the place (`[2].path must be a string`).
#[cfg(feature = "engine")]
pub(crate) fn string_fields<const N: usize>(
    list: &JsValue,
    keys: [&str; N],
) -> Result<Vec<[Option<String>; N]>, String> {
    if !js_sys::Array::is_array(list) {
        return Err(" is not an array".to_owned());
    }
    let array = js_sys::Array::from(list);
    let mut out = Vec::with_capacity(array.length() as usize);
    for (i, item) in array.iter().enumerate() {
        out.push(object_strings(&item, keys).map_err(|e| format!("[{i}]{e}"))?);
    }
    Ok(out)
}

/// One object's string fields `keys` (absent or `null`: `None`).
#[cfg(feature = "engine")]
pub(crate) fn object_strings<const N: usize>(
    object: &JsValue,
    keys: [&str; N],
) -> Result<[Option<String>; N], String> {
    if !object.is_object() || js_sys::Array::is_array(object) {
        return Err(" must be an object".to_owned());
    }
    let mut row: [Option<String>; N] = std::array::from_fn(|_| None);
    for (slot, key) in row.iter_mut().zip(keys) {
        let value = js_sys::Reflect::get(object, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED);
        if value.is_undefined() || value.is_null() {
            continue;
        }
        *slot = Some(
            value
                .as_string()
                .ok_or_else(|| format!(".{key} must be a string"))?,
        );
    }
    Ok(row)
}

/// A JS array of strings.
#[cfg(feature = "engine")]
pub(crate) fn strings(list: &JsValue) -> Result<Vec<String>, String> {
    if !js_sys::Array::is_array(list) {
        return Err("not an array".to_owned());
    }
    js_sys::Array::from(list)
        .iter()
        .enumerate()
        .map(|(i, item)| item.as_string().ok_or_else(|| format!("[{i}] is not a string")))
        .collect()
}
