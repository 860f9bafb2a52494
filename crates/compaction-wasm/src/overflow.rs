//! `isPromptTooLong(error)` and `promptTooLongTokens(error)`: the engine's
//! prompt-too-long classifier (`compaction_core::overflow`, SPEC R8.1) over
//! the facts of one error, which the package's JS (guard.js `overflow`)
//! reads from whatever a JS client threw or returned and from the errors it
//! wraps (`cause`, `lastError`, the AI SDK's `responseBody`): walking JS
//! objects is JS's work, and cost the engine's module ~0.9 KB gzip here.

use compaction_core::overflow::{classify, ErrorFacts};
use wasm_bindgen::prelude::*;

/// The classifier over one error's facts (each optional: `status` an HTTP
/// status, `kind` its type or a reply's `stop_reason`, `code`, `message`):
/// -1 when they are not a prompt-too-long, NaN when they are one stating no
/// size, else the prompt's size in tokens. For guard.js's `overflow`.
#[wasm_bindgen(js_name = __classify, skip_typescript)]
pub fn classify_facts(
    status: Option<u16>,
    kind: Option<String>,
    code: Option<String>,
    message: Option<String>,
) -> f64 {
    classify(&ErrorFacts {
        status,
        kind: kind.as_deref(),
        code: code.as_deref(),
        message: message.as_deref(),
    })
    .map_or(-1.0, |p| p.tokens.map_or(f64::NAN, |t| t as f64))
}
