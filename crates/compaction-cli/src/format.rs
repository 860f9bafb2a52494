//! `--format`: a history in another SDK's shape (`ai-sdk`, `openai-chat`,
//! `openai-responses`, `langchain`), read and written back by
//! `compaction_core::format`; the view comes out in the same shape, every
//! message no tier touched exactly as it came.

use std::path::Path;

use compaction_core::compact::boundary::derived_uuid;
use compaction_core::engine::{Engine, EngineSettings};
use compaction_core::format::{Format, Ledger};
use compaction_core::message::Json;

/// The format named by `--format` (`anthropic` is no conversion: `None`).
pub fn parse(name: &str) -> Result<Option<Format>, String> {
    match Format::from_name(name) {
        Some(Format::Anthropic) => Ok(None),
        Some(f) => Ok(Some(f)),
        None => Err(format!(
            "invalid --format `{name}`: one of {}",
            Format::NAMES.join(", ")
        )),
    }
}

/// A fresh engine holding the file's history (a JSON list of items, or an
/// object with `messages`) in `format`, and the ledger that writes it back.
/// Off Anthropic, Tier 1 takes the client path (no server-side context
/// editing, R4.2).
pub fn load(path: &Path, format: Format, mut settings: EngineSettings) -> Result<(Engine, Ledger), String> {
    let text = crate::read::input_text(path)?;
    let list = if text.trim_start().starts_with('{') {
        #[derive(serde::Deserialize)]
        struct Body {
            messages: Box<serde_json::value::RawValue>,
        }
        let body: Body = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        body.messages.get().to_owned()
    } else {
        text
    };
    settings.microcompact.context_editing = false;
    let mut engine = Engine::new(settings).map_err(|e| e.message_naming(crate::flag))?;
    let mut ledger = Ledger::new(format);
    let converted = ledger
        .read(&list)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    for (i, c) in converted.into_iter().enumerate() {
        let preamble = c.preamble;
        let (m, origin) = c.into_message(derived_uuid(&format!("message {i}")));
        ledger.record(&m, origin, preamble);
        if preamble {
            engine.set_system(ledger.system_text());
        } else {
            engine.append(m).map_err(|e| format!("messages[{i}]: {e}"))?;
        }
    }
    Ok((engine, ledger))
}

/// The view in the ledger's format, each item's JSON text kept as it is
/// (never through `serde_json::Value`, whose depth limit a model's tool
/// input may pass).
pub fn view(engine: &Engine, ledger: &Ledger) -> Result<Vec<Json>, String> {
    let store = engine.store();
    ledger
        .export(engine.view().sent_messages(), |u| store.get(u).map(|m| &**m))
        .iter()
        .enumerate()
        .map(|(i, e)| {
            Json::parse(e.text()).map_err(|err| format!("view[{i}]: the written item is not JSON: {err}"))
        })
        .collect()
}
