//! `Engine.compactionRequest`: the Anthropic API's on-demand compaction
//! (SPEC R13.2, beta `compact-2026-09-04`), as a request the host sends.

use wasm_bindgen::prelude::*;

use super::{opt_text, to_js, Engine};

#[wasm_bindgen]
impl Engine {
    /// An on-demand compaction of the whole view (SPEC R13.2): the
    /// request's `compaction` parameter and `betas`, and the uuids it
    /// summarises. Send it with `messages()` and no `context_management`,
    /// then `swapInSummary(summarised, block)` with the returned
    /// `compaction` block. `instructions` replace the server's prompt.
    /// `null` when the view is empty or ends with an unanswered tool call.
    #[wasm_bindgen(js_name = compactionRequest, unchecked_return_type = "OnDemandCompaction | null")]
    pub fn compaction_request(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "string | null")] instructions: JsValue,
    ) -> Result<JsValue, JsValue> {
        let instructions = opt_text(&instructions, "instructions")?;
        // The core's value has the shape of [`OnDemandCompaction`] (its
        // TypeScript type; dto/tests.rs checks the two agree).
        self.with(|s| match s.engine.compaction_request(instructions.as_deref()) {
            Some(r) => to_js(&r),
            None => Ok(JsValue::NULL),
        })
    }
}
