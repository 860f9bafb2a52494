//! Claude Code session files in: a streaming `SessionImporter` (feed it
//! chunks, memory stays proportional to the kept model), and the import
//! report (SPEC R11).

use compaction_core::transcript::{Importer, Resume, Transcript};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::dto::{BoundarySummary, ImportReport, Problem};
use crate::engine::to_js;
use crate::error::{js_error, INVALID_ARGUMENT};

/// Reads a Claude Code session file in chunks (`feed`), so a large file
/// never needs to be in memory whole; then `engine.loadSession(importer)`
/// or `importer.finish()` for the report alone.
#[wasm_bindgen]
pub struct SessionImporter {
    importer: Option<Importer>,
}

impl Default for SessionImporter {
    fn default() -> Self {
        SessionImporter::new()
    }
}

fn finished() -> JsValue {
    js_error(
        INVALID_ARGUMENT,
        "importer",
        "importer: this SessionImporter was already finished (or loaded into an engine)",
    )
}

#[wasm_bindgen]
impl SessionImporter {
    /// An importer with nothing fed yet.
    #[wasm_bindgen(constructor)]
    pub fn new() -> SessionImporter {
        SessionImporter {
            importer: Some(Importer::new()),
        }
    }

    /// Feeds the next chunk of the file: a string or bytes (a chunk may end
    /// anywhere, even inside a line or a UTF-8 character).
    pub fn feed(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "string | Uint8Array")] chunk: JsValue,
    ) -> Result<(), JsValue> {
        let importer = self.importer.as_mut().ok_or_else(finished)?;
        feed(importer, &chunk)
    }

    /// Bytes fed so far.
    #[wasm_bindgen(getter, js_name = bytesFed)]
    pub fn bytes_fed(&self) -> f64 {
        self.importer.as_ref().map_or(0.0, |i| i.bytes_fed() as f64)
    }

    /// Takes the fed file over (for `engine.loadImported`).
    pub(crate) fn take(&mut self) -> Result<Transcript, JsValue> {
        Ok(self.importer.take().ok_or_else(finished)?.finish())
    }

    /// Ends the file and returns the import report (records, messages,
    /// boundaries, problems…). The importer cannot be used afterwards.
    #[wasm_bindgen(unchecked_return_type = "ImportReport")]
    pub fn finish(&mut self) -> Result<JsValue, JsValue> {
        let transcript = self.importer.take().ok_or_else(finished)?.finish();
        to_js(&report(&transcript, &transcript.resume()))
    }
}

fn feed(importer: &mut Importer, chunk: &JsValue) -> Result<(), JsValue> {
    if let Some(text) = chunk.as_string() {
        importer.feed(text.as_bytes());
        Ok(())
    } else if let Some(bytes) = chunk.dyn_ref::<js_sys::Uint8Array>() {
        importer.feed(&bytes.to_vec());
        Ok(())
    } else {
        Err(js_error(
            INVALID_ARGUMENT,
            "chunk",
            "chunk must be a string or a Uint8Array",
        ))
    }
}

/// The transcript of a `loadSession` source.
pub(crate) fn transcript_of(source: JsValue) -> Result<Transcript, JsValue> {
    if source.is_string() || source.is_instance_of::<js_sys::Uint8Array>() {
        let mut importer = Importer::new();
        feed(&mut importer, &source)?;
        return Ok(importer.finish());
    }
    Err(js_error(
        INVALID_ARGUMENT,
        "session",
        "session must be the file's text or its bytes (Uint8Array); for chunks, use a SessionImporter and loadImported",
    ))
}

/// The import report of a transcript and its resumed view.
pub(crate) fn report(transcript: &Transcript, resume: &Resume) -> ImportReport {
    let i = transcript.inspection();
    let mut problems: Vec<Problem> = i.problems.iter().map(problem).collect();
    problems.extend(resume.problems.iter().map(problem));
    ImportReport {
        lines: f64::from(i.lines),
        records: f64::from(i.records),
        record_types: i.record_types.clone(),
        sidechain_records: f64::from(i.sidechain_records),
        messages: f64::from(i.messages),
        tool_uses: f64::from(i.tool_uses),
        tool_results: f64::from(i.tool_results),
        orphans: f64::from(i.orphans),
        boundaries: i
            .boundaries
            .iter()
            .map(|b| BoundarySummary {
                uuid: b.uuid.0.clone(),
                trigger: b.trigger.clone(),
                pre_tokens: b.pre_tokens.map(|t| t as f64),
                post_tokens: b.post_tokens.map(|t| t as f64),
                line: f64::from(b.line),
                logical_parent_found: b.logical_parent_found,
                summary_uuid: b.summary_uuid.as_ref().map(|u| u.0.clone()),
            })
            .collect(),
        versions: i.versions.clone(),
        sessions: i.sessions.clone(),
        leaf: i.leaf.as_ref().map(|u| u.0.clone()),
        active_messages: f64::from(i.active_messages),
        problems,
    }
}

fn problem(p: &compaction_core::transcript::Problem) -> Problem {
    Problem {
        line: f64::from(p.line),
        // The kind's serde name (a JSON string, quotes removed).
        kind: serde_json::to_string(&p.kind)
            .map(|s| s.trim_matches('"').to_owned())
            .unwrap_or_default(),
        detail: p.detail.clone(),
    }
}
