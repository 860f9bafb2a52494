//! An imported session laid out per request for the sandbox's chart, with
//! its real boundaries and a replay's predictions.

use serde::Serialize;

use compaction_core::message::{Role, Uuid};
use compaction_core::step::Tier;

/// One request of an imported session: an assistant message in timeline
/// order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Request {
    /// The assistant message's uuid.
    pub uuid: Uuid,
    /// The prompt tokens its usage reports (input + cache), if it has one.
    pub reported: Option<u64>,
}

/// Something on an imported session's chart, at a request.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum Mark {
    /// One of the session's real boundaries, before request `at`.
    Real {
        /// Index into [`SessionChart::requests`].
        at: usize,
        /// `manual` or `auto`, as written.
        trigger: Option<String>,
        /// `preTokens`, as written.
        pre_tokens: Option<u64>,
    },
    /// Where the what-if replay would compact.
    Predicted {
        /// Index into [`SessionChart::requests`] (the request after).
        at: usize,
        /// The count that crossed the line.
        tokens: u64,
    },
    /// Where the session's client cleared old tool results
    /// (`microcompact_boundary`), before request `at`.
    Microcompact {
        /// Index into [`SessionChart::requests`].
        at: usize,
        /// How many results it cleared.
        cleared: usize,
    },
    /// Where the what-if's tiers 1–3 changed the count.
    Tier {
        /// Index into [`SessionChart::requests`] (the request after).
        at: usize,
        /// The tier.
        tier: Tier,
        /// Tokens before and after.
        tokens: (u64, u64),
    },
}

/// An imported session laid out per request, with its real boundaries and
/// a replay's predictions.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionChart {
    /// Every request in timeline order.
    pub requests: Vec<Request>,
    /// Boundaries, predictions and tier events, in order of `at`.
    pub marks: Vec<Mark>,
}

/// Lays `transcript` out per request (the same timeline as
/// [`Transcript::replay`](compaction_core::transcript::Transcript::replay): each era's
/// own messages, without summaries and preserved copies) and places
/// `replay`'s predictions on it.
pub fn session_chart(
    transcript: &compaction_core::transcript::Transcript,
    replay: &compaction_core::transcript::replay::Replay,
) -> SessionChart {
    timeline_chart(&transcript.timeline(), replay)
}

/// [`session_chart`] of a timeline laid out once
/// ([`Transcript::timeline`](compaction_core::transcript::Transcript::timeline)).
pub fn timeline_chart(
    timeline: &compaction_core::transcript::replay::Timeline,
    replay: &compaction_core::transcript::replay::Replay,
) -> SessionChart {
    let mut charting = Charting::new(timeline);
    while !charting.step(timeline, usize::MAX) {}
    charting.finish(timeline, replay)
}

/// [`timeline_chart`] laid out a slice of messages at a time
/// ([`Charting::step`]), so that a page can yield between slices (a
/// 1M-record session's chart was a 158 ms task in one piece); the same
/// chart once [`Charting::finish`]ed.
#[derive(Debug)]
pub struct Charting {
    /// The era being laid out, and the next of its messages.
    era: usize,
    at: usize,
    requests: Vec<Request>,
    marks: Vec<Mark>,
    /// Per timeline message, in order: the index of the next request, and
    /// of the first request at or after it.
    next_request: Vec<usize>,
    from_request: Vec<usize>,
}

impl Charting {
    /// A chart of `timeline`, not started.
    pub fn new(timeline: &compaction_core::transcript::replay::Timeline) -> Self {
        Charting {
            era: 0,
            at: 0,
            requests: Vec::new(),
            marks: Vec::new(),
            next_request: Vec::with_capacity(timeline.len()),
            from_request: Vec::with_capacity(timeline.len()),
        }
    }

    /// Lays out about `budget` more messages of `timeline` (the one it was
    /// started for); true once every message is.
    pub fn step(&mut self, timeline: &compaction_core::transcript::replay::Timeline, budget: usize) -> bool {
        let mut spent = 0;
        while let Some((boundary, entries)) = timeline.era(self.era) {
            if self.at == 0 {
                // The era's mark once, when its first message is next.
                if spent >= budget {
                    return false;
                }
                if let Some(b) = boundary.and_then(|b| timeline.actual().get(b)) {
                    self.marks.push(Mark::Real {
                        at: self.requests.len(),
                        trigger: b.trigger.clone(),
                        pre_tokens: b.pre_tokens,
                    });
                }
            }
            for (m, _) in entries.get(self.at..).unwrap_or_default() {
                if spent >= budget {
                    return false;
                }
                let response = m.role == Role::Assistant;
                self.from_request.push(self.requests.len());
                self.next_request
                    .push(self.requests.len() + usize::from(response));
                if response {
                    self.requests.push(Request {
                        uuid: m.uuid.clone(),
                        reported: m.usage.as_ref().map(|u| u.prompt_tokens()).filter(|&t| t > 0),
                    });
                }
                self.at += 1;
                spent += 1;
            }
            self.era += 1;
            self.at = 0;
        }
        true
    }

    /// The chart, with `replay`'s predictions and tier events placed (once
    /// [`Charting::step`] said done).
    pub fn finish(
        self,
        timeline: &compaction_core::transcript::replay::Timeline,
        replay: &compaction_core::transcript::replay::Replay,
    ) -> SessionChart {
        let Charting {
            requests,
            mut marks,
            next_request,
            from_request,
            ..
        } = self;
        let at = |uuid: &Uuid| {
            timeline
                .position(uuid)
                .and_then(|i| next_request.get(i))
                .copied()
                .unwrap_or(0)
        };
        for p in &replay.predicted {
            marks.push(Mark::Predicted {
                at: at(&p.at_uuid),
                tokens: p.tokens,
            });
        }
        for (before, ids) in timeline.microcompactions() {
            marks.push(Mark::Microcompact {
                at: from_request.get(before).copied().unwrap_or(requests.len()),
                cleared: ids.len(),
            });
        }
        for t in &replay.tiers {
            marks.push(Mark::Tier {
                at: at(&t.at_uuid),
                tier: t.tier,
                tokens: (t.tokens_before, t.tokens_after),
            });
        }
        marks.sort_by_key(|m| match m {
            Mark::Real { at, .. }
            | Mark::Predicted { at, .. }
            | Mark::Microcompact { at, .. }
            | Mark::Tier { at, .. } => *at,
        });
        SessionChart { requests, marks }
    }
}
