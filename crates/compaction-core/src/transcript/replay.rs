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

use std::sync::Arc;

use serde::Serialize;

use super::Transcript;
use crate::compact::{FileAnswer, Progress, SummaryRequest};
use crate::engine::{drive, Answer, DriveError, Engine, Host};
use crate::engine::{EngineSettings, Preset};
use crate::error::Error;
use crate::message::{Message, Role, Uuid};
use crate::step::Tier;
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

/// A timeline message, and its copy without usage when it has usage (what
/// a replay appends once it no longer follows the real session).
pub type Entry = (Arc<Message>, Option<Arc<Message>>);

/// A session's timeline, laid out once for any number of replays and
/// charts ([`Transcript::timeline`]): every era's own messages in order,
/// without the summaries and the preserved copies a compaction wrote,
/// shared rather than copied per replay.
#[derive(Debug, Clone, Default)]
pub struct Timeline {
    /// Each message, with a copy without its usage when it has one (what a
    /// replay appends once it no longer follows the real session).
    pub(crate) entries: Vec<Entry>,
    /// Each era: where its messages start in `entries`, and the index into
    /// `actual` of the real boundary that opens it.
    pub(crate) eras: Vec<(usize, Option<usize>)>,
    /// Each era's opening: the real summary, then the preserved messages
    /// (without usage, R7.6), as a resume shows them; empty for the first.
    pub(crate) openings: Vec<Vec<Arc<Message>>>,
    /// The session's real boundaries, in file order.
    pub(crate) actual: Vec<Actual>,
    /// When each real boundary was written (parallel to `actual`).
    pub(crate) actual_times: Vec<Option<crate::time::Timestamp>>,
    /// The client's recorded microcompactions: the entry they come before,
    /// and the `tool_use_id`s they cleared.
    pub(crate) microcompactions: Vec<(usize, Vec<String>)>,
    /// Where each uuid stands in `entries` (its last place, when a resumed
    /// file repeats it).
    pub(crate) position: std::collections::HashMap<Uuid, usize>,
}

impl Transcript {
    /// The session's timeline (see [`Timeline`]).
    pub fn timeline(&self) -> Timeline {
        let mut timeline = Timeline {
            actual: self
                .boundaries
                .iter()
                .zip(self.lacks())
                .map(|(b, lacks)| Actual {
                    uuid: b.uuid.clone(),
                    line: b.line,
                    trigger: b.trigger().map(str::to_owned),
                    pre_tokens: b.pre_tokens(),
                    lacks,
                })
                .collect(),
            actual_times: self.boundaries.iter().map(|b| b.timestamp.clone()).collect(),
            ..Timeline::default()
        };
        let mut lines = Vec::new();
        for era in self.eras() {
            timeline.eras.push((timeline.entries.len(), era.boundary));
            let skip = if era.boundary.is_some() {
                1 + era.context + era.preserved
            } else {
                0
            };
            let opening = era
                .messages
                .iter()
                .take(skip)
                .filter_map(|&index| self.messages.get(index))
                .map(|imported| {
                    let mut m = imported.message.clone();
                    if !imported.is_compact_summary {
                        m.usage = None;
                    }
                    Arc::new(m)
                })
                .collect();
            timeline.openings.push(opening);
            for &index in era.messages.iter().skip(skip) {
                let Some(imported) = self.messages.get(index) else {
                    continue;
                };
                if imported.is_compact_summary {
                    continue;
                }
                let message = Arc::new(imported.message.clone());
                let without_usage = message.usage.is_some().then(|| {
                    let mut m = (*message).clone();
                    m.usage = None;
                    Arc::new(m)
                });
                timeline
                    .position
                    .insert(message.uuid.clone(), timeline.entries.len());
                timeline.entries.push((message, without_usage));
                lines.push(imported.line);
            }
        }
        // A microcompaction comes before the first message written after it.
        for mc in &self.microcompactions {
            let before = lines.iter().position(|&l| l > mc.line).unwrap_or(lines.len());
            timeline.microcompactions.push((before, mc.tool_ids.clone()));
        }
        timeline.microcompactions.sort_by_key(|(at, _)| *at);
        timeline
    }

    /// Replays the session's timeline through an engine with `settings`,
    /// following the session's own compactions ([`ReplayOptions`]).
    pub fn replay(&self, preset: Preset, settings: EngineSettings) -> Result<Replay, Error> {
        self.timeline().replay(preset, settings)
    }
}

/// One replay in progress: the engine, and what it found so far.
struct Run<'a> {
    engine: Engine,
    predicted: Vec<Predicted>,
    tiers: Vec<TierEvent>,
    /// The what-if's view is no longer the real one: count by estimate.
    diverged: bool,
    last: Option<&'a Uuid>,
}

impl<'a> Run<'a> {
    /// The before-call decision for one request, every request answered
    /// offline; a started compaction is recorded as predicted.
    fn request(&mut self, now: Option<&crate::time::Timestamp>) -> Result<(), Error> {
        let engine = &mut self.engine;
        let decision = engine.before_call(now);
        if let Some(at) = self.last {
            for step in &decision.steps {
                use crate::step::Tier::{Collapse, Microcompact, Snip};
                if matches!(step.tier, Snip | Collapse) {
                    // The what-if's view is no longer the real one.
                    self.diverged = true;
                }
                if matches!(step.tier, Microcompact | Snip | Collapse)
                    && step.count_before != step.count_after
                {
                    self.tiers.push(TierEvent {
                        at_uuid: at.clone(),
                        tier: step.tier,
                        rule: step.rule,
                        tokens_before: step.count_before.tokens,
                        tokens_after: step.count_after.tokens,
                    });
                }
            }
        }
        // Every request answered offline, through the engine's driver.
        let out = match drive(engine, &mut OfflineHost) {
            Ok(out) => out,
            Err(DriveError::Engine(e)) => return Err(e),
            Err(DriveError::Host { cause, .. }) => match cause {},
        };
        // Any compaction that got as far as its summary counts (a
        // precompute hit finishes it without asking for one).
        let compacted = matches!(out.compaction, Some(Progress::Compacted { .. }));
        let started = decision.compaction.is_some()
            && (compacted
                || out
                    .steps
                    .iter()
                    .any(|s| s.tier != Tier::Collapse && s.rule == "R7.3"));
        if let (true, Some(at)) = (started, self.last) {
            self.predicted.push(Predicted {
                at_uuid: at.clone(),
                tokens: decision.count.tokens,
            });
        }
        self.diverged |= compacted;
        Ok(())
    }

    /// Appends a timeline message (without its usage once diverged).
    fn append(&mut self, (message, without_usage): &'a Entry) -> Result<(), Error> {
        let appended = match (self.diverged, without_usage) {
            (true, Some(m)) => m,
            _ => message,
        };
        self.last = Some(&message.uuid);
        // A uuid seen twice (a resumed file) is the same message.
        match self.engine.append_shared(Arc::clone(appended)) {
            Ok(()) | Err(Error::DuplicateUuid { .. }) => Ok(()),
            Err(other) => Err(other),
        }
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

    /// Where a uuid stands among the timeline's messages (its last place,
    /// when a resumed file repeats it).
    pub fn position(&self, uuid: &Uuid) -> Option<usize> {
        self.position.get(uuid).copied()
    }

    /// Each era's messages, with the index into [`Timeline::actual`] of the
    /// real boundary that opens it.
    pub fn eras(&self) -> impl Iterator<Item = (Option<usize>, &[Entry])> {
        self.eras.iter().enumerate().map(|(i, &(start, boundary))| {
            let end = self.eras.get(i + 1).map_or(self.entries.len(), |next| next.0);
            (boundary, self.entries.get(start..end).unwrap_or_default())
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

    /// Replays the timeline through an engine with `settings` and `options`.
    pub fn replay_with(
        &self,
        preset: Preset,
        mut settings: EngineSettings,
        options: ReplayOptions,
    ) -> Result<Replay, Error> {
        if options.follow_real {
            // The real usage already counts what the client cleared; the
            // file says which results (`microcompact_boundary`).
            settings.microcompact.eligible_tools.clear();
        }
        let fresh = settings.clone();
        let mut run = Run {
            engine: Engine::new(settings)?,
            predicted: Vec::new(),
            tiers: Vec::new(),
            diverged: false,
            last: None,
        };
        let lines = run.engine.lines().clone();
        let mut microcompactions = self.microcompactions.iter().peekable();
        let mut at = 0;
        let mut at_real = Vec::new();
        for (era, (boundary, entries)) in self.eras().enumerate() {
            // The count the last decision of the era saw.
            let mut checked = None;
            if options.follow_real && boundary.is_some() {
                // Resume from the real compacted view.
                run.engine = Engine::new(fresh.clone())?;
                run.diverged = false;
                for (i, m) in self.openings.get(era).into_iter().flatten().enumerate() {
                    let appended = if i == 0 {
                        run.engine.append_summary((**m).clone())
                    } else {
                        run.engine.append_shared(Arc::clone(m))
                    };
                    match appended {
                        Ok(()) | Err(Error::DuplicateUuid { .. }) => {}
                        Err(other) => return Err(other),
                    }
                }
                // A compaction predicted before the era's first message
                // stands after the boundary, not at a timeline message.
                run.last = self.openings.get(era).and_then(|o| o.last()).map(|m| &m.uuid);
            } else {
                // After a real boundary the real usage describes the real
                // client's compacted view, not the what-if's.
                run.diverged |= boundary.is_some();
            }
            for entry in entries {
                while let Some((_, ids)) = microcompactions.next_if(|(before, _)| *before <= at) {
                    if options.follow_real {
                        run.engine.clear_results_recorded(ids);
                    }
                }
                let response = entry.0.role == Role::Assistant;
                if response && options.counts_appended {
                    run.request(entry.0.timestamp.as_ref())?;
                }
                run.append(entry)?;
                if response && !options.counts_appended {
                    checked = Some(run.engine.count().tokens);
                    run.request(entry.0.timestamp.as_ref())?;
                }
                at += 1;
            }
            // The era ends at a real automatic boundary: the client was
            // about to send a request, and checked the count first.
            let next = self.eras.get(era + 1).and_then(|&(_, b)| b);
            if let Some(b) = next.filter(|&b| self.actual.get(b).is_some_and(Actual::is_auto)) {
                if let Some(real) = self.actual.get(b) {
                    let tokens = match (options.counts_appended, checked) {
                        (false, Some(tokens)) => tokens,
                        _ => run.engine.count().tokens,
                    };
                    at_real.push(RealCount {
                        uuid: real.uuid.clone(),
                        tokens,
                    });
                }
                // A client that counts only the last response's usage
                // decided on it already, right after that response.
                if options.counts_appended || checked.is_none() {
                    run.request(self.actual_times.get(b).and_then(Option::as_ref))?;
                }
            }
        }
        Ok(Replay {
            preset: preset.name(),
            lines,
            predicted: run.predicted,
            tiers: run.tiers,
            actual: self.actual.clone(),
            at_real,
        })
    }
}

impl Actual {
    /// Whether the boundary says `trigger: "auto"`.
    pub fn is_auto(&self) -> bool {
        self.trigger.as_deref() == Some("auto")
    }
}
