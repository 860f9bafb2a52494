//! An engine's settings from JS: a preset name, an `EngineSettings`
//! object read field by field (so a bad value is an error naming that
//! field), or nothing.

use compaction_core::engine::{EngineSettings as CoreSettings, Preset};
use compaction_core::reduction::ReductionSettings;
use compaction_core::thresholds::{RawThresholdSettings, ThresholdSettings as CoreThresholdSettings};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::counter::CounterSlot;

use crate::error::{js_err, js_error, JsErr, INVALID_SETTING};
use crate::thresholds::{comma_list, describe, invalid_setting, known_keys, number};

const SETTINGS_FIELDS: [&str; 20] = [
    "reduction",
    "countTokens",
    "preset",
    "format",
    "window",
    "maxOutputTokens",
    "reserveCap",
    "ceiling",
    "overridePct",
    "model",
    "fallbackModels",
    "sessionId",
    "snip",
    "collapse",
    "thinking",
    "compaction",
    "serverInstructions",
    "clearThinking",
    "uncalibratedMarginPct",
    "contextEditing",
];

/// The package's margin on an uncalibrated count, in percent (setting
/// `uncalibratedMarginPct`): providers count code and JSON up to ~15 %
/// above the estimate, and an agent's first calls go out before any usage.
const UNCALIBRATED_MARGIN_PCT: u64 = 15;

/// Settings as the package starts them: the preset's, with the margin.
fn package_settings(preset: Preset, window: u64) -> CoreSettings {
    let mut settings = preset.settings(window);
    settings.estimator.uncalibrated_margin_pct = UNCALIBRATED_MARGIN_PCT;
    settings
}

/// Settings from a preset name, an `EngineSettings` object, or `undefined`.
pub(crate) fn read_settings(value: &JsValue) -> Result<(CoreSettings, String, Option<CounterSlot>), JsErr> {
    let preset_of = |name: &str| {
        Preset::from_name(name).ok_or_else(|| {
            let known: Vec<&str> = Preset::ALL.iter().map(|p| p.name()).collect();
            js_error(
                INVALID_SETTING,
                "preset",
                &format!("unknown preset \"{name}\"; known presets: {}", comma_list(&known)),
            )
        })
    };
    let default_session = "context-compaction".to_owned();
    if value.is_undefined() {
        return Ok((package_settings(Preset::Seed, 200_000), default_session, None));
    }
    if let Some(name) = value.as_string() {
        return Ok((
            package_settings(preset_of(&name)?, 200_000),
            default_session,
            None,
        ));
    }
    if !value.is_object() || value.is_function() {
        return Err(js_err(
            INVALID_SETTING,
            "settings",
            &format!(
                "settings must be a preset name or an object like {{ preset: \"seed\", window: 200000 }}, got {}",
                describe(value)
            ),
        ));
    }
    known_keys(value, &SETTINGS_FIELDS)?;
    let string = |field: &str| string_setting(value, field);
    let preset = match string("preset")? {
        Some(name) => preset_of(&name)?,
        None => Preset::Seed,
    };
    let raw = RawThresholdSettings {
        window: number(value, "window")?.unwrap_or(200_000.0),
        max_output_tokens: number(value, "maxOutputTokens")?,
        reserve_cap: number(value, "reserveCap")?,
        ceiling: number(value, "ceiling")?,
        override_pct: number(value, "overridePct")?,
    };
    let thresholds = CoreThresholdSettings::try_from(&raw)?;
    // The lines must be computable now, so a bad combination fails here.
    compaction_core::thresholds::Thresholds::compute(&thresholds)?;
    let mut settings = package_settings(preset, thresholds.window);
    settings.thresholds = thresholds;
    if let Some(model) = string("model")? {
        settings.compact.model = model;
    }
    let fallback = crate::js::own(value, "fallbackModels", "fallbackModels")?;
    if !fallback.is_undefined() {
        let list: Option<Vec<String>> = crate::js::array(&fallback, "fallbackModels", 1024)?
            .and_then(|list| list.iter().map(|v| v.as_string()).collect());
        settings.compact.fallback_models = list.ok_or_else(|| {
            js_error(
                INVALID_SETTING,
                "fallbackModels",
                "invalid setting `fallbackModels`: must be an array of model names",
            )
        })?;
    }
    {
        use compaction_core::api::{CompactionMode, ThinkingMode};
        let modes = [ThinkingMode::Strip, ThinkingMode::DropBlock, ThinkingMode::Keep];
        let names = modes.map(ThinkingMode::name);
        let must = "must be \"strip\", \"drop_block\" or \"keep\"";
        if let Some(i) = choice(value, "thinking", &names, must)? {
            settings.api.thinking = modes[i];
        }
        let must = "must be \"client\" or \"server\"";
        if let Some(i) = choice(value, "compaction", &["client", "server"], must)? {
            settings.api.compaction = [CompactionMode::Client, CompactionMode::Server][i];
        }
    }
    let edit = crate::js::own(value, "clearThinking", "clearThinking")?;
    if !edit.is_undefined() && !edit.is_null() {
        let bad = || {
            js_error(
                INVALID_SETTING,
                "clearThinking",
                "invalid setting `clearThinking`: must be a clear_thinking_20251015 edit like { type: \"clear_thinking_20251015\", keep: \"all\" }",
            )
        };
        let text = js_sys::JSON::stringify(&edit)
            .ok()
            .and_then(|s| s.as_string())
            .ok_or_else(bad)?;
        let json = compaction_core::message::Json::parse(&text).map_err(|_| bad())?;
        if json.str_field("type").as_deref() != Some("clear_thinking_20251015") {
            return Err(bad().into());
        }
        settings.api.clear_thinking = Some(json);
    }
    for (field, slot) in [
        ("snip", &mut settings.snip),
        ("collapse", &mut settings.collapse.enabled),
        ("serverInstructions", &mut settings.api.server_instructions),
        ("contextEditing", &mut settings.microcompact.context_editing),
    ] {
        let v = crate::js::own(value, field, field)?;
        if !v.is_undefined() {
            *slot = v
                .as_bool()
                .ok_or_else(|| invalid_setting(field, &v, "must be true or false"))?;
        }
    }
    if !settings.microcompact.context_editing
        && settings.api.compaction == compaction_core::api::CompactionMode::Server
    {
        return Err(js_error(
            INVALID_SETTING,
            "contextEditing",
            "invalid setting `contextEditing` = false with `compaction: \"server\"`: server compaction is a `context_management` edit, so the host must send it",
        )
        .into());
    }
    let margin = number(value, "uncalibratedMarginPct")?;
    if let Some(pct) = margin {
        if !(0.0..=100.0).contains(&pct) || pct.fract() != 0.0 {
            return Err(invalid_setting(
                "uncalibratedMarginPct",
                &JsValue::from_f64(pct),
                "must be a whole number from 0 to 100",
            )
            .into());
        }
    }
    read_reduction(value, &mut settings)?;
    let count = js_sys::Reflect::get(value, &"countTokens".into()).unwrap_or(JsValue::UNDEFINED);
    let slot = if count.is_undefined() || count.is_null() {
        None
    } else {
        let f = count
            .dyn_into::<js_sys::Function>()
            .map_err(|v| invalid_setting("countTokens", &v, "must be a function (text: string) => number"))?;
        let (counter, slot) = crate::counter::register(f);
        settings.estimator.counter = Some(counter);
        Some(slot)
    };
    // Given, or the package's; the host's own count needs none unless asked.
    match (margin, &slot) {
        (Some(pct), _) => settings.estimator.uncalibrated_margin_pct = pct as u64,
        (None, Some(_)) => settings.estimator.uncalibrated_margin_pct = 0,
        (None, None) => {}
    }
    let session = string("sessionId")?.unwrap_or(default_session);
    Ok((settings, session, slot))
}

/// One optional string setting; anything but `undefined` or a string is an error.
fn string_setting(value: &JsValue, field: &str) -> Result<Option<String>, JsValue> {
    let v = crate::js::own(value, field, field)?;
    if v.is_undefined() {
        return Ok(None);
    }
    v.as_string()
        .map(Some)
        .ok_or_else(|| invalid_setting(field, &v, "must be a string"))
}

/// A string setting that must be one of `names`: its index, the error
/// showing the whole string given.
fn choice(value: &JsValue, field: &str, names: &[&str], must: &str) -> Result<Option<usize>, JsValue> {
    let Some(mode) = string_setting(value, field)? else {
        return Ok(None);
    };
    match names.iter().position(|n| *n == mode) {
        Some(i) => Ok(Some(i)),
        None => Err(js_error(
            INVALID_SETTING,
            field,
            &format!("invalid setting `{field}` = \"{mode}\": {must}"),
        )),
    }
}

/// `reduction`: `false` (off) or `{ maxChars?, headChars?, tailChars? }`
/// over the preset's numbers (R2.2), checked together.
fn read_reduction(value: &JsValue, settings: &mut CoreSettings) -> Result<(), JsErr> {
    let r = js_sys::Reflect::get(value, &"reduction".into()).unwrap_or(JsValue::UNDEFINED);
    if r.is_undefined() {
        return Ok(());
    }
    if r.as_bool() == Some(false) {
        settings.reduction = ReductionSettings::off();
        return Ok(());
    }
    if !r.is_object() || r.is_function() || js_sys::Array::is_array(&r) {
        return Err(invalid_setting(
            "reduction",
            &r,
            "must be false or { maxChars?, headChars?, tailChars? }",
        )
        .into());
    }
    known_keys(&r, &["maxChars", "headChars", "tailChars"])?;
    if settings.reduction.is_off() {
        settings.reduction = ReductionSettings::default();
    }
    for (field, slot) in [
        ("maxChars", &mut settings.reduction.max_chars),
        ("headChars", &mut settings.reduction.head_chars),
        ("tailChars", &mut settings.reduction.tail_chars),
    ] {
        let v = js_sys::Reflect::get(&r, &field.into()).unwrap_or(JsValue::UNDEFINED);
        if !v.is_undefined() {
            let n = v.as_f64().unwrap_or(f64::NAN);
            if !(n >= 0.0 && n.fract() == 0.0 && n < ReductionSettings::OFF as f64) {
                let must = "must be a whole number of characters below 4294967295";
                return Err(invalid_setting(&compaction_core::concat("reduction.", field), &v, must).into());
            }
            *slot = n as usize;
        }
    }
    Ok(settings.reduction.check()?)
}
