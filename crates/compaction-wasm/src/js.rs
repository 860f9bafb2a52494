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
