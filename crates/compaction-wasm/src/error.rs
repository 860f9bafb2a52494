//! Engine errors as real JS `Error` objects with a stable `code`.
//!
//! ```ts
//! try {
//!   thresholds({ window: 10_000 });
//! } catch (e) {
//!   // e instanceof Error; e.code === "INVALID_SETTING"; e.field === "window"
//! }
//! ```

use compaction_core::{Error, Setting};
use wasm_bindgen::JsValue;

/// `code` of an error for a setting that is missing, not a number, out of
/// range or inconsistent with another setting.
pub const INVALID_SETTING: &str = "INVALID_SETTING";

/// The JS name of an engine setting (the key a caller writes).
pub fn js_field(setting: Setting) -> &'static str {
    match setting {
        Setting::Window => "window",
        Setting::MaxOutputTokens => "maxOutputTokens",
        Setting::ReserveCap => "reserveCap",
        Setting::Ceiling => "ceiling",
        Setting::OverridePct => "overridePct",
        Setting::PrecomputePct => "precomputePct",
        Setting::CompactMargin => "compactMargin",
        Setting::WarnMargin => "warnMargin",
        Setting::BlockedMargin => "blockedMargin",
        // `Setting` may grow; its engine name is the fallback.
        other => other.key(),
    }
}

/// A JS `Error` with `message`, `code` and `field` properties.
pub fn js_error(code: &str, field: &str, message: &str) -> JsValue {
    let error = js_sys::Error::new(message);
    // Setting a property on a fresh Error object cannot fail.
    let _ = js_sys::Reflect::set(&error, &"code".into(), &code.into());
    let _ = js_sys::Reflect::set(&error, &"field".into(), &field.into());
    error.into()
}

/// An engine error in the caller's vocabulary.
pub fn from_engine(err: &Error) -> JsValue {
    let message = err.message_naming(|s| js_field(s).to_owned());
    match err {
        Error::InvalidSetting { setting, .. } => js_error(INVALID_SETTING, js_field(*setting), &message),
        _ => js_error("ENGINE_ERROR", "", &message),
    }
}
