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
/// `SummaryAnswer` object. Read as a plain struct, not through
/// `dto::SummaryAnswer`'s tagged `Deserialize` (which buffers the object
/// first: more code, no gain).
pub(crate) fn answer_from_js(value: &JsValue) -> Result<core_compact::SummaryAnswer, String> {
    if let Some(text) = value.as_string() {
        return Ok(core_compact::SummaryAnswer::Text(text));
    }
    #[derive(serde::Deserialize)]
    #[serde(rename_all = "camelCase")]
    enum Kind {
        Text,
        ModelUnavailable,
        PromptTooLong,
    }
    #[derive(serde::Deserialize)]
    struct Answer {
        kind: Kind,
        #[serde(default)]
        text: Option<String>,
    }
    let answer: Answer = from_js(value)?;
    Ok(match (answer.kind, answer.text) {
        (Kind::Text, Some(text)) => core_compact::SummaryAnswer::Text(text),
        (Kind::Text, None) => return Err("missing field `text`".to_owned()),
        (Kind::ModelUnavailable, _) => core_compact::SummaryAnswer::ModelUnavailable,
        (Kind::PromptTooLong, _) => core_compact::SummaryAnswer::PromptTooLong,
    })
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
