//! Arguments read from JS: summary answers and request ids.

use super::*;

/// An answer from JS: a string (the model's text) or a `SummaryAnswer`.
pub(super) fn read_answer(value: &JsValue) -> Result<core_compact::SummaryAnswer, JsValue> {
    answer_from_js(value).map_err(|e| {
        js_error(
            INVALID_ARGUMENT,
            "answer",
            &format!(
                "answer must be the model's text or {{ kind: \"text\", text }} | {{ kind: \"modelUnavailable\" }} | {{ kind: \"promptTooLong\" }}: {e}"
            ),
        )
    })
}

/// A summary answer from JS: a string (the model's text) or a
/// `SummaryAnswer` object, its two fields read straight from the object.
pub(crate) fn answer_from_js(value: &JsValue) -> Result<core_compact::SummaryAnswer, String> {
    if let Some(text) = value.as_string() {
        return Ok(core_compact::SummaryAnswer::Text(text));
    }
    let [kind, text] =
        crate::js::object_strings(value, ["kind", "text"]).map_err(|e| format!("the answer{e}"))?;
    match (kind.as_deref(), text) {
        (Some("text"), Some(text)) => Ok(core_compact::SummaryAnswer::Text(text)),
        (Some("text"), None) => Err("missing field `text`".to_owned()),
        (Some("modelUnavailable"), _) => Ok(core_compact::SummaryAnswer::ModelUnavailable),
        (Some("promptTooLong"), _) => Ok(core_compact::SummaryAnswer::PromptTooLong),
        (Some(other), _) => Err(format!("unknown kind \"{other}\"")),
        (None, _) => Err("missing field `kind`".to_owned()),
    }
}

pub(super) fn read_id(id: f64) -> Result<u64, JsValue> {
    if id.is_finite() && id >= 0.0 && id.fract() == 0.0 && id <= 9_007_199_254_740_991.0 {
        Ok(id as u64)
    } else {
        Err(js_error(
            INVALID_ARGUMENT,
            "id",
            &format!(
                "id: {} is not a request id (a whole number)",
                compaction_core::error::Num(id)
            ),
        ))
    }
}
