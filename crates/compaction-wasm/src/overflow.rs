//! `isPromptTooLong(error)` and `promptTooLongTokens(error)`: the engine's
//! prompt-too-long classifier (`compaction_core::overflow`, SPEC R8.1) over
//! the fields of whatever a JS client threw or returned.
//!
//! Read from the value (each optional, anything of another type ignored):
//! `status`, else `statusCode` (the AI SDK's `APICallError`); the type:
//! `type`, else the body's `error.type` (the Anthropic SDK's
//! `APIError.error` is the body `{ type: "error", error: { type, message }
//! }`), else the AI SDK's parsed body `data.error.type`; the code: `code`,
//! else `error.code` (the `openai` package's `APIError`), else
//! `data.error.code`; the message: the body's `error.error.message`, else
//! `apiMessage`, else `error.message`, else `data.error.message`, else
//! `message`. A value with a
//! string `stop_reason` is a reply: only its stop reason counts. A `name`
//! `ContextOverflowError` (LangChain's wrapper) is one by its class.
//!
//! When the value itself states no size, what it wraps is read: the AI SDK's
//! `APICallError.responseBody` (the body's text, under the error's status:
//! a body its provider's schema did not take, vLLM's older top-level one),
//! then `cause` (LangChain's `ContextOverflowError`, any `Error` made with
//! `{ cause }`) and `lastError` (the AI SDK's `RetryError`, whose `errors`
//! end with it), sixteen values at most. The
//! engine's own errors are not followed (`SUMMARIZER_FAILED` and the other
//! host-callback codes): a summary request refused as too long is not the
//! main call's prompt-too-long.

use compaction_core::overflow::{classify, ErrorFacts, PromptTooLong};
use wasm_bindgen::prelude::*;

/// `value[path[0]][path[1]]…`, `undefined` past anything not an object.
fn at(value: &JsValue, path: &[&str]) -> JsValue {
    path.iter().fold(value.clone(), |v, key| {
        if v.is_object() {
            js_sys::Reflect::get(&v, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
        } else {
            JsValue::UNDEFINED
        }
    })
}

/// The first string found at one of `paths` (`"error"`, the Anthropic
/// body's envelope type, is skipped: it names no error).
fn string_at(value: &JsValue, paths: &[&[&str]]) -> Option<String> {
    paths
        .iter()
        .find_map(|path| at(value, path).as_string().filter(|s| s != "error"))
}

/// The engine's own errors whose `cause` is the host's: never a
/// prompt-too-long, and not followed.
const OWN_CODES: [&str; 4] = [
    "SUMMARIZER_FAILED",
    "READ_FILES_FAILED",
    "PRE_COMPACT_FAILED",
    "COUNT_TOKENS_FAILED",
];

/// How many values (the error and those it wraps) are read at most: a
/// `cause` loop or a long `errors` list ends there.
const MAX_READ: u32 = 16;

/// What the value states, if it is a prompt-too-long: itself, else what it
/// wraps (a size found inside wins over none found outside).
fn read(value: &JsValue, budget: &mut u32) -> Option<PromptTooLong> {
    if !value.is_object() || *budget == 0 {
        return None;
    }
    *budget -= 1;
    // The engine's own errors name what they wrap in their message too.
    if at(value, &["code"])
        .as_string()
        .is_some_and(|c| OWN_CODES.contains(&c.as_str()))
    {
        return None;
    }
    let own = facts(value);
    if own.is_some_and(|p| p.tokens.is_some()) {
        return own;
    }
    // The AI SDK's response body, as text, when its provider's schema did
    // not take it (no `data`): its wording under the error's status.
    let parsed = !at(value, &["data"]).is_null_or_undefined();
    let body = at(value, &["responseBody"])
        .as_string()
        .filter(|_| !parsed)
        .and_then(|text| {
            classify(&ErrorFacts {
                status: status_of(value),
                message: Some(&text),
                ..ErrorFacts::default()
            })
        });
    let inner = [at(value, &["cause"]), at(value, &["lastError"])]
        .iter()
        .find_map(|v| read(v, budget));
    [body, inner]
        .into_iter()
        .flatten()
        .find(|p| p.tokens.is_some())
        .or(own)
        .or(body)
        .or(inner)
}

/// The HTTP status: `status`, else `statusCode` (the AI SDK).
fn status_of(value: &JsValue) -> Option<u16> {
    [&["status"][..], &["statusCode"]]
        .iter()
        .find_map(|path| at(value, path).as_f64())
        .filter(|s| s.fract() == 0.0 && (100.0..=599.0).contains(s))
        .map(|s| s as u16)
}

/// What the value's own fields state.
fn facts(value: &JsValue) -> Option<PromptTooLong> {
    if let Some(reason) = string_at(value, &[&["stop_reason"]]) {
        return classify(&ErrorFacts {
            kind: Some(&reason),
            ..ErrorFacts::default()
        });
    }
    let status = status_of(value);
    let kind = string_at(
        value,
        &[
            &["type"],
            &["error", "type"],
            &["error", "error", "type"],
            &["data", "error", "type"],
        ],
    )
    .or_else(|| string_at(value, &[&["name"]]).filter(|n| n == "ContextOverflowError"));
    let code = string_at(
        value,
        &[&["code"], &["error", "code"], &["data", "error", "code"]],
    );
    let message = string_at(
        value,
        &[
            &["error", "error", "message"],
            &["apiMessage"],
            &["error", "message"],
            &["data", "error", "message"],
            &["message"],
        ],
    );
    classify(&ErrorFacts {
        status,
        kind: kind.as_deref(),
        code: code.as_deref(),
        message: message.as_deref(),
    })
}

/// `true` when `error` says the prompt did not fit the model's context
/// window (SPEC R8.1): the Anthropic API's HTTP 400 `invalid_request_error`
/// "prompt is too long: N tokens > M maximum" (as `@anthropic-ai/sdk`
/// throws it), Claude Code's 413 `prompt_too_long`, a reply whose
/// `stop_reason` is `model_context_window_exceeded`, OpenAI's
/// `context_length_exceeded`, and the 400s of OpenAI-compatible local
/// servers (vLLM's "maximum context length is N tokens", llama.cpp's
/// `exceed_context_size_error`, Ollama's), as the `openai` package or the AI
/// SDK's `APICallError` carries them, and through the errors that wrap them
/// (`cause`, LangChain's `ContextOverflowError`, the AI SDK's `RetryError`).
/// `false` for everything else, including other 400s and a 413
/// `request_too_large`. Then call
/// `engine.promptTooLong(promptTooLongTokens(error))`.
#[wasm_bindgen(js_name = isPromptTooLong)]
pub fn is_prompt_too_long(#[wasm_bindgen(unchecked_param_type = "unknown")] error: JsValue) -> bool {
    read(&error, &mut { MAX_READ }).is_some()
}

/// The prompt's real size in tokens when `error` is a prompt-too-long that
/// states it ("prompt is too long: 236175 tokens > 200000 maximum" →
/// 236175); otherwise `null`. Give it to `engine.promptTooLong(tokens)`,
/// which recalibrates the count to it (SPEC R8.1).
#[wasm_bindgen(js_name = promptTooLongTokens, unchecked_return_type = "number | null")]
pub fn prompt_too_long_tokens(#[wasm_bindgen(unchecked_param_type = "unknown")] error: JsValue) -> JsValue {
    read(&error, &mut { MAX_READ })
        .and_then(|p| p.tokens)
        .map_or(JsValue::NULL, |t| JsValue::from_f64(t as f64))
}
