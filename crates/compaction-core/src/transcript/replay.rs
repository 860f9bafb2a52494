//! Replay (what-if): a session's real timeline run through the engine,
//! reporting where automatic compaction would fire and where the session's
//! real boundaries are (issue "Real Claude Code sessions", SPEC R1.6, R3).
//!
//! The timeline is the logical history across boundaries: every era's own
//! messages, without the summaries and the preserved copies a compaction
//! wrote. Before each assistant message (each request), and at each real
//! automatic boundary (the request the client compacted before), the
//! engine takes its before-call decision with the record's timestamp as
//! "now"; the count is R1.6's: the real last usage plus an estimate of what
//! followed, the reply's own recorded `output_tokens` replaced by its
//! estimate when smaller (a streaming snapshot).
//!
//! By default ([`ReplayOptions::follow_real`]) the replay follows the
//! session's own client where the file records what it did: each real
//! boundary restarts the engine from the session's real compacted view (its
//! summary and preserved messages, as a resume would), and each
//! `microcompact_boundary` clears the results it names, while the engine's
//! own Tier 1 stays off (the real usage already counts what the client
//! cleared). Each era is then one independent prediction of where its
//! automatic compaction falls. Without it, one engine runs the whole
//! timeline and never learns of the real compactions (a what-if for other
//! windows). Once the what-if snips, collapses or compacts, the real usage
//! no longer describes its view, so later messages in that era are counted
//! by estimate.

use std::sync::{Arc, OnceLock};

use serde::Serialize;

mod layout;
mod step;
pub use layout::LayingOut;
pub use step::Replaying;

use super::Transcript;
use crate::compact::{FileAnswer, SummaryRequest};
use crate::engine::{Answer, Host};
use crate::engine::{EngineSettings, Preset};
use crate::error::Error;
use crate::message::{Message, Uuid};
use crate::thresholds::Thresholds;

/// A replay's host: every summary written by the offline summariser, no
/// file read.
struct OfflineHost;

impl Host for OfflineHost {
    type Error = std::convert::Infallible;

    fn summarize(&mut self, _: &SummaryRequest) -> Result<Answer, Self::Error> {
        Ok(Answer::Offline)
    }

    fn read_files(&mut self, paths: &[String]) -> Result<Vec<FileAnswer>, Self::Error> {
        Ok(paths
            .iter()
            .map(|p| FileAnswer {
                path: p.clone(),
                content: Err("a replay reads no files".into()),
            })
            .collect())
    }
}

/// Where the what-if would compact.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Predicted {
    /// The last record before the predicted compaction.
    pub at_uuid: Uuid,
    /// The count that crossed the line.
    pub tokens: u64,
}

/// A step of tiers 1–3 the what-if took on the way (microcompact, snip,
/// collapse): they can keep the count under the compact line so that no
/// compaction is needed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TierEvent {
    /// The last record before the step.
    pub at_uuid: Uuid,
    /// The tier.
    pub tier: crate::step::Tier,
    /// The rule id.
    pub rule: &'static str,
    /// The count before the step.
    pub tokens_before: u64,
    /// The count after it.
    pub tokens_after: u64,
}

/// A real boundary of the session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Actual {
    /// The boundary's uuid.
    pub uuid: Uuid,
    /// Its 1-based line in the file.
    pub line: u32,
    /// `manual` or `auto`, as written.
    pub trigger: Option<String>,
    /// `preTokens`, as written.
    pub pre_tokens: Option<u64>,
    /// Evidence that the file lacks records the client had when it wrote
    /// this boundary ([`super::lacks::Lack`]); empty when it shows none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub lacks: Vec<super::lacks::Lack>,
}

/// A replay's result.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Replay {
    /// The preset used.
    pub preset: &'static str,
    /// The lines used.
    pub lines: Thresholds,
    /// Where the what-if compacts, in order.
    pub predicted: Vec<Predicted>,
    /// What tiers 1–3 did on the way, in order.
    pub tiers: Vec<TierEvent>,
    /// The session's real boundaries, in file order.
    pub actual: Vec<Actual>,
    /// The what-if's count at each real automatic boundary (the request the
    /// client compacted before), in file order: compare with `preTokens`.
    pub at_real: Vec<RealCount>,
}

/// The what-if's count where the real client compacted automatically.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RealCount {
    /// The real boundary's uuid.
    pub uuid: Uuid,
    /// The what-if's count before that request (R1.6).
    pub tokens: u64,
}

/// The preset for a client version ([`super::choice::preset_for_version`],
/// where the table and its evidence are).
pub fn preset_for_version(version: Option<&str>) -> Preset {
    super::choice::preset_for_version(version).0
}

/// How a replay treats what the file records of its client's own actions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReplayOptions {
    /// Restart from the session's real compacted view at each real
    /// boundary and apply its `microcompact_boundary` records, with the
    /// engine's own Tier 1 off (default: true; see the module docs).
    pub follow_real: bool,
    /// Whether the client's count adds what was appended since the last
    /// response to that response's usage (R1.6; default: true). When not
    /// (clients 2.0.70 – 2.0.76, [`super::versions::VERSIONS`]), the
    /// replay decides right after each response, before anything else is
    /// appended, which is the count such a client checks before the next
    /// request.
    pub counts_appended: bool,
}

impl Default for ReplayOptions {
    fn default() -> Self {
        ReplayOptions {
            follow_real: true,
            counts_appended: true,
        }
    }
}

/// A timeline message (shared with the transcript), and its copy without
/// usage, made the first time a replay needs it ([`without_usage`]).
pub type Entry = (Arc<Message>, OnceLock<Arc<Message>>);

/// What a replay appends of `entry` once it no longer follows the real
/// session: the message without its usage (the same message when it has
/// none), copied once per timeline.
pub(crate) fn without_usage(entry: &Entry) -> &Arc<Message> {
    let (message, copy) = entry;
    if message.usage.is_none() {
        return message;
    }
    copy.get_or_init(|| {
        let mut m = (**message).clone();
        m.usage = None;
        Arc::new(m)
    })
}

/// A session's timeline, laid out once for any number of replays and
/// charts ([`Transcript::timeline`]): every era's own messages in order,
/// without the summaries and the preserved copies a compaction wrote,
/// shared rather than copied per replay.
#[derive(Debug, Clone, Default)]
pub struct Timeline {
    /// Each message, with its copy without usage once a replay needed it
    /// (what a replay appends once it no longer follows the real session).
    pub(crate) entries: Vec<Entry>,
    /// Each era: where its messages start in `entries`, and the index into
    /// `actual` of the real boundary that opens it.
    pub(crate) eras: Vec<(usize, Option<usize>)>,
    /// Each era's opening: the real summary, then the preserved messages
    /// (without usage, R7.6), as a resume shows them; empty for the first.
    pub(crate) openings: Vec<Vec<Arc<Message>>>,
    /// Per era: whether its opening starts with a summary record, and how
    /// many re-attached context records come before the preserved ones
    /// ([`Era::context`](super::Era)).
    pub(crate) opening_parts: Vec<(bool, usize)>,
    /// The session's real boundaries, in file order.
    pub(crate) actual: Vec<Actual>,
    /// When each real boundary was written (parallel to `actual`).
    pub(crate) actual_times: Vec<Option<crate::time::Timestamp>>,
    /// The client's recorded microcompactions: the entry they come before,
    /// and the `tool_use_id`s they cleared.
    pub(crate) microcompactions: Vec<(usize, Vec<String>)>,
    /// Where each uuid stands in `entries` (its last place, when a resumed
    /// file repeats it).
    pub(crate) position: crate::hash::HashMap<Uuid, usize>,
}

impl Transcript {
    /// Replays the session's timeline through an engine with `settings`,
    /// following the session's own compactions ([`ReplayOptions`]).
    pub fn replay(&self, preset: Preset, settings: EngineSettings) -> Result<Replay, Error> {
        self.timeline().replay(preset, settings)
    }
}

impl Timeline {
    /// How many messages the timeline holds.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the timeline holds no message.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The session's real boundaries, in file order.
    pub fn actual(&self) -> &[Actual] {
        &self.actual
    }

    /// The client's recorded microcompactions (`microcompact_boundary`):
    /// the timeline message each comes before, and the `tool_use_id`s of
    /// the results it cleared.
    pub fn microcompactions(&self) -> impl Iterator<Item = (usize, &[String])> {
        self.microcompactions
            .iter()
            .map(|(at, ids)| (*at, ids.as_slice()))
    }

    /// Where a uuid stands among the timeline's messages (its last place,
    /// when a resumed file repeats it).
    pub fn position(&self, uuid: &Uuid) -> Option<usize> {
        self.position.get(uuid).copied()
    }

    /// Each era's messages, with the index into [`Timeline::actual`] of the
    /// real boundary that opens it.
    pub fn eras(&self) -> impl Iterator<Item = (Option<usize>, &[Entry])> {
        (0..self.eras.len()).filter_map(|i| self.era(i))
    }

    /// Era `i` of [`Timeline::eras`], without walking the ones before it.
    pub fn era(&self, i: usize) -> Option<(Option<usize>, &[Entry])> {
        let &(start, boundary) = self.eras.get(i)?;
        let end = self.eras.get(i + 1).map_or(self.entries.len(), |next| next.0);
        Some((boundary, self.entries.get(start..end).unwrap_or_default()))
    }

    /// What era `era` (as [`Timeline::eras`] counts) opens with, as the
    /// engine assembled it when the timeline was laid out (the walk
    /// [`Transcript::eras`] makes, done once on import): the real
    /// summary, the context re-attached after it, the preserved messages.
    /// `None` past the last era; an era no compaction opens has an empty
    /// opening. An earlier era's summary and preserved tail without walking
    /// the history again.
    pub fn opening(&self, era: usize) -> Option<EraOpening<'_>> {
        let messages = self.openings.get(era)?;
        let (summary, context) = self.opening_parts.get(era).copied().unwrap_or_default();
        let boundary = self.eras.get(era).and_then(|&(_, b)| b);
        Some(EraOpening {
            boundary: boundary.and_then(|b| self.actual.get(b)),
            messages,
            summary,
            context,
        })
    }

    /// Where each real boundary stands: the number of timeline messages
    /// before it, parallel to the replay's `actual` (`None` for a boundary
    /// that opens no era of the walked history).
    pub fn boundary_positions(&self) -> Vec<Option<usize>> {
        let mut out = vec![None; self.actual.len()];
        for &(start, boundary) in &self.eras {
            if let Some(slot) = boundary.and_then(|b| out.get_mut(b)) {
                *slot = Some(start);
            }
        }
        out
    }

    /// Replays the timeline through an engine with `settings`, following
    /// the session's own compactions ([`ReplayOptions::default`]).
    pub fn replay(&self, preset: Preset, settings: EngineSettings) -> Result<Replay, Error> {
        self.replay_with(preset, settings, ReplayOptions::default())
    }
}

/// What an era opens with ([`Timeline::opening`]).
#[derive(Debug, Clone, Copy)]
pub struct EraOpening<'a> {
    /// The real boundary that opens the era.
    pub boundary: Option<&'a Actual>,
    /// The summary (with its usage) when [`EraOpening::summary`], then
    /// `context` re-attached records, then the preserved messages (without
    /// usage, R7.6), in the order a resume appends them.
    pub messages: &'a [Arc<Message>],
    /// Whether the first message is the compaction's summary record.
    pub summary: bool,
    /// How many re-attached context records come after the first message
    /// and before the preserved ones.
    pub context: usize,
}

impl EraOpening<'_> {
    /// Whether the `i`-th message is a preserved one.
    pub fn is_preserved(&self, i: usize) -> bool {
        i > self.context
    }
}

impl Actual {
    /// Whether the boundary says `trigger: "auto"`.
    pub fn is_auto(&self) -> bool {
        self.trigger.as_deref() == Some("auto")
    }
}
