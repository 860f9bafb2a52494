//! A summary request's messages in the engine's `format` (formats module
//! only): what a host on another SDK sends its own model.

use compaction_core::format::fresh;
use compaction_core::message::Uuid;
use wasm_bindgen::prelude::*;

use super::Engine;
use crate::error::{js_error, INVALID_ARGUMENT};

#[wasm_bindgen]
impl Engine {
    /// A summary request's `messages` (Anthropic's shape, as every request
    /// carries them) in this engine's `format`: Chat Completions messages
    /// (a tool result becomes its `tool` message), Responses items, AI SDK
    /// `ModelMessage`s, LangChain stored messages. Send them, then
    /// `request.prompt` as a user message, to your model:
    /// `[...engine.summaryMessages(request), { role: "user", content: request.prompt }]`.
    /// Typed as `messages()` is: the typed constructors of
    /// `context-compaction/ai-sdk`, `/openai` and `/langchain` type both in
    /// their SDK's shape.
    #[wasm_bindgen(js_name = summaryMessages, unchecked_return_type = "MessageParam[]")]
    pub fn summary_messages(
        &self,
        #[wasm_bindgen(unchecked_param_type = "SummaryRequest")] request: JsValue,
    ) -> Result<JsValue, JsValue> {
        let messages = crate::js::get(&request, "messages", "request.messages")?;
        if !js_sys::Array::is_array(&messages) {
            return Err(js_error(
                INVALID_ARGUMENT,
                "request.messages",
                "request.messages: not an array: pass a summary request the engine made",
            ));
        }
        let json = js_sys::JSON::stringify(&messages)?
            .as_string()
            .unwrap_or_default();
        let (_, list) = crate::input::from_json(json, || Uuid(String::new()), "request.")?;
        self.read(|s| {
            let Some(f) = &s.formatted else {
                // The base format: the messages are already Anthropic's.
                return Ok(messages.clone());
            };
            let items: Vec<String> = list
                .iter()
                .flat_map(|m| fresh(f.format(), m))
                .map(|j| j.text().to_owned())
                .collect();
            js_sys::JSON::parse(&format!("[{}]", items.join(",")))
        })
    }
}

/// The usage argument's type, for every format.
#[wasm_bindgen(typescript_custom_section)]
const REPORTED_USAGE: &str = r#"
/** The usage the API reported for the request behind a model reply, in the
 * shape of the engine's `format` (what its SDK hands you):
 * - `"ai-sdk"`: the step's `LanguageModelUsage` (`inputTokens`,
 *   `inputTokenDetails.cacheReadTokens` / `cacheWriteTokens`, `outputTokens`);
 * - `"openai-chat"`: the completion's `usage` (`prompt_tokens`,
 *   `prompt_tokens_details.cached_tokens`, `completion_tokens`);
 * - `"openai-responses"`: the response's `usage` (`input_tokens`,
 *   `input_tokens_details.cached_tokens`, `output_tokens`);
 * - `"langchain"`: an `AIMessage`'s `usage_metadata` (`input_tokens`,
 *   `input_token_details.cache_read` / `cache_creation`, `output_tokens`);
 *   a stored `ai` message's own `usage_metadata` is read without it;
 * - `"anthropic"`: the Messages API's `usage`.
 * The prompt's total (cached tokens included) is the count's anchor
 * (SPEC R1.6): the count becomes it plus the reply's output plus the
 * estimate of what came after. A counter absent or `null` is 0. */
export type ReplyUsage = object;
"#;

#[wasm_bindgen]
impl Engine {
    /// Appends one message (in the engine's `format`; Anthropic's: a
    /// `MessageParam` with optional `uuid`, `timestamp`, `usage`); returns
    /// its uuid. The object is not changed. `usage`: what the API reported
    /// for the request this reply answered (`ReplyUsage`, in the
    /// format's shape); the message must be an assistant message. A usage
    /// that is not one is `INVALID_ARGUMENT` naming its field
    /// (`usage.prompt_tokens`), and nothing is appended.
    pub fn append(
        &self,
        #[wasm_bindgen(unchecked_param_type = "MessageInput")] message: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "ReplyUsage | null")] usage: JsValue,
    ) -> Result<String, JsValue> {
        let usage = self.reported(&usage)?;
        self.append_with(&message, usage)
    }

    /// Appends a whole history of message objects; returns how many. All
    /// or nothing, like `loadJson`, which it uses: the array is written as
    /// JSON once and parsed in one pass (faster than one crossing per
    /// message). `loadJson` on text you already have is faster still.
    /// `usage`: what the API reported for the model reply among them (a
    /// response's `output`, a step's messages): it goes to their last
    /// assistant message (none: `INVALID_ARGUMENT` on `usage`, nothing
    /// appended).
    pub fn load(
        &self,
        #[wasm_bindgen(unchecked_param_type = "MessageInput[]")] messages: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "ReplyUsage | null")] usage: JsValue,
    ) -> Result<usize, JsValue> {
        let usage = self.reported(&usage)?;
        self.load_with(&messages, usage)
    }
}

impl Engine {
    /// The usage argument, read in the engine's format.
    fn reported(&self, usage: &JsValue) -> Result<Option<compaction_core::message::Usage>, JsValue> {
        if usage.is_undefined() || usage.is_null() {
            return Ok(None);
        }
        let format = self.read(|s| {
            Ok(s.formatted
                .as_ref()
                .map_or(compaction_core::format::Format::Anthropic, |f| f.format()))
        })?;
        crate::format::read_usage(usage, format)
    }
}
