//! A session's timeline laid out a slice at a time ([`LayingOut`]): the
//! same timeline as [`Transcript::timeline`], which lays it out at once,
//! resumable between eras and between any two messages of an era, so that
//! a page can yield to the browser.

use std::sync::{Arc, OnceLock};

use super::{Actual, Timeline};
use crate::hash::KeySet;
use crate::transcript::chain::Walk;
use crate::transcript::{Era, Transcript};

/// Where a [`LayingOut`] stands.
enum Stage {
    /// The evidence of missing records, per real boundary: the tool ids
    /// used and answered collected from this message on, a slice at a
    /// time (the whole file at once took 50-60 ms of a 100,000-boundary
    /// import's 105 ms step natively), then the evidence.
    Lacks(usize),
    /// The real boundaries: the next one.
    Boundaries(usize),
    /// Walking the record graph back from the leaf, an era at a time:
    /// where the next walk starts.
    Walk(Option<usize>),
    /// Walking one era back from this node ([`LayingOut::walk`]), a
    /// slice of nodes at a time.
    Walking(usize),
    /// Copying each era's messages: the era, and the next of its messages.
    Copy(usize, usize),
    /// Placing the recorded microcompactions.
    Microcompactions,
    Done,
}

/// A [`Timeline`] being laid out from a [`Transcript`], advanced by
/// [`LayingOut::step`] a slice at a time, always with the transcript it was
/// started for; [`LayingOut::finish`] gives the timeline once `step` says
/// done.
pub struct LayingOut {
    timeline: Timeline,
    stage: Stage,
    /// The eras walked, newest first until the walk ends.
    eras: Vec<Era>,
    visited: crate::hash::HashSet<usize>,
    /// The era walk under way.
    walk: Option<Walk>,
    /// Each timeline message's line in the file.
    lines: Vec<u32>,
    /// Per real boundary, the evidence of missing records, until it goes
    /// into [`Timeline::actual`].
    lacks: Vec<Vec<crate::transcript::lacks::Lack>>,
    /// The tool ids the file uses and answers, while [`Stage::Lacks`]
    /// collects them (owned: a step cannot keep borrows of the transcript).
    uses: KeySet<String>,
    results: KeySet<String>,
}

impl Transcript {
    /// The session's timeline (see [`Timeline`]).
    pub fn timeline(&self) -> Timeline {
        let mut laying = self.lay_out();
        while !laying.step(self, usize::MAX) {}
        laying.finish()
    }

    /// The session's timeline, to be laid out a slice at a time
    /// ([`LayingOut`]).
    pub fn lay_out(&self) -> LayingOut {
        LayingOut {
            timeline: Timeline::default(),
            stage: Stage::Lacks(0),
            eras: Vec::new(),
            visited: Default::default(),
            walk: None,
            lines: Vec::new(),
            lacks: Vec::new(),
            uses: KeySet::default(),
            results: KeySet::default(),
        }
    }
}

impl LayingOut {
    /// Lays out about `budget` more messages of `transcript` (an era
    /// walked counts its messages, a real boundary one, the evidence of
    /// missing records and the microcompactions one each); true once the
    /// timeline is whole.
    pub fn step(&mut self, transcript: &Transcript, budget: usize) -> bool {
        let mut spent = 0;
        while spent < budget {
            match self.stage {
                Stage::Lacks(from) if from < transcript.messages.len() => {
                    let to = transcript.messages.len().min(from.saturating_add(budget - spent));
                    for m in transcript.messages.get(from..to).unwrap_or_default() {
                        self.uses.extend(m.message.tool_use_ids().map(str::to_owned));
                        self.results
                            .extend(m.message.tool_result_ids().map(str::to_owned));
                    }
                    self.stage = Stage::Lacks(to);
                    spent += to - from;
                }
                Stage::Lacks(_) => {
                    let (uses, results) = (&self.uses, &self.results);
                    self.lacks = transcript.lacks_given(&|id| uses.contains(id), &|id| results.contains(id));
                    self.lacks.reverse();
                    self.uses = KeySet::default();
                    self.results = KeySet::default();
                    self.stage = Stage::Boundaries(0);
                    spent += 1;
                }
                Stage::Boundaries(from) => {
                    let to = transcript
                        .boundaries
                        .len()
                        .min(from.saturating_add(budget - spent));
                    self.boundaries(transcript, from, to);
                    spent += (to - from).max(1);
                    self.stage = if to < transcript.boundaries.len() {
                        Stage::Boundaries(to)
                    } else {
                        Stage::Walk(transcript.graph.view_start())
                    };
                }
                Stage::Walk(start) => {
                    spent += 1;
                    self.stage = match start.filter(|at| !self.visited.contains(at)) {
                        Some(at) => {
                            self.walk = Some(transcript.graph.walk_from(at));
                            Stage::Walking(at)
                        }
                        None => {
                            self.eras.reverse();
                            self.reserve();
                            Stage::Copy(0, 0)
                        }
                    };
                }
                Stage::Walking(at) => {
                    // A walk costs about the nodes it met, its era's
                    // assembly about its messages.
                    let Some(walk) = self.walk.as_mut() else {
                        self.stage = Stage::Walk(None);
                        continue;
                    };
                    let before = walk.walked();
                    let done = walk.step(&transcript.graph, &mut self.visited, budget - spent);
                    spent += (walk.walked() - before).max(1);
                    if done {
                        let (boundary, walked) = self.walk.take().map(Walk::finish).unwrap_or_default();
                        let (era, before) =
                            transcript
                                .graph
                                .era_walked(at, boundary, &walked, &transcript.messages);
                        let more = era.boundary.is_some();
                        spent += era.messages.len();
                        self.eras.push(era);
                        self.stage = Stage::Walk(if more { before } else { None });
                    }
                }
                Stage::Copy(era, from) => {
                    self.stage = match self.copy(transcript, era, from, budget - spent) {
                        Some((next, copied)) => {
                            spent += copied.max(1);
                            next
                        }
                        None => Stage::Microcompactions,
                    };
                }
                Stage::Microcompactions => {
                    self.microcompactions(transcript);
                    self.stage = Stage::Done;
                    spent += 1;
                }
                Stage::Done => return true,
            }
        }
        matches!(self.stage, Stage::Done)
    }

    /// The timeline laid out (whole once [`LayingOut::step`] said so).
    pub fn finish(self) -> Timeline {
        self.timeline
    }

    /// The real boundaries `from..to`, with their evidence of missing
    /// records (taken from the end of `lacks`, which holds them in reverse).
    fn boundaries(&mut self, transcript: &Transcript, from: usize, to: usize) {
        let timeline = &mut self.timeline;
        for b in transcript.boundaries.get(from..to).unwrap_or_default() {
            timeline.actual.push(Actual {
                uuid: b.uuid.clone(),
                line: b.line,
                trigger: b.trigger().map(str::to_owned),
                pre_tokens: b.pre_tokens(),
                lacks: self.lacks.pop().unwrap_or_default(),
            });
            timeline.actual_times.push(b.timestamp.clone());
        }
    }

    /// Makes room for every era's messages at once: a uuid index grown
    /// as it fills rehashes every key at each doubling, in one slice (a
    /// 1M-message session: 150 ms at the last one, in the page).
    fn reserve(&mut self) {
        let messages: usize = self.eras.iter().map(|era| era.messages.len()).sum();
        let timeline = &mut self.timeline;
        timeline.entries.reserve(messages);
        timeline.position.reserve(messages);
        self.lines.reserve(messages);
    }

    /// Copies up to `budget` messages of era `at` from its message `from`
    /// (0: the era's start, its opening first): where the copy goes on, and
    /// how many were copied; `None` past the last era.
    fn copy(
        &mut self,
        transcript: &Transcript,
        at: usize,
        from: usize,
        budget: usize,
    ) -> Option<(Stage, usize)> {
        let era = self.eras.get(at)?;
        let timeline = &mut self.timeline;
        let skip = if era.boundary.is_some() {
            1 + era.context + era.preserved
        } else {
            0
        };
        let from = if from == 0 {
            timeline.eras.push((timeline.entries.len(), era.boundary));
            let opening = era
                .messages
                .iter()
                .take(skip)
                .filter_map(|&index| transcript.messages.get(index))
                .map(|imported| {
                    if imported.is_compact_summary || imported.message.usage.is_none() {
                        return Arc::clone(&imported.message);
                    }
                    let mut m = (*imported.message).clone();
                    m.usage = None;
                    Arc::new(m)
                })
                .collect();
            timeline.openings.push(opening);
            let summary = era
                .messages
                .first()
                .and_then(|&m| transcript.messages.get(m))
                .is_some_and(|m| m.is_compact_summary);
            timeline.opening_parts.push((summary && skip > 0, era.context));
            skip
        } else {
            from
        };
        let to = era.messages.len().min(from.saturating_add(budget));
        for &index in era.messages.get(from..to).unwrap_or_default() {
            let Some(imported) = transcript.messages.get(index) else {
                continue;
            };
            if imported.is_compact_summary {
                continue;
            }
            // Shared with the transcript; the copy without usage is made
            // when a replay first needs it.
            let message = Arc::clone(&imported.message);
            timeline
                .position
                .insert(message.uuid.clone(), timeline.entries.len());
            timeline.entries.push((message, OnceLock::new()));
            self.lines.push(imported.line);
        }
        let next = if to >= era.messages.len() {
            Stage::Copy(at + 1, 0)
        } else {
            Stage::Copy(at, to)
        };
        Some((next, to - from))
    }

    /// A microcompaction comes before the first message written after it.
    fn microcompactions(&mut self, transcript: &Transcript) {
        let (timeline, lines) = (&mut self.timeline, &self.lines);
        for mc in &transcript.microcompactions {
            let before = lines.iter().position(|&l| l > mc.line).unwrap_or(lines.len());
            timeline.microcompactions.push((before, mc.tool_ids.clone()));
        }
        timeline.microcompactions.sort_by_key(|(at, _)| *at);
    }
}
