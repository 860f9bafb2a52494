//! `thresholds(settings)`: the four lines of SPEC R1 for a model's window.

use compaction_core::thresholds::{
    RawThresholdSettings, ThresholdSettings as CoreSettings, Thresholds as CoreThresholds,
};
use serde::{Deserialize, Serialize};
use tsify::Tsify;
use wasm_bindgen::prelude::*;

use crate::error::{js_error, JsErr, INVALID_SETTING};

/// Settings for [`thresholds`]. Token counts are whole numbers from 1 to
/// 2^53 − 1; anything else (NaN, −1, 1.5, a string) is an `INVALID_SETTING`
/// error naming the field.
#[derive(Debug, Clone, Default, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct ThresholdSettings {
    /// The model's context window, in tokens.
    pub window: f64,
    /// The model's maximum output tokens; the reserve is `min(this, reserveCap)`.
    #[tsify(optional)]
    pub max_output_tokens: Option<f64>,
    /// The cap on the reserve kept for the reply (default 20,000).
    #[tsify(optional)]
    pub reserve_cap: Option<f64>,
    /// The model input ceiling the blocked line hangs from (default: the budget).
    #[tsify(optional)]
    pub ceiling: Option<f64>,
    /// Moves the compact line to this percent of the budget (1–100); it can
    /// only lower the line.
    #[tsify(optional)]
    pub override_pct: Option<f64>,
}

const FIELDS: [&str; 5] = [
    "window",
    "maxOutputTokens",
    "reserveCap",
    "ceiling",
    "overridePct",
];

/// The lines, in whole tokens (SPEC R1.1–R1.4).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct Thresholds {
    /// The context window the lines were derived from.
    #[serde(serialize_with = "whole")]
    pub window: f64,
    /// Room kept for the model's reply: `min(maxOutputTokens, reserveCap)`.
    #[serde(serialize_with = "whole")]
    pub reserve: f64,
    /// `window − reserve`.
    #[serde(serialize_with = "whole")]
    pub budget: f64,
    /// The model input ceiling the blocked line hangs from.
    #[serde(serialize_with = "whole")]
    pub ceiling: f64,
    /// A background summary starts here.
    #[serde(serialize_with = "whole")]
    pub precompute: f64,
    /// The host shows "N tokens left" from here.
    #[serde(serialize_with = "whole")]
    pub warn: f64,
    /// Auto-compaction (tiers 2–4) runs from here.
    #[serde(serialize_with = "whole")]
    pub compact: f64,
    /// Calls are refused from here until the host compacts.
    #[serde(serialize_with = "whole")]
    pub blocked: f64,
    /// The compact line without the override.
    #[serde(serialize_with = "whole")]
    pub compact_default: f64,
    /// The override percentage asked for, or `null`.
    #[tsify(type = "number | null")]
    pub override_requested_pct: Option<f64>,
    /// The override percentage in force, or `null` when none was asked for
    /// or it would have raised the line (it can only lower it).
    #[tsify(type = "number | null")]
    pub override_applied_pct: Option<f64>,
}

/// A line (a whole number of tokens, at most 2^53 − 1) written as an
/// integer: the same JS number as its float, without formatting one.
fn whole<S: serde::Serializer>(tokens: &f64, s: S) -> Result<S::Ok, S::Error> {
    if tokens.fract() == 0.0 && (0.0..=9_007_199_254_740_991.0).contains(tokens) {
        s.serialize_u64(*tokens as u64)
    } else {
        s.serialize_f64(*tokens)
    }
}

impl From<CoreThresholds> for Thresholds {
    fn from(t: CoreThresholds) -> Self {
        // Every figure is at most 2^53 − 1 (the engine checks), so it is an
        // exact JS number.
        Thresholds {
            window: t.window as f64,
            reserve: t.reserve as f64,
            budget: t.budget as f64,
            ceiling: t.ceiling as f64,
            precompute: t.precompute as f64,
            warn: t.warn as f64,
            compact: t.compact as f64,
            blocked: t.blocked as f64,
            compact_default: t.compact_default as f64,
            override_requested_pct: t.override_requested_pct,
            override_applied_pct: t.override_applied_pct,
        }
    }
}

/// Reads one optional number; anything but `undefined` or a number is an error.
pub(crate) fn number(settings: &JsValue, field: &str) -> Result<Option<f64>, JsValue> {
    let value = crate::js::own(settings, field, field)?;
    if value.is_undefined() {
        return Ok(None);
    }
    value
        .as_f64()
        .map(Some)
        .ok_or_else(|| invalid_setting(field, &value, "must be a number"))
}

/// The error for a setting of the wrong kind:
/// ``invalid setting `{field}` = {value}: {must}``, the value [`describe`]d.
pub(crate) fn invalid_setting(field: &str, value: &JsValue, must: &str) -> JsValue {
    let shown = describe(value);
    js_error(
        INVALID_SETTING,
        field,
        &format!("invalid setting `{field}` = {shown}: {must}"),
    )
}

/// A short, safe rendering of a rejected JS value for an error message.
pub(crate) fn describe(value: &JsValue) -> String {
    if let Some(s) = value.as_string() {
        let mut shown: String = s.chars().take(40).collect();
        if shown.len() < s.len() {
            shown.push('…');
        }
        return format!("\"{shown}\"");
    }
    if value.is_null() {
        return "null".to_owned();
    }
    value.js_typeof().as_string().unwrap_or_default()
}

/// `names` joined by ", " (a loop: `[&str]::join` would be the module's
/// only `join` over `&str`, a second copy of it).
pub(crate) fn comma_list(names: &[&str]) -> String {
    let mut out = String::new();
    for (i, name) in names.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(name);
    }
    out
}

/// Refuses a settings object with a key not in `fields` (a typo is an
/// error naming it, not a silently ignored setting).
pub(crate) fn known_keys(settings: &JsValue, fields: &[&str]) -> Result<(), JsValue> {
    let keys = crate::js::plain_keys(settings, "settings")?.ok_or_else(|| {
        js_error(
            INVALID_SETTING,
            "settings",
            &format!(
                "settings must be a plain object like {{ window: 200000 }}, got {}",
                crate::js::kind(settings)
            ),
        )
    })?;
    for key in keys {
        if !fields.contains(&key.as_str()) {
            return Err(js_error(
                INVALID_SETTING,
                &key,
                &format!("unknown setting `{key}`; known settings: {}", comma_list(fields)),
            ));
        }
    }
    Ok(())
}

fn read_settings(settings: &JsValue) -> Result<RawThresholdSettings, JsValue> {
    if !settings.is_object() {
        return Err(js_error(
            INVALID_SETTING,
            "settings",
            &format!(
                "settings must be an object like {{ window: 200000 }}, got {}",
                describe(settings)
            ),
        ));
    }
    known_keys(settings, &FIELDS)?;
    let window = number(settings, "window")?
        .ok_or_else(|| js_error(INVALID_SETTING, "window", "setting `window` is required"))?;
    Ok(RawThresholdSettings {
        window,
        max_output_tokens: number(settings, "maxOutputTokens")?,
        reserve_cap: number(settings, "reserveCap")?,
        ceiling: number(settings, "ceiling")?,
        override_pct: number(settings, "overridePct")?,
    })
}

/// The lines a context count is held against (SPEC R1): budget, precompute,
/// warn, compact and blocked, in whole tokens.
///
/// ```ts
/// import { thresholds } from "context-compaction";
/// const t = thresholds({ window: 200_000, maxOutputTokens: 20_000 });
/// // t.budget 180000, t.precompute 144000, t.warn 147000, t.compact 167000, t.blocked 177000
/// ```
///
/// Throws an `Error` with `code: "INVALID_SETTING"` and `field` naming the
/// setting for invalid input; the module stays usable.
#[wasm_bindgen(unchecked_return_type = "Thresholds")]
pub fn thresholds(
    #[wasm_bindgen(unchecked_param_type = "ThresholdSettings")] settings: JsValue,
) -> Result<JsValue, JsErr> {
    let raw = read_settings(&settings)?;
    let lines = CoreSettings::try_from(&raw).and_then(|s| CoreThresholds::compute(&s))?;
    Ok(crate::engine::to_js(&Thresholds::from(lines))?)
}
