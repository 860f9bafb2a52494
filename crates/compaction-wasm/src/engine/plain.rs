//! `append` and `load` of the engine module (Anthropic messages only): a
//! message carries its own `usage`, as the API's reply does. The formats
//! module's take the usage beside the messages too (`formatted.rs`).

use wasm_bindgen::prelude::*;

use super::Engine;

#[wasm_bindgen]
impl Engine {
    /// Appends one message (an Anthropic `MessageParam`, with optional
    /// `uuid`, `timestamp`, `usage`); returns its uuid. The object is not
    /// changed.
    pub fn append(
        &self,
        #[wasm_bindgen(unchecked_param_type = "MessageInput")] message: JsValue,
    ) -> Result<String, JsValue> {
        self.append_with(&message, None)
    }

    /// `append` of a message guard.js read itself, no JSON on the way: a
    /// plain `{ role, content }` object, `content` a string, `role`
    /// `"user"`, `"assistant"` or `"system"` (0, 1, 2). The same message
    /// as `append` makes of it, at about half the cost.
    #[wasm_bindgen(js_name = __appendText, skip_typescript)]
    pub fn append_text(&self, role: u32, content: String) -> Result<String, JsValue> {
        use compaction_core::message::Role;
        let role = match role {
            0 => Role::User,
            1 => Role::Assistant,
            _ => Role::System,
        };
        self.append_new(super::Appended::Text(role, content))
    }

    /// Appends a whole history of message objects; returns how many. All
    /// or nothing, like `loadJson`, which it uses: the array is written as
    /// JSON once and parsed in one pass (faster than one crossing per
    /// message). `loadJson` on text you already have is faster still.
    pub fn load(
        &self,
        #[wasm_bindgen(unchecked_param_type = "MessageInput[]")] messages: JsValue,
    ) -> Result<usize, JsValue> {
        self.load_with(&messages, None)
    }
}
