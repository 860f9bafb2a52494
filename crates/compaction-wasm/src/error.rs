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
        Setting::MarginSharePct => "marginSharePct",
        Setting::Reduction => "reduction",
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

/// [`js_error`] for a function returning [`JsErr`].
pub fn js_err(code: &str, field: &str, message: &str) -> JsErr {
    JsErr(js_error(code, field, message))
}

/// A JS `Error` with `code`, `field` and `cause` (the host's own error).
pub fn js_error_caused(code: &str, field: &str, message: &str, cause: &JsValue) -> JsValue {
    let error = js_error(code, field, message);
    let _ = js_sys::Reflect::set(&error, &"cause".into(), cause);
    error
}

/// An error on its way to JS: what every fallible function of the binding
/// returns, so `?` converts whatever it meets. An engine error
/// ([`compaction_core::Error`]) becomes a JS `Error` in the caller's
/// vocabulary; a JS value already built (an `Error` with a `code`, or what a
/// host callback threw) passes through unchanged.
#[derive(Debug)]
pub struct JsErr(JsValue);

impl From<JsValue> for JsErr {
    fn from(value: JsValue) -> Self {
        JsErr(value)
    }
}

impl From<JsErr> for JsValue {
    fn from(err: JsErr) -> Self {
        err.0
    }
}

impl From<Error> for JsErr {
    /// A setting's error names the setting (`code: "INVALID_SETTING"`,
    /// `field: "window"`); any other is `ENGINE_ERROR`.
    fn from(err: Error) -> Self {
        let message = err.message_naming(|s| js_field(s).to_owned());
        JsErr(match err {
            Error::InvalidSetting { setting, .. } => js_error(INVALID_SETTING, js_field(setting), &message),
            _ => js_error(ENGINE_ERROR, "", &message),
        })
    }
}

/// Names the argument an engine error is about: `engine.pin(x).at("uuid")?`.
pub trait At<T> {
    /// The engine error as a JS `Error` whose `field` is `field` (a
    /// setting's error keeps naming the setting) and whose `code` says what
    /// went wrong (`UNKNOWN_MESSAGE`, `DUPLICATE_UUID`, …).
    fn at(self, field: &str) -> Result<T, JsErr>;
}

impl<T> At<T> for Result<T, Error> {
    fn at(self, field: &str) -> Result<T, JsErr> {
        self.map_err(|err| JsErr(at(&err, field)))
    }
}

/// `code` of an error for a message (or a list of them) that is not an
/// Anthropic `MessageParam`: missing `role`, bad `content`, a bad timestamp.
pub const INVALID_MESSAGE: &str = "INVALID_MESSAGE";
/// `code` of an error for a string that is not valid JSON of the expected shape.
pub const INVALID_JSON: &str = "INVALID_JSON";
/// `code` of an error for an argument of the wrong type or value.
pub const INVALID_ARGUMENT: &str = "INVALID_ARGUMENT";
/// `code` of an error for an answer naming a request the engine is not waiting on.
pub const UNKNOWN_REQUEST: &str = "UNKNOWN_REQUEST";
/// `code` of an error for a uuid the engine does not know (pin, expand).
pub const UNKNOWN_MESSAGE: &str = "UNKNOWN_MESSAGE";
/// `code` of an error for a message whose uuid the engine already holds.
pub const DUPLICATE_UUID: &str = "DUPLICATE_UUID";
/// `code` of an error for a summary reply with no summary in it.
pub const EMPTY_SUMMARY: &str = "EMPTY_SUMMARY";
/// `code` of an error for a call that would change an engine while its
/// `prepare()` is pending (from a host callback, or a second `prepare()`).
pub const ENGINE_BUSY: &str = "ENGINE_BUSY";
/// `code` of every call on an engine after one of its calls stopped half
/// way (the shared wasm memory ran out, or the module trapped): its state
/// can no longer be trusted. `free()` it and create a new engine.
pub const ENGINE_POISONED: &str = "ENGINE_POISONED";
/// `code` of an error for an answer of a kind its request does not take.
pub const WRONG_ANSWER: &str = "WRONG_ANSWER";
/// `code` of `prepare()`'s rejection when `host.summarize` threw or
/// rejected for every model of the chain; `cause` is what it threw.
pub const SUMMARIZER_FAILED: &str = "SUMMARIZER_FAILED";
/// `code` of `prepare()`'s rejection when `host.readFiles` threw or
/// rejected; `cause` is what it threw.
pub const READ_FILES_FAILED: &str = "READ_FILES_FAILED";
/// `code` of `prepare()`'s rejection when `host.preCompact` threw or
/// rejected; `cause` is what it threw.
pub const PRE_COMPACT_FAILED: &str = "PRE_COMPACT_FAILED";
/// `code` of `prepare()`'s rejection when `host.postCompactHooks` threw or
/// rejected; `cause` is what it threw.
pub const POST_COMPACT_HOOKS_FAILED: &str = "POST_COMPACT_HOOKS_FAILED";
/// `code` of an error for anything else the engine refuses.
pub const ENGINE_ERROR: &str = "ENGINE_ERROR";

/// An engine error in the caller's vocabulary, `field` naming the argument
/// the caller passed (for errors that are not about a setting).
fn at(err: &Error, field: &str) -> JsValue {
    let message = err.message_naming(|s| js_field(s).to_owned());
    let code = match err {
        Error::InvalidSetting { setting, .. } => {
            return js_error(INVALID_SETTING, js_field(*setting), &message)
        }
        Error::InvalidContext { index, .. } => {
            let at = format!("{field}[{index}].kind");
            return js_error(
                INVALID_ARGUMENT,
                &at,
                &compaction_core::concat3(&at, ": ", &message),
            );
        }
        Error::DuplicateUuid { .. } => DUPLICATE_UUID,
        Error::UnknownMessage { .. } => UNKNOWN_MESSAGE,
        Error::UnknownRequest { .. } => UNKNOWN_REQUEST,
        Error::WrongAnswer { .. } => WRONG_ANSWER,
        Error::EmptySummary => EMPTY_SUMMARY,
        _ => ENGINE_ERROR,
    };
    js_error(code, field, &compaction_core::concat3(field, ": ", &message))
}
