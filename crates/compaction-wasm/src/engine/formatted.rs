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
        let (_, list) = crate::input::from_json(&json, || Uuid(String::new()), "request.")?;
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
