//! Claude Code session files in (the `context-compaction/session` module):
//! `readSession` for a whole file, a streaming `SessionImporter` for chunks
//! (memory stays proportional to the kept model). Both give a `Session`:
//! the import report (SPEC R11) and the resumed view (R11.2), a plain object
//! the engine module's `engine.loadSession` takes.

use std::cell::{Cell, RefCell};

use compaction_core::transcript::{Importer, Resume, Transcript, Unanswered};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::dto::{
    BoundarySummary, CountAnchor, CountCalibration, CountServerCleared, ImportReport, Problem, ReportedUsage,
    Session, SessionCounting, SessionMessage,
};
use crate::error::{js_error, INVALID_ARGUMENT};
use crate::js::to_js;

/// Reads a Claude Code session file in chunks (`feed`), so a large file
/// never needs to be in memory whole; `finish()` gives the `Session`
/// (`engine.loadSession(session)` resumes it).
#[wasm_bindgen]
pub struct SessionImporter {
    /// `None` once finished. Borrowed only while no JS code runs (the
    /// chunk is read before), so no throw can leave it borrowed.
    importer: RefCell<Option<Importer>>,
    /// A string chunk's last UTF-16 unit when it is a high surrogate: its
    /// pair's other half opens the next chunk.
    high: Cell<Option<u16>>,
    /// The options' repair of unanswered calls.
    unanswered: Unanswered,
}

#[wasm_bindgen(typescript_custom_section)]
const SESSION_OPTIONS: &str = r#"
/** How a session file is resumed (`readSession(source, options)`,
 * `new SessionImporter(options)`). */
export interface SessionOptions {
    /** A message of the resumed view holding a `tool_use` that nothing in
     * the view answers (its result line cut, damaged or never written: a
     * session stopped while a tool ran). `"drop"` (the default) leaves the
     * message out whole, with the results of its other calls, like an
     * orphan `tool_result`; `"errorResult"` keeps it and answers each such
     * call with a synthetic `tool_result` (`is_error: true`) at the start of
     * the next user message, or in a user message of its own. Either way
     * the view is legal for the API and each change is a problem
     * (`orphan_tool_use`) in the report. */
    unansweredToolUse?: "drop" | "errorResult";
}
"#;

/// Reads `SessionOptions` (undefined or null: the defaults; only own
/// properties of a plain object).
fn read_options(options: &JsValue) -> Result<Unanswered, JsValue> {
    if options.is_undefined() || options.is_null() {
        return Ok(Unanswered::Drop);
    }
    let Some(keys) = crate::js::plain_keys(options, "options")? else {
        return Err(js_error(
            INVALID_ARGUMENT,
            "options",
            &format!(
                "options must be a plain object {{ unansweredToolUse? }}, got {}",
                crate::js::kind(options)
            ),
        ));
    };
    if let Some(key) = keys.iter().find(|k| k.as_str() != "unansweredToolUse") {
        return Err(js_error(
            INVALID_ARGUMENT,
            &format!("options.{}", crate::js::cut(key, 40)),
            &format!(
                "options.{}: unknown option (known: unansweredToolUse)",
                crate::js::cut(key, 40)
            ),
        ));
    }
    let value = crate::js::own(options, "unansweredToolUse", "options.unansweredToolUse")?;
    match value.as_string().as_deref() {
        _ if value.is_undefined() => Ok(Unanswered::Drop),
        Some("drop") => Ok(Unanswered::Drop),
        Some("errorResult") => Ok(Unanswered::ErrorResult),
        _ => Err(js_error(
            INVALID_ARGUMENT,
            "options.unansweredToolUse",
            &format!(
                "options.unansweredToolUse must be \"drop\" or \"errorResult\", got {}",
                crate::js::kind(&value)
            ),
        )),
    }
}

fn finished() -> JsValue {
    js_error(
        INVALID_ARGUMENT,
        "importer",
        "importer: this SessionImporter was already finished",
    )
}

#[wasm_bindgen]
impl SessionImporter {
    /// An importer with nothing fed yet; `options` say how the view is
    /// resumed (`SessionOptions`).
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_optional_param_type = "SessionOptions | null")] options: Option<JsValue>,
    ) -> Result<SessionImporter, JsValue> {
        Ok(SessionImporter {
            importer: RefCell::new(Some(Importer::new())),
            high: Cell::new(None),
            unanswered: read_options(&options.unwrap_or(JsValue::UNDEFINED))?,
        })
    }

    /// Feeds the next chunk of the file: a string or bytes (a chunk may end
    /// anywhere, even inside a line, a UTF-8 character or a surrogate pair).
    pub fn feed(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string | Uint8Array")] chunk: JsValue,
    ) -> Result<(), JsValue> {
        let bytes = if let Some(js) = chunk.dyn_ref::<js_sys::JsString>() {
            self.string_bytes(js)
        } else if let Some(bytes) = crate::js::byte_view(&chunk, "chunk")? {
            self.flush_high(&mut Vec::new())
                .into_iter()
                .chain(bytes)
                .collect()
        } else {
            return Err(js_error(
                INVALID_ARGUMENT,
                "chunk",
                &format!(
                    "chunk must be a string or a Uint8Array, got {}",
                    crate::js::kind(&chunk)
                ),
            ));
        };
        let mut importer = self.importer.try_borrow_mut().map_err(|_| finished())?;
        importer.as_mut().ok_or_else(finished)?.feed(&bytes);
        Ok(())
    }

    /// Whether a call a trap stopped left this importer borrowed (for the
    /// package's guard, which says `ENGINE_POISONED` then).
    #[wasm_bindgen(js_name = __poisoned, skip_typescript)]
    pub fn poisoned(&self) -> bool {
        self.importer.try_borrow_mut().is_err()
    }

    /// Bytes fed so far.
    #[wasm_bindgen(getter, js_name = bytesFed)]
    pub fn bytes_fed(&self) -> f64 {
        self.importer
            .try_borrow()
            .ok()
            .and_then(|i| i.as_ref().map(|i| i.bytes_fed() as f64))
            .unwrap_or(0.0)
    }

    /// Ends the file: its report (records, messages, boundaries,
    /// problems…) and the view a resumed session sees. The importer cannot
    /// be used afterwards.
    #[wasm_bindgen(unchecked_return_type = "Session")]
    pub fn finish(&self) -> Result<JsValue, JsValue> {
        let tail = self.flush_high(&mut Vec::new());
        let mut importer = self
            .importer
            .try_borrow_mut()
            .ok()
            .and_then(|mut i| i.take())
            .ok_or_else(finished)?;
        importer.feed(&tail);
        to_js(&session_of(&importer.finish(), self.unanswered))
    }
}

impl SessionImporter {
    /// A string chunk's UTF-8, a surrogate pair split across chunks joined
    /// again: a trailing high surrogate waits for the next chunk.
    fn string_bytes(&self, js: &js_sys::JsString) -> Vec<u8> {
        let mut out = Vec::new();
        let mut js = js.clone();
        if js.length() == 0 {
            return out;
        }
        if let Some(high) = self.high.take() {
            match js.char_code_at(0) {
                low if (0xDC00..0xE000).contains(&(low as u32)) => {
                    let c = 0x10000 + ((u32::from(high) - 0xD800) << 10) + (low as u32 - 0xDC00);
                    push_char(&mut out, char::from_u32(c).unwrap_or('\u{FFFD}'));
                    js = js.slice(1, js.length());
                }
                _ => push_char(&mut out, '\u{FFFD}'),
            }
        }
        let n = js.length();
        if n > 0 {
            let last = js.char_code_at(n - 1) as u32;
            if (0xD800..0xDC00).contains(&last) {
                self.high.set(Some(last as u16));
                js = js.slice(0, n - 1);
            }
        }
        out.extend_from_slice(String::from(js).as_bytes());
        out
    }

    /// The UTF-8 of a high surrogate left waiting (a lone one: U+FFFD), or
    /// nothing.
    fn flush_high(&self, out: &mut Vec<u8>) -> Vec<u8> {
        if self.high.take().is_some() {
            push_char(out, '\u{FFFD}');
        }
        std::mem::take(out)
    }
}

fn push_char(out: &mut Vec<u8>, c: char) {
    out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
}

/// Reads a whole Claude Code session file (its text, or its bytes), or the
/// records an engine wrote (`engine.records()` joined with newlines): the
/// report and the view a resumed session sees, for `engine.loadSession`.
/// Bad lines are problems in the report, never an exception.
#[wasm_bindgen(js_name = readSession, unchecked_return_type = "Session")]
pub fn read_session(
    #[wasm_bindgen(unchecked_param_type = "string | Uint8Array")] source: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "SessionOptions | null")] options: Option<JsValue>,
) -> Result<JsValue, JsValue> {
    let unanswered = read_options(&options.unwrap_or(JsValue::UNDEFINED))?;
    if source.is_string() {
        let text = crate::js::text(&source, "session", false)?;
        let mut importer = Importer::new();
        importer.feed_text(&text);
        return to_js(&session_of(&importer.finish(), unanswered));
    }
    if let Some(bytes) = crate::js::byte_view(&source, "session")? {
        let mut importer = Importer::new();
        importer.feed(&bytes);
        return to_js(&session_of(&importer.finish(), unanswered));
    }
    Err(js_error(
        INVALID_ARGUMENT,
        "session",
        "session must be the file's text or its bytes (Uint8Array); for chunks, use a SessionImporter",
    ))
}

/// The session a transcript resumes to (SPEC R11.2), with its report.
fn session_of(transcript: &Transcript, unanswered: Unanswered) -> Session {
    let resume = transcript.resume_with(unanswered);
    let report = report(transcript, &resume, unanswered);
    Session {
        report,
        boundary: resume.boundary.as_ref().map(|b| b.uuid.0.clone()),
        leaf: transcript.leaf().map(|u| u.0.clone()),
        session_id: transcript.sessions.last().cloned(),
        last_made_uuid: transcript.last_made_uuid.as_ref().map(|u| u.0.clone()),
        compactions: transcript.boundaries.len() as f64,
        pinned: resume.pinned.iter().map(|u| u.0.clone()).collect(),
        counting: resume.counting.as_ref().map(counting_of),
        messages: resume
            .messages
            .into_iter()
            .map(|m| SessionMessage {
                uuid: m.message.uuid.0.clone(),
                role: m.message.role.as_str().to_owned(),
                content: m.message.content.clone(),
                timestamp: m.message.timestamp.as_ref().map(|t| t.as_str().to_owned()),
                usage: m.message.usage.as_ref().map(|u| ReportedUsage {
                    input_tokens: u.input_tokens as f64,
                    output_tokens: u.output_tokens as f64,
                    cache_creation_input_tokens: u.cache_creation_input_tokens as f64,
                    cache_read_input_tokens: u.cache_read_input_tokens as f64,
                }),
                is_compact_summary: m.is_compact_summary,
            })
            .collect(),
    }
}

/// The import report of a transcript and its resumed view.
/// A file's count basis in JS terms (numbers: counts stay far below 2^53).
fn counting_of(saved: &compaction_core::transcript::counted::SavedCounting) -> SessionCounting {
    let c = &saved.counting;
    SessionCounting {
        after: saved.after.as_ref().map(|u| u.0.clone()),
        calibration: CountCalibration {
            real: c.calibration.real as f64,
            estimated: c.calibration.estimated as f64,
        },
        anchor: c.anchor.as_ref().map(|a| CountAnchor {
            uuid: a.uuid.as_ref().map(|u| u.0.clone()),
            reported: a.reported as f64,
            reply_delta: a.reply_delta as f64,
            prefix_delta: a.prefix_delta as f64,
        }),
        server_cleared: c.server_cleared.as_ref().map(|c| CountServerCleared {
            through: c.through.clone(),
            fired_at: c.fired_at as f64,
        }),
    }
}

fn report(transcript: &Transcript, resume: &Resume, unanswered: Unanswered) -> ImportReport {
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
        // The core counts the default view; synthetic answers add messages.
        active_messages: if unanswered == Unanswered::Drop {
            f64::from(i.active_messages)
        } else {
            resume.messages.len() as f64
        },
        problems,
    }
}

fn problem(p: &compaction_core::transcript::Problem) -> Problem {
    Problem {
        line: f64::from(p.line),
        // The kind's serde name (a JSON string, quotes removed).
        kind: compaction_core::message::to_json_string(&p.kind)
            .map(|s| s.trim_matches('"').to_owned())
            .unwrap_or_default(),
        detail: p.detail.clone(),
    }
}
