//! Arguments read from JS: answers and request ids.

use super::*;
use compaction_core::engine::Answer as CoreAnswer;

/// An answer from JS: a string (the model's text) or an `Answer` object.
pub(super) fn read_answer(value: &JsValue) -> Result<CoreAnswer, JsValue> {
    answer_from_js(value).map_err(|e| {
        js_error(
            INVALID_ARGUMENT,
            "answer",
            &format!(
                "answer must be the model's text or {{ kind: \"text\", text }} | {{ kind: \"offline\" }} | {{ kind: \"modelUnavailable\" }} | {{ kind: \"promptTooLong\" }} | {{ kind: \"failed\", reason }} | {{ kind: \"files\", files, hooks? }} | {{ kind: \"hook\", block?, addedInstructions? }}: {e}"
            ),
        )
    })
}

/// An answer from JS, its fields read straight from the object.
pub(crate) fn answer_from_js(value: &JsValue) -> Result<CoreAnswer, String> {
    if let Some(text) = value.as_string() {
        return Ok(CoreAnswer::text(text));
    }
    let [kind, text, reason] = crate::js::object_strings(value, ["kind", "text", "reason"])
        .map_err(|e| compaction_core::concat("the answer", &e))?;
    match (kind.as_deref(), text) {
        (Some("text"), Some(text)) => Ok(match duration_ms(value)? {
            Some(ms) => CoreAnswer::text_took(text, ms),
            None => CoreAnswer::text(text),
        }),
        (Some("text"), None) => Err("missing field `text`".to_owned()),
        (Some("offline"), _) => Ok(CoreAnswer::Offline),
        (Some("modelUnavailable"), _) => Ok(CoreAnswer::ModelUnavailable),
        (Some("promptTooLong"), _) => Ok(CoreAnswer::PromptTooLong),
        (Some("failed"), _) => Ok(CoreAnswer::Failed {
            reason: reason.unwrap_or_else(|| "the host could not get a summary".to_owned()),
        }),
        (Some("files"), _) => {
            let get = |key: &str| {
                crate::js::get(value, key, key).map_err(|e| {
                    format!(
                        "{key}: reading it threw{}",
                        e.dyn_ref::<js_sys::Error>()
                            .map(|e| format!(": {}", String::from(e.message())))
                            .unwrap_or_default()
                    )
                })
            };
            Ok(CoreAnswer::Files {
                files: read_files(&get("files")?)?,
                hooks: read_hooks(&get("hooks")?)?,
            })
        }
        (Some("hook"), _) => read_hook(value).map(CoreAnswer::Hook),
        (Some(other), _) => Err(format!("unknown kind \"{other}\"")),
        (None, _) => Err("missing field `kind`".to_owned()),
    }
}

/// A text answer's `durationMs` (how long the summary took, which a
/// `newer-client` boundary record carries): a whole number of
/// milliseconds, or nothing.
fn duration_ms(value: &JsValue) -> Result<Option<u64>, String> {
    let ms = crate::js::get(value, "durationMs", "durationMs")
        .map_err(|_| "the answer's durationMs could not be read".to_owned())?;
    if ms.is_undefined() || ms.is_null() {
        return Ok(None);
    }
    match ms.as_f64() {
        Some(n) if n.fract() == 0.0 && (0.0..=9_007_199_254_740_991.0).contains(&n) => Ok(Some(n as u64)),
        _ => Err(format!(
            "the answer's durationMs must be a whole number of milliseconds from 0 to 2^53 - 1, got {}",
            crate::js::kind(&ms)
        )),
    }
}

/// `[{ path, content } | { path, error }]`.
pub(crate) fn read_files(files: &JsValue) -> Result<Vec<core_compact::FileAnswer>, String> {
    let rows = string_fields(files, ["path", "content", "error"]).map_err(|e| {
        format!("files must be an array of {{ path, content }} or {{ path, error }}: files{e}")
    })?;
    let mut out = Vec::with_capacity(rows.len());
    for (i, [path, content, error]) in rows.into_iter().enumerate() {
        let path = path.ok_or_else(|| format!("files[{i}].path is missing"))?;
        out.push(core_compact::FileAnswer {
            path,
            content: content.ok_or_else(|| error.unwrap_or_else(|| "not read".to_owned())),
        });
    }
    Ok(out)
}

/// `[{ hook, output }]`, or nothing.
pub(crate) fn read_hooks(hooks: &JsValue) -> Result<Vec<core_compact::HookOutput>, String> {
    if hooks.is_undefined() || hooks.is_null() {
        return Ok(Vec::new());
    }
    let rows = string_fields(hooks, ["hook", "output"])
        .map_err(|e| format!("hooks must be an array of {{ hook, output }}: hooks{e}"))?;
    rows.into_iter()
        .enumerate()
        .map(|(i, row)| match row {
            [Some(hook), Some(output)] => Ok(core_compact::HookOutput { hook, output }),
            _ => Err(format!("hooks[{i}] must have a `hook` and an `output`")),
        })
        .collect()
}

/// A PreCompact hook's output `{ block?, addedInstructions? }`; `undefined`
/// or `null` allow.
pub(crate) fn read_hook(value: &JsValue) -> Result<core_compact::HookOutcome, String> {
    if value.is_undefined() || value.is_null() {
        return Ok(core_compact::HookOutcome::default());
    }
    let [block] = crate::js::object_strings(value, ["block"])
        .map_err(|e| compaction_core::concat("the hook's output", &e))?;
    let added = crate::js::get(value, "addedInstructions", "addedInstructions")
        .map_err(|_| "addedInstructions: reading it threw".to_owned())?;
    let added_instructions = if added.is_undefined() || added.is_null() {
        Vec::new()
    } else {
        crate::js::strings(&added).map_err(|e| compaction_core::concat("addedInstructions: ", &e))?
    };
    Ok(core_compact::HookOutcome {
        block,
        added_instructions,
    })
}

pub(super) fn read_id(value: &JsValue) -> Result<u64, JsValue> {
    let Some(id) = value.as_f64() else {
        return Err(js_error(
            INVALID_ARGUMENT,
            "id",
            &format!(
                "id must be a request id (a whole number), got {}",
                crate::js::kind(value)
            ),
        ));
    };
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
