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
//! `message`. A value with a string `stop_reason` is a reply: only its stop
//! reason counts. A `cause` is not followed: an error that merely wraps one
//! (a failed summary request, say) is not the main call's prompt-too-long.

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

/// What the value states, if it is a prompt-too-long.
fn read(value: &JsValue) -> Option<PromptTooLong> {
    if !value.is_object() {
        return None;
    }
    if let Some(reason) = string_at(value, &[&["stop_reason"]]) {
        return classify(&ErrorFacts {
            kind: Some(&reason),
            ..ErrorFacts::default()
        });
    }
    let status = [&["status"][..], &["statusCode"]]
        .iter()
        .find_map(|path| at(value, path).as_f64())
        .filter(|s| s.fract() == 0.0 && (100.0..=599.0).contains(s))
        .map(|s| s as u16);
    let kind = string_at(
        value,
        &[
            &["type"],
            &["error", "type"],
            &["error", "error", "type"],
            &["data", "error", "type"],
        ],
    );
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
/// `exceed_context_size_error`), as the `openai` package or the AI SDK's
/// `APICallError` carries them. `false` for everything else, including
/// other 400s and a 413 `request_too_large`. Then call
/// `engine.promptTooLong(promptTooLongTokens(error))`.
#[wasm_bindgen(js_name = isPromptTooLong)]
pub fn is_prompt_too_long(#[wasm_bindgen(unchecked_param_type = "unknown")] error: JsValue) -> bool {
    read(&error).is_some()
}

/// The prompt's real size in tokens when `error` is a prompt-too-long that
/// states it ("prompt is too long: 236175 tokens > 200000 maximum" →
/// 236175); otherwise `null`. Give it to `engine.promptTooLong(tokens)`,
/// which recalibrates the count to it (SPEC R8.1).
#[wasm_bindgen(js_name = promptTooLongTokens, unchecked_return_type = "number | null")]
pub fn prompt_too_long_tokens(#[wasm_bindgen(unchecked_param_type = "unknown")] error: JsValue) -> JsValue {
    read(&error)
        .and_then(|p| p.tokens)
        .map_or(JsValue::NULL, |t| JsValue::from_f64(t as f64))
}
