//! An engine's settings from JS: a preset name, an `EngineSettings`
//! object read field by field (so a bad value is an error naming that
//! field), or nothing.

use compaction_core::engine::{EngineSettings as CoreSettings, Preset};
use compaction_core::thresholds::{RawThresholdSettings, ThresholdSettings as CoreThresholdSettings};
use wasm_bindgen::prelude::*;

use crate::error::{from_engine, js_error, INVALID_SETTING};
use crate::thresholds::{describe, known_keys, number};

const SETTINGS_FIELDS: [&str; 16] = [
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
];

/// Settings from a preset name, an `EngineSettings` object, or `undefined`.
pub(crate) fn read_settings(value: &JsValue) -> Result<(CoreSettings, String), JsValue> {
    let preset_of = |name: &str| {
        Preset::from_name(name).ok_or_else(|| {
            let known: Vec<&str> = Preset::ALL.iter().map(|p| p.name()).collect();
            js_error(
                INVALID_SETTING,
                "preset",
                &format!("unknown preset \"{name}\"; known presets: {}", known.join(", ")),
            )
        })
    };
    let default_session = "context-compaction".to_owned();
    if value.is_undefined() {
        return Ok((Preset::Seed.settings(200_000), default_session));
    }
    if let Some(name) = value.as_string() {
        return Ok((preset_of(&name)?.settings(200_000), default_session));
    }
    if !value.is_object() || value.is_function() {
        return Err(js_error(
            INVALID_SETTING,
            "settings",
            &format!(
                "settings must be a preset name or an object like {{ preset: \"seed\", window: 200000 }}, got {}",
                describe(value)
            ),
        ));
    }
    known_keys(value, &SETTINGS_FIELDS)?;
    let string = |field: &str| -> Result<Option<String>, JsValue> {
        let v = crate::js::own(value, field, field)?;
        if v.is_undefined() {
            return Ok(None);
        }
        v.as_string().map(Some).ok_or_else(|| {
            js_error(
                INVALID_SETTING,
                field,
                &format!("invalid setting `{field}` = {}: must be a string", describe(&v)),
            )
        })
    };
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
    let thresholds = CoreThresholdSettings::try_from(&raw).map_err(|e| from_engine(&e))?;
    // The lines must be computable now, so a bad combination fails here.
    compaction_core::thresholds::Thresholds::compute(&thresholds).map_err(|e| from_engine(&e))?;
    let mut settings = preset.settings(thresholds.window);
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
    if let Some(mode) = string("thinking")? {
        use compaction_core::api::ThinkingMode;
        settings.api.thinking = [ThinkingMode::Strip, ThinkingMode::DropBlock, ThinkingMode::Keep]
            .into_iter()
            .find(|m| m.name() == mode)
            .ok_or_else(|| {
                js_error(
                    INVALID_SETTING,
                    "thinking",
                    &format!("invalid setting `thinking` = \"{mode}\": must be \"strip\", \"drop_block\" or \"keep\""),
                )
            })?;
    }
    if let Some(mode) = string("compaction")? {
        use compaction_core::api::CompactionMode;
        settings.api.compaction = match mode.as_str() {
            "client" => CompactionMode::Client,
            "server" => CompactionMode::Server,
            _ => {
                return Err(js_error(
                    INVALID_SETTING,
                    "compaction",
                    &format!("invalid setting `compaction` = \"{mode}\": must be \"client\" or \"server\""),
                ))
            }
        };
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
            return Err(bad());
        }
        settings.api.clear_thinking = Some(json);
    }
    for (field, slot) in [
        ("snip", &mut settings.snip),
        ("collapse", &mut settings.collapse.enabled),
        ("serverInstructions", &mut settings.api.server_instructions),
    ] {
        let v = crate::js::own(value, field, field)?;
        if !v.is_undefined() {
            *slot = v.as_bool().ok_or_else(|| {
                js_error(
                    INVALID_SETTING,
                    field,
                    &format!(
                        "invalid setting `{field}` = {}: must be true or false",
                        describe(&v)
                    ),
                )
            })?;
        }
    }
    let session = string("sessionId")?.unwrap_or(default_session);
    Ok((settings, session))
}
