//! Replay (what-if): a session's real timeline run through the engine with
//! other settings, reporting where automatic compaction would fire and
//! where the session's real boundaries are (issue "Real Claude Code
//! sessions", SPEC R1.6, R3).
//!
//! The timeline is the logical history across boundaries: every era's own
//! messages, without the summaries and the preserved copies a compaction
//! wrote. Before each assistant message (each request) the engine takes its
//! before-call decision with the message's timestamp as "now"; the count is
//! R1.6's (the real last usage plus an estimate of what followed). Once the
//! what-if snips, collapses or compacts, or the timeline crosses one of the
//! session's real boundaries, the real usage no longer describes the
//! what-if's view, so later messages are counted by estimate.

use std::sync::Arc;

use serde::Serialize;

use super::Transcript;
use crate::compact::{FileAnswer, Progress};
use crate::engine::Engine;
use crate::engine::{EngineSettings, Preset};
use crate::error::Error;
use crate::message::{Message, Role, Uuid};
use crate::thresholds::Thresholds;

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
    /// `manual` or `auto`, as written.
    pub trigger: Option<String>,
    /// `preTokens`, as written.
    pub pre_tokens: Option<u64>,
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
}

/// The preset for a client version, where public evidence allows: 2.1.x →
/// `client-2.1` (see [`Preset::Client21`] for the evidence); 1.0 and 2.0 →
/// `seed` (no public source gives their numbers, and the seed's are the
/// documented ones). `newer-client` is chosen by flag.
pub fn preset_for_version(version: Option<&str>) -> Preset {
    match version {
        Some(v) if v.starts_with("2.1.") => Preset::Client21,
        _ => Preset::Seed,
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
    /// The session's real boundaries, in file order.
    pub(crate) actual: Vec<Actual>,
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
                .map(|b| Actual {
                    uuid: b.uuid.clone(),
                    trigger: b.trigger().map(str::to_owned),
                    pre_tokens: b.pre_tokens(),
                })
                .collect(),
            ..Timeline::default()
        };
        for era in self.eras() {
            timeline.eras.push((timeline.entries.len(), era.boundary));
            let skip = if era.boundary.is_some() {
                1 + era.preserved
            } else {
                0
            };
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
            }
        }
        timeline
    }

    /// Replays the session's timeline through an engine with `settings`.
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

    /// Replays the timeline through an engine with `settings`.
    pub fn replay(&self, preset: Preset, settings: EngineSettings) -> Result<Replay, Error> {
        let mut engine = Engine::new(settings)?;
        let lines = engine.lines().clone();
        let mut predicted = Vec::new();
        let mut tiers = Vec::new();
        let mut diverged = false;
        let mut last: Option<&Uuid> = None;
        for (boundary, entries) in self.eras() {
            // After a real boundary the real usage describes the real
            // client's compacted view, not the what-if's.
            diverged |= boundary.is_some();
            for (message, without_usage) in entries {
                if message.role == Role::Assistant {
                    let decision = engine.before_call(message.timestamp.as_ref());
                    if let Some(at) = last {
                        for step in &decision.steps {
                            use crate::step::Tier::{Collapse, Microcompact, Snip};
                            if matches!(step.tier, Snip | Collapse) {
                                // The what-if's view is no longer the real one.
                                diverged = true;
                            }
                            if matches!(step.tier, Microcompact | Snip | Collapse)
                                && step.count_before != step.count_after
                            {
                                tiers.push(TierEvent {
                                    at_uuid: at.clone(),
                                    tier: step.tier,
                                    rule: step.rule,
                                    tokens_before: step.count_before.tokens,
                                    tokens_after: step.count_after.tokens,
                                });
                            }
                        }
                    }
                    for r in &decision.collapse {
                        engine.answer_collapse_offline(r.id)?;
                    }
                    if let Some(r) = &decision.precompute {
                        engine.answer_precompute_offline(r.id)?;
                    }
                    let mut progress = decision.compaction;
                    // Any start of a compaction counts (a precompute hit
                    // finishes it within the call).
                    let started = matches!(
                        progress,
                        Some(
                            Progress::NeedsSummary { .. }
                                | Progress::NeedsFiles { .. }
                                | Progress::Compacted { .. }
                        )
                    );
                    if let (true, Some(at)) = (started, last) {
                        predicted.push(Predicted {
                            at_uuid: at.clone(),
                            tokens: decision.count.tokens,
                        });
                    }
                    while let Some(p) = progress.take() {
                        progress = match p {
                            Progress::NeedsSummary { request } => Some(engine.answer_offline(request.id)?.1),
                            Progress::NeedsFiles { request } => {
                                let answers: Vec<FileAnswer> = request
                                    .paths
                                    .iter()
                                    .map(|p| FileAnswer {
                                        path: p.clone(),
                                        content: Err("a replay reads no files".into()),
                                    })
                                    .collect();
                                Some(engine.answer_files(request.id, &answers)?.1)
                            }
                            Progress::Compacted { .. } => {
                                diverged = true;
                                None
                            }
                            Progress::NeedsCollapse { requests } => {
                                for r in requests {
                                    engine.answer_collapse_offline(r.id)?;
                                }
                                None
                            }
                            Progress::Failed { .. } => None,
                        };
                    }
                }
                let appended = match (diverged, without_usage) {
                    (true, Some(m)) => m,
                    _ => message,
                };
                last = Some(&message.uuid);
                // A uuid seen twice (a resumed file) is the same message.
                match engine.append_shared(Arc::clone(appended)) {
                    Ok(()) | Err(Error::DuplicateUuid { .. }) => {}
                    Err(other) => return Err(other),
                }
            }
        }
        Ok(Replay {
            preset: preset.name(),
            lines,
            predicted,
            tiers,
            actual: self.actual.clone(),
        })
    }
}
