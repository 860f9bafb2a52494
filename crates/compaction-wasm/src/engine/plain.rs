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
