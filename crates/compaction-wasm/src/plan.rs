//! `plan(settings, messages)`: the stateless dry run. A whole history in
//! (a JSON string, parsed inside wasm in one pass, or an array of message
//! objects), the decision before the next call out; nothing is kept.

use wasm_bindgen::prelude::*;

use crate::engine::{read_settings, to_js, State};
use crate::error::{js_error, INVALID_ARGUMENT};

/// What the engine would decide before the next call on this history,
/// with these settings (a preset name or an `EngineSettings` object).
/// `messages` is a JSON string (an array of `MessageParam`s or a request
/// body `{ system?, messages }`: the fast path) or an array of message
/// objects. Nothing is kept between calls.
#[wasm_bindgen(unchecked_return_type = "Decision")]
pub fn plan(
    #[wasm_bindgen(unchecked_param_type = "EngineSettings | PresetName | undefined")] settings: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string | MessageInput[]")] messages: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "string | null")] now: JsValue,
) -> Result<JsValue, JsValue> {
    let now = crate::js::opt_text(&now, "now")?;
    let (mut core_settings, session, counter) = read_settings(&settings)?;
    let formatted = crate::format::read_format(&settings, &mut core_settings)?;
    let mut state = State::new(core_settings, session)?;
    state.formatted = formatted;
    state.counter = counter;
    crate::counter::checked(plan_in(&mut state, messages, now))
}

fn plan_in(state: &mut State, messages: JsValue, now: Option<String>) -> Result<JsValue, JsValue> {
    if messages.is_string() {
        let json = crate::js::text(&messages, "messages", false)?;
        state.load_json(json)?;
    } else if let Some(list) = crate::js::array(&messages, "messages", crate::js::MAX_LIST)? {
        if state.formatted.is_some() {
            // A format reads the whole list at once (Responses items group).
            let json = crate::js::json_text(&list, "messages")?;
            state.load_text(json, Some(list), None)?;
            let decision = state.before_call_raw(now)?;
            let decision = state.decision(decision);
            return to_js(&decision);
        }
        for (i, item) in list.iter().enumerate() {
            state.append_js(&item, &format!("messages[{i}]"))?;
        }
    } else {
        return Err(js_error(
            INVALID_ARGUMENT,
            "messages",
            "messages must be a JSON string or an array of messages",
        ));
    }
    let decision = state.before_call_raw(now)?;
    let decision = state.decision(decision);
    to_js(&decision)
}
