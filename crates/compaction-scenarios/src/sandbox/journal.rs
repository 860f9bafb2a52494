//! The session's file (JSONL) around a compaction, and what a resume reads
//! back from it (SPEC R11): the records before, the compaction's own (the
//! `compact_boundary` with its trigger, pre/post tokens and preserved
//! uuids, the summary, the restored files), the records after; then the
//! view the core's importer resumes from that file, each message with its
//! place (summary, preserved and relinked, restored, new), beside the live
//! view. The records are written by the core's `SessionLog`, as every
//! front door writes them; the resume is the core's.

use serde::Serialize;

use compaction_core::compact::boundary::Trigger;
use compaction_core::compact::Progress;
use compaction_core::engine::Engine;
use compaction_core::error::Error;
use compaction_core::message::Uuid;
use compaction_core::step::Step;
use compaction_core::time::Timestamp;
use compaction_core::transcript::log::SessionLog;

use super::Knobs;
use crate::{Event, Frame, Observer, Scenario};

/// One record of the file, as a reader names it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Record {
    /// `user`, `assistant`, `system`: the record's `type`.
    pub kind: String,
    /// Its `subtype` (`compact_boundary`…), when it has one.
    pub subtype: Option<String>,
    /// Its `uuid`.
    pub uuid: String,
    /// Its `parentUuid` (`None`: a chain starts here, as a boundary's does).
    pub parent: Option<String>,
    /// `isCompactSummary`: the summary written after a boundary.
    pub summary: bool,
}

/// The boundary record's metadata, as written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BoundaryCard {
    /// `manual` or `auto`.
    pub trigger: &'static str,
    /// `preTokens`.
    pub pre_tokens: u64,
    /// `postTokens`.
    pub post_tokens: u64,
    /// `preservedMessages`: the messages kept verbatim, relinked on resume.
    pub preserved: Vec<String>,
    /// `logicalParentUuid`: the last message before the boundary.
    pub logical_parent: Option<String>,
}

/// Where a message of the resumed view comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Place {
    /// The summary record after the boundary.
    Summary,
    /// A message from before the boundary, listed in `preservedMessages`
    /// and relinked after the summary.
    Preserved,
    /// A file or context restored after the summary.
    Restored,
    /// Appended after the compaction.
    New,
}

/// One message of the resumed view.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Resumed {
    /// Its uuid.
    pub uuid: String,
    /// Where it comes from.
    pub place: Place,
    /// Its tokens at the engine's estimate.
    pub tokens: u64,
    /// `user` or `assistant`.
    pub role: &'static str,
}

/// The file around one compaction, and its resume.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Journal {
    /// Records written before the compaction's.
    pub before: usize,
    /// The compaction's records, in order.
    pub written: Vec<Record>,
    /// Records appended after them, up to the next event.
    pub after: Vec<Record>,
    /// The boundary's metadata.
    pub boundary: BoundaryCard,
    /// The transcript path the summary tells the model about, if any.
    pub transcript_path: Option<String>,
    /// The view a resume of the file reads back, in order.
    pub resumed: Vec<Resumed>,
    /// The live view at the next event, in order (uuids).
    pub live: Vec<String>,
}

impl Journal {
    /// Whether the resumed view is the live one, message for message.
    pub fn resumes_as_live(&self) -> bool {
        self.resumed.iter().map(|r| &r.uuid).eq(self.live.iter())
    }
}

/// The file around the compaction of moment `moment` of `scenario` played
/// with `knobs`, and its resume. `Ok(None)` when that moment wrote no
/// boundary.
pub fn journal(scenario: &Scenario, knobs: &Knobs, moment: usize) -> Result<Option<Journal>, Error> {
    let mut w = Writer {
        log: SessionLog::new("5f1c2a9e-0000-4000-8000-sandbox".to_owned()),
        logged: 0,
        lines: 0,
        moments: 0,
        target: moment,
        now: None,
        at: None,
        jsonl: None,
        precompute: knobs.precompute,
    };
    let (_, engine) = super::play_knobbed(scenario, knobs, &mut w)?;
    if w.at.is_some() && w.jsonl.is_none() {
        w.finish(&engine);
    }
    let (Some(at), Some((jsonl, live))) = (w.at, w.jsonl) else {
        return Ok(None);
    };
    let records: Vec<Record> = jsonl.lines().map(record).collect();
    let written = records[at.before..at.before + at.written].to_vec();
    let after = records[at.before + at.written..].to_vec();
    let transcript = compaction_core::transcript::import(jsonl.as_bytes());
    let resume = transcript.resume();
    let estimator = &scenario.settings.estimator;
    let restored: Vec<&String> = written.iter().skip(2).map(|r| &r.uuid).collect();
    let resumed = resume
        .messages
        .iter()
        .map(|m| Resumed {
            uuid: m.message.uuid.0.clone(),
            place: if m.is_compact_summary {
                Place::Summary
            } else if m.preserved {
                Place::Preserved
            } else if restored.contains(&&m.message.uuid.0) {
                Place::Restored
            } else {
                Place::New
            },
            tokens: estimator.message(&m.message),
            role: m.message.role.as_str(),
        })
        .collect();
    Ok(Some(Journal {
        before: at.before,
        written,
        after,
        boundary: at.card,
        transcript_path: scenario.settings.compact.transcript_path.clone(),
        resumed,
        live,
    }))
}

/// Where the compaction's records fell.
struct At {
    before: usize,
    written: usize,
    card: BoundaryCard,
}

/// Writes the session's records as it plays, up to the event after the
/// target compaction.
struct Writer {
    log: SessionLog,
    /// Store messages logged so far.
    logged: usize,
    /// Lines written so far.
    lines: usize,
    /// Non-append events seen.
    moments: usize,
    target: usize,
    now: Option<Timestamp>,
    at: Option<At>,
    /// The file once the records after are in, and the live view then.
    jsonl: Option<(String, Vec<String>)>,
    /// The stored precompute loaded before each `/compact`, as
    /// [`super::explore`] loads it.
    precompute: super::PrecomputeSwitch,
}

impl Writer {
    fn time(&self) -> Timestamp {
        self.now.clone().unwrap_or_else(|| Timestamp::from_unix_ms(0))
    }

    fn sync(&mut self, engine: &Engine) {
        for m in &engine.store().messages()[self.logged..] {
            self.log.appended(m.uuid.clone());
            self.lines += 1;
        }
        self.logged = engine.store().len();
    }

    fn finish(&mut self, engine: &Engine) {
        self.sync(engine);
        let jsonl = self.log.records(engine.store()).join("\n");
        let live = engine
            .view()
            .entries()
            .iter()
            .map(|e| e.message.uuid.0.clone())
            .collect();
        self.jsonl = Some((jsonl, live));
    }
}

impl Observer for Writer {
    fn before(&mut self, engine: &mut Engine, event: &Event) -> Vec<Step> {
        if self.at.is_some() && self.jsonl.is_none() {
            self.finish(engine);
        }
        if self.jsonl.is_some() {
            // Past the target: played on only as explore plays.
            return match event {
                Event::Compact(_) => super::load_precompute(engine, self.precompute, self.now.as_ref()),
                _ => Vec::new(),
            };
        }
        let time = self.time();
        for e in engine.take_view_events() {
            self.lines += self.log.view_event(&e, time.clone()).len();
        }
        self.sync(engine);
        match event {
            Event::Call(now) => {
                self.now.clone_from(now);
                Vec::new()
            }
            Event::Compact(_) => super::load_precompute(engine, self.precompute, self.now.as_ref()),
            _ => Vec::new(),
        }
    }

    fn after(&mut self, _engine: &Engine, _frame: &Frame, end: Option<&Progress>) {
        let here = self.moments == self.target;
        self.moments += 1;
        // Every compaction is written, as a front door writes them; the
        // target's records are marked.
        let Some(Progress::Compacted { result }) = end.filter(|_| self.jsonl.is_none() && self.at.is_none())
        else {
            return;
        };
        let before = self.lines;
        let written = self.log.compacted(result, &result.restored, self.time()).len();
        self.lines += written;
        if !here {
            return;
        }
        let meta = &result.boundary.compact_metadata;
        self.at = Some(At {
            before,
            written,
            card: BoundaryCard {
                trigger: match meta.trigger {
                    Trigger::Manual => "manual",
                    Trigger::Auto => "auto",
                },
                pre_tokens: meta.pre_tokens,
                post_tokens: meta.post_tokens,
                preserved: meta.preserved_messages.iter().map(|u| u.0.clone()).collect(),
                logical_parent: result
                    .boundary
                    .logical_parent_uuid
                    .as_ref()
                    .map(|u: &Uuid| u.0.clone()),
            },
        });
    }
}

/// A record's kind, subtype, uuid and parent, read from its line.
fn record(line: &str) -> Record {
    let v: serde_json::Value = serde_json::from_str(line).unwrap_or_default();
    let s = |k: &str| v.get(k).and_then(|x| x.as_str()).map(str::to_owned);
    Record {
        kind: s("type").unwrap_or_default(),
        subtype: s("subtype"),
        uuid: s("uuid").unwrap_or_default(),
        parent: s("parentUuid"),
        summary: v.get("isCompactSummary").and_then(serde_json::Value::as_bool) == Some(true),
    }
}
