//! Values across the boundary, both ways, through JSON: serde_json writes
//! and reads, the JS engine's `JSON.parse`/`JSON.stringify` the other side.

use serde::Serialize;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::error::{js_error, js_error_caused, ENGINE_ERROR, INVALID_ARGUMENT, INVALID_MESSAGE};

#[wasm_bindgen]
extern "C" {
    /// `Array.isArray`, its throw (a revoked Proxy) returned, not thrown
    /// through the engine's frames.
    #[wasm_bindgen(catch, js_namespace = Array, js_name = isArray)]
    fn is_array_catching(value: &JsValue) -> Result<bool, JsValue>;
    /// `Array.from`, its throw (a Proxy's trap, an iterator) returned.
    #[wasm_bindgen(catch, js_namespace = Array, js_name = from)]
    fn array_from_catching(value: &JsValue) -> Result<js_sys::Array, JsValue>;
    /// `ArrayBuffer.isView`: true only for a real typed array or DataView
    /// (never runs a Proxy's traps).
    #[wasm_bindgen(catch, js_namespace = ArrayBuffer, js_name = isView)]
    fn is_view_catching(value: &JsValue) -> Result<bool, JsValue>;
    /// `Object.getPrototypeOf`, its throw (a Proxy's trap) returned.
    #[wasm_bindgen(catch, js_namespace = Object, js_name = getPrototypeOf)]
    fn prototype_catching(value: &JsValue) -> Result<JsValue, JsValue>;
    /// `Object.keys`, its throw (a Proxy's trap) returned.
    #[wasm_bindgen(catch, js_namespace = Object, js_name = keys)]
    fn keys_catching(value: &JsValue) -> Result<js_sys::Array, JsValue>;
    /// `Object.hasOwn`, its throw (a Proxy's trap) returned.
    #[wasm_bindgen(catch, js_namespace = Object, js_name = hasOwn)]
    fn has_own_catching(value: &JsValue, key: &str) -> Result<bool, JsValue>;
}

/// The own enumerable keys of a plain object (`{…}` or
/// `Object.create(null)`, of any realm): arrays, `Map`s, class instances
/// and objects inheriting from another object are `Ok(None)`; a Proxy's
/// throwing trap is an error at `field`.
pub fn plain_keys(value: &JsValue, field: &str) -> Result<Option<Vec<String>>, JsValue> {
    if !value.is_object() || is_array(value, field)? {
        return Ok(None);
    }
    let proto = prototype_catching(value).map_err(|e| threw(field, &e))?;
    if !proto.is_null()
        && !prototype_catching(&proto)
            .map_err(|e| threw(field, &e))?
            .is_null()
    {
        return Ok(None);
    }
    let keys = keys_catching(value).map_err(|e| threw(field, &e))?;
    Ok(Some(keys.iter().filter_map(|k| k.as_string()).collect()))
}

/// `object[key]` when `object` has `key` as its own property, else
/// `undefined` (an inherited value is never read); a throw is an error at
/// `field`.
pub fn own(object: &JsValue, key: &str, field: &str) -> Result<JsValue, JsValue> {
    if !object.is_object() || !has_own_catching(object, key).map_err(|e| threw(field, &e))? {
        return Ok(JsValue::UNDEFINED);
    }
    get(object, key, field)
}

/// The error for an argument whose reading threw (a getter, a Proxy's
/// trap): `INVALID_ARGUMENT` at `field`, what it threw as `cause`.
pub fn threw(field: &str, cause: &JsValue) -> JsValue {
    let what = cause
        .dyn_ref::<js_sys::Error>()
        .map(|e| cut(&String::from(e.message()), 200))
        .unwrap_or_else(|| "a value that is not an Error".to_owned());
    let at = if field.is_empty() {
        String::new()
    } else {
        compaction_core::concat(field, ": ")
    };
    js_error_caused(
        INVALID_ARGUMENT,
        field,
        &compaction_core::concat3(&at, "reading it threw: ", &what),
        cause,
    )
}

/// `text` cut to at most `max` characters (an ellipsis says so): inputs
/// quoted in error messages stay short.
pub fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        None => text.to_owned(),
        Some((at, _)) => format!("{}…", &text[..at]),
    }
}

/// `Array.isArray(value)`, a throw (a revoked Proxy) an error at `field`.
pub fn is_array(value: &JsValue, field: &str) -> Result<bool, JsValue> {
    is_array_catching(value).map_err(|e| threw(field, &e))
}

/// A JS array argument copied into a plain array (a Proxy's traps and
/// getters run once, here, their throws an error at `field`); `None` when
/// `value` is not an array. More than `max` elements is an error (a sparse
/// `length: 2 ** 32 - 1` is refused, not walked).
pub fn array(value: &JsValue, field: &str, max: u32) -> Result<Option<js_sys::Array>, JsValue> {
    if !is_array(value, field)? {
        return Ok(None);
    }
    let length = get(value, "length", field)?.as_f64().unwrap_or(0.0);
    if length > f64::from(max) {
        return Err(js_error(
            INVALID_ARGUMENT,
            field,
            &format!(
                "{field} has {} elements; at most {max} are taken",
                compaction_core::error::Num(length)
            ),
        ));
    }
    array_from_catching(value).map(Some).map_err(|e| threw(field, &e))
}

/// `object[key]` (`undefined` when `object` is not an object), a throw (a
/// getter, a Proxy's trap) an error at `field`.
pub fn get(object: &JsValue, key: &str, field: &str) -> Result<JsValue, JsValue> {
    if !object.is_object() && !object.is_function() {
        return Ok(JsValue::UNDEFINED);
    }
    js_sys::Reflect::get(object, &JsValue::from_str(key)).map_err(|e| threw(field, &e))
}

/// A text argument: a string, or UTF-8 bytes (a `Uint8Array`, Node's
/// `Buffer`) when `bytes` is set. Anything else is an `INVALID_ARGUMENT`
/// error at `field` saying what it got.
pub fn text(value: &JsValue, field: &str, bytes: bool) -> Result<String, JsValue> {
    if let Some(text) = value.dyn_ref::<js_sys::JsString>() {
        return Ok(utf8(text));
    }
    if bytes {
        if let Some(raw) = byte_view(value, field)? {
            return String::from_utf8(raw).map_err(|e| {
                js_error(
                    INVALID_ARGUMENT,
                    field,
                    &format!(
                        "{field}: the bytes are not UTF-8 text (at byte {})",
                        e.utf8_error().valid_up_to()
                    ),
                )
            });
        }
    }
    let wanted = if bytes {
        "a string or a Uint8Array"
    } else {
        "a string"
    };
    Err(js_error(
        INVALID_ARGUMENT,
        field,
        &format!("{field} must be {wanted}, got {}", kind(value)),
    ))
}

/// An optional text argument: `undefined` and `null` are `None`.
pub fn opt_text(value: &JsValue, field: &str) -> Result<Option<String>, JsValue> {
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    text(value, field, false).map(Some)
}

/// The bytes of a `Uint8Array` (a `Buffer`), copied; `None` for any other
/// value. A detached buffer's view is empty, never an exception.
pub fn byte_view(value: &JsValue, field: &str) -> Result<Option<Vec<u8>>, JsValue> {
    if !is_view_catching(value).map_err(|e| threw(field, &e))? {
        return Ok(None);
    }
    let Some(view) = value.dyn_ref::<js_sys::Uint8Array>() else {
        return Ok(None);
    };
    if view.length() == 0 {
        return Ok(Some(Vec::new()));
    }
    Ok(Some(view.to_vec()))
}

/// What a rejected argument is, for an error message: its type (a string
/// shown cut short).
pub fn kind(value: &JsValue) -> String {
    if let Some(s) = value.as_string() {
        return format!("\"{}\"", cut(&s, 40));
    }
    if value.is_null() {
        return "null".to_owned();
    }
    if is_array_catching(value).unwrap_or(false) {
        return "an array".to_owned();
    }
    match value.js_typeof().as_string().as_deref() {
        Some("object") => "an object".to_owned(),
        Some("undefined") => "undefined".to_owned(),
        Some(other) => compaction_core::concat("a ", other),
        None => "a value".to_owned(),
    }
}

/// `value` as JSON text (an object or a list of them), or an error naming `field`.
pub fn json_text(value: &JsValue, field: &str) -> Result<String, JsValue> {
    if !value.is_object() {
        return Err(js_error(
            INVALID_MESSAGE,
            field,
            &compaction_core::concat(field, " must be an object"),
        ));
    }
    js_sys::JSON::stringify(value)
        .ok()
        .filter(|s| !s.is_undefined())
        .map(|s| utf8(&s))
        .ok_or_else(|| {
            js_error(
                INVALID_MESSAGE,
                field,
                &compaction_core::concat(field, " is not writable as JSON"),
            )
        })
}

/// Values out: plain objects, `null` for absent optionals, numbers (never
/// BigInt). Written as JSON by serde_json and read by the JS engine's
/// `JSON.parse`: one code path for every type (a small module), and fast.
///
/// Only the writing is generic: the rest (the shared arrays, `JSON.parse`,
/// the error) is one function for every type, not one copy per type.
/// Each type's writing is its [`WriteJson::write_json`], called through
/// one vtable: no wrapper and closure per type around it.
pub fn to_js(value: &dyn WriteJson) -> Result<JsValue, JsValue> {
    #[cfg(feature = "engine")]
    return shared::to_js(value);
    #[cfg(not(feature = "engine"))]
    parsed(value)
}

/// A value [`to_js`] takes: anything `Serialize`, written as JSON text.
pub trait WriteJson {
    /// The value's JSON text.
    fn write_json(&self) -> serde_json::Result<String>;
}

impl<T: Serialize> WriteJson for T {
    fn write_json(&self) -> serde_json::Result<String> {
        compaction_core::message::to_json_string(self)
    }
}

/// What `value` writes, read by `JSON.parse`.
fn parsed(value: &dyn WriteJson) -> Result<JsValue, JsValue> {
    let json = value
        .write_json()
        .map_err(|err| js_error(ENGINE_ERROR, "", &err.to_string()))?;
    js_sys::JSON::parse(&json)
}

/// Values in: a JS value read through `JSON.stringify` and serde_json (the
/// same path as the JSON-string bulk loads). `undefined`, functions and
/// symbols are errors, never silently dropped.
pub fn from_js<T: serde::de::DeserializeOwned>(value: &JsValue) -> Result<T, String> {
    from_js_at(value).map_err(|(e, _)| e)
}

/// [`from_js`], a shape error with the path inside `value` where it is
/// (`.content[1].input`; empty at the top).
pub fn from_js_at<T: serde::de::DeserializeOwned>(value: &JsValue) -> Result<T, (String, String)> {
    let json = from_js_text(value).map_err(|e| (e, String::new()))?;
    // JSON.stringify writes a lone surrogate as an escape: U+FFFD here
    // (only ASCII escapes change: still UTF-8). Read as text: serde_json
    // checks no string's UTF-8 again.
    let json = match compaction_core::message::surrogates::replace_lone_surrogates(json.as_bytes()).0 {
        std::borrow::Cow::Borrowed(_) => json,
        std::borrow::Cow::Owned(fixed) => {
            String::from_utf8(fixed).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
        }
    };
    serde_json::from_str(&json).map_err(|e| (clean(&e), error_path(json.as_bytes(), &e)))
}

/// `value` as JSON text.
fn from_js_text(value: &JsValue) -> Result<String, String> {
    // An object (a message appended) is asked one question, not three.
    if !value.is_object() && (value.is_undefined() || value.is_function() || value.is_symbol()) {
        return Err("expected a JSON value".to_owned());
    }
    let json = js_sys::JSON::stringify(value).map_err(|e| {
        e.dyn_ref::<js_sys::Error>()
            .map(|e| String::from(e.message()))
            .unwrap_or_else(|| "not serializable as JSON".to_owned())
    })?;
    if json.is_undefined() {
        return Err("not serializable as JSON".to_owned());
    }
    Ok(utf8(&json))
}

/// Where a serde_json error stopped in `json`: the path of the value there
/// (`.content[1].input`, `[3].content`), a missing field's name added. Only
/// on errors: a scan of the text up to the error's position.
pub fn error_path(json: &[u8], error: &serde_json::Error) -> String {
    // The error's line and column (bytes) as an offset.
    let mut line = 1;
    let mut start = 0;
    for (i, &b) in json.iter().enumerate() {
        if line == error.line() {
            break;
        }
        if b == b'\n' {
            line += 1;
            start = i + 1;
        }
    }
    let end = (start + error.column()).min(json.len());
    // Per open container: an object's current key, an array's index.
    let mut stack: Vec<Result<Option<String>, usize>> = Vec::new();
    let mut key_next = false;
    let mut i = 0;
    while i < end {
        match json.get(i).copied().unwrap_or(b' ') {
            b'{' => {
                stack.push(Ok(None));
                key_next = true;
            }
            b'[' => stack.push(Err(0)),
            b'}' | b']' => {
                stack.pop();
            }
            b',' => match stack.last_mut() {
                Some(Err(n)) => *n += 1,
                Some(Ok(_)) => key_next = true,
                None => {}
            },
            b'"' => {
                let from = i + 1;
                i += 1;
                while i < json.len() && json.get(i) != Some(&b'"') {
                    i += if json.get(i) == Some(&b'\\') { 2 } else { 1 };
                }
                if key_next {
                    if let Some(Ok(key)) = stack.last_mut() {
                        let text = json.get(from..i.min(json.len())).unwrap_or_default();
                        *key = Some(String::from_utf8_lossy(text).into_owned());
                    }
                    key_next = false;
                }
            }
            _ => {}
        }
        i += 1;
    }
    let mut path = String::new();
    for frame in &stack {
        match frame {
            Ok(Some(key)) => {
                path.push('.');
                path.push_str(&cut(key, 60));
            }
            Ok(None) => {}
            Err(n) => path.push_str(&format!("[{n}]")),
        }
    }
    let text = error.to_string();
    if let Some(rest) = text.strip_prefix("missing field `") {
        if let Some(name) = rest.split('`').next() {
            path.push('.');
            path.push_str(name);
        }
    }
    path
}

/// A serde_json error in the caller's words: without the position in the
/// engine's own serialisation ("at line 1 column 57", meaningless to a
/// caller who passed an object) nor the binding's Rust type names
/// ("expected struct ApiUsage"), cut short.
pub fn clean(error: &serde_json::Error) -> String {
    let text = error.to_string();
    let at = format!(" at line {} column {}", error.line(), error.column());
    let text = text.strip_suffix(at.as_str()).unwrap_or(&text).as_bytes();
    // "struct ApiUsage" → "an object", "enum InRole" → "one of the names".
    let mut out = Vec::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        let rest = &text[i..];
        let (word, said): (usize, &[u8]) = if rest.starts_with(b"struct ") {
            (7, b"an object")
        } else if rest.starts_with(b"enum ") {
            (5, b"one of the names")
        } else {
            out.push(text[i]);
            i += 1;
            continue;
        };
        out.extend_from_slice(said);
        i += word;
        while i < text.len() && (text[i].is_ascii_alphanumeric() || text[i] == b'_') {
            i += 1;
        }
    }
    cut(&String::from_utf8_lossy(&out), 300)
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
/// error naming the place (`[2].path must be a string`); a read that throws
/// (a getter, a Proxy) is the error it threw, as `cause`.
#[cfg(feature = "engine")]
pub(crate) fn string_fields<const N: usize>(
    list: &JsValue,
    keys: [&str; N],
) -> Result<Vec<[Option<String>; N]>, String> {
    let array = list_of_objects(list)?;
    let mut out = Vec::with_capacity(array.length() as usize);
    for (i, item) in array.iter().enumerate() {
        let mut row: [Option<String>; N] = std::array::from_fn(|_| None);
        fill_strings(&item, &keys, &mut row).map_err(|e| format!("[{i}]{e}"))?;
        out.push(row);
    }
    Ok(out)
}

/// [`string_fields`]'s array.
#[cfg(feature = "engine")]
fn list_of_objects(list: &JsValue) -> Result<js_sys::Array, String> {
    array(list, "", MAX_LIST)
        .map_err(|e| described(&e))?
        .ok_or_else(|| " is not an array".to_owned())
}

/// The most elements an array argument may have (a list of uuids, of
/// files, of messages): far above any real session.
pub const MAX_LIST: u32 = 1 << 24;

/// The message of an error made by [`threw`] or [`array`], for callers
/// that wrap it in their own.
#[cfg(feature = "engine")]
fn described(error: &JsValue) -> String {
    error
        .dyn_ref::<js_sys::Error>()
        .map(|e| format!(": {}", String::from(e.message())))
        .unwrap_or_default()
}

/// One object's string fields `keys` (absent or `null`: `None`).
#[cfg(feature = "engine")]
pub(crate) fn object_strings<const N: usize>(
    object: &JsValue,
    keys: [&str; N],
) -> Result<[Option<String>; N], String> {
    let mut row: [Option<String>; N] = std::array::from_fn(|_| None);
    fill_strings(object, &keys, &mut row)?;
    Ok(row)
}

/// [`object_strings`] into `row` (one slot per key): one function for
/// every number of keys.
#[cfg(feature = "engine")]
fn fill_strings(object: &JsValue, keys: &[&str], row: &mut [Option<String>]) -> Result<(), String> {
    if !object.is_object() || is_array(object, "").unwrap_or(true) {
        return Err(" must be an object".to_owned());
    }
    for (slot, key) in row.iter_mut().zip(keys) {
        let value = get(object, key, "").map_err(|e| format!(".{key}{}", described(&e)))?;
        if value.is_undefined() || value.is_null() {
            continue;
        }
        *slot = Some(
            value
                .as_string()
                .ok_or_else(|| compaction_core::concat3(".", key, " must be a string"))?,
        );
    }
    Ok(())
}

/// A JS array of strings.
#[cfg(feature = "engine")]
pub(crate) fn strings(list: &JsValue) -> Result<Vec<String>, String> {
    let list = array(list, "", MAX_LIST)
        .map_err(|e| format!("it could not be read{}", described(&e)))?
        .ok_or_else(|| "not an array".to_owned())?;
    list.iter()
        .enumerate()
        .map(|(i, item)| item.as_string().ok_or_else(|| format!("[{i}] is not a string")))
        .collect()
}

/// A JS string as UTF-8, written by `TextEncoder.encodeInto` straight into
/// a buffer the module allocated: as many bytes as the string has UTF-16
/// units first (all of it when it is ASCII), then room for what is left,
/// growing by half at a time up to three bytes a unit, and trimmed to what
/// was written. wasm-bindgen's own copy loops over an ASCII string
/// one character at a time in JS, and reserves three bytes a unit for any
/// other string. Lone surrogates become U+FFFD, as there.
fn utf8(text: &js_sys::JsString) -> String {
    thread_local! {
        static ENCODER: TextEncoder = TextEncoder::new();
    }
    let units = text.length();
    let mut buf = vec![0u8; units as usize];
    // What is left to write, and its length: the whole text at first (no
    // copy of the handle, no second call for its length).
    let (mut written, mut rest, mut left) = (0usize, None::<js_sys::JsString>, units);
    loop {
        let from = rest.as_ref().unwrap_or(text);
        let memory = wasm_bindgen::memory().unchecked_into::<js_sys::WebAssembly::Memory>();
        let view = js_sys::Uint8Array::new_with_byte_offset_and_length(
            &memory.buffer(),
            buf.as_ptr() as u32 + written as u32,
            (buf.len() - written) as u32,
        );
        let done = ENCODER.with(|e| e.encode_into(from, &view));
        written += done.written() as usize;
        let read = done.read();
        if read >= left {
            break;
        }
        rest = Some(from.slice(read, left));
        left -= read;
        // What is left needs one to three bytes a unit: room for one
        // each, or half again the buffer, whichever is more, never past
        // three (reserving three at once made a mostly-ASCII text's buffer
        // three times its size: the peak of a plan(json)).
        let units = left as usize;
        let at_least = written + units + 4;
        let grown = buf.len() + buf.len() / 2;
        buf.resize(at_least.max(grown).min(written + 3 * units + 4), 0);
    }
    buf.truncate(written);
    if buf.capacity() - written > written / 8 {
        buf.shrink_to_fit();
    }
    // encodeInto writes only whole UTF-8 sequences.
    String::from_utf8(buf).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

#[wasm_bindgen]
extern "C" {
    type TextEncoder;
    #[wasm_bindgen(constructor)]
    fn new() -> TextEncoder;
    #[wasm_bindgen(method, js_name = encodeInto)]
    fn encode_into(this: &TextEncoder, text: &js_sys::JsString, into: &js_sys::Uint8Array) -> Encoded;
    type Encoded;
    #[wasm_bindgen(method, getter)]
    fn read(this: &Encoded) -> u32;
    #[wasm_bindgen(method, getter)]
    fn written(this: &Encoded) -> u32;
}

#[cfg(feature = "engine")]
pub use shared::SharedParams;

#[cfg(feature = "engine")]
mod shared;

#[cfg(feature = "engine")]
pub(crate) mod crossing;
