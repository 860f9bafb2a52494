//! Tier 3 in the engine (SPEC R6): asking the host for segment summaries,
//! and swapping each segment for its summary when the answer comes.

use std::sync::Arc;

use super::tier4::Reply;
use super::{Engine, Replaced};
use crate::collapse::{
    offline_segment, parse_segment, pinned_positions, segment_message, segment_prompt, segments,
};
use crate::compact::boundary::derived_uuid;
use crate::compact::{Purpose, SummaryRequest};
use crate::message::{Message, Uuid};
use crate::step::{CacheEffect, Evidence, Owner, Step, Tier};
use crate::view::{Entry, Source};

fn turn_list(turns: &[(usize, usize)]) -> String {
    turns
        .iter()
        .map(|(a, b)| format!("{a}–{b}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A segment whose summary the engine waits for.
#[derive(Debug, Clone)]
pub(crate) struct PendingSegment {
    id: u64,
    uuids: Vec<Uuid>,
    turns: (usize, usize),
    model: usize,
    /// Its request while pending, built once per state of the view
    /// ([`super::ask::Memo`]).
    built: super::ask::Memo,
    /// The view's change counter when its messages were last found there.
    in_view: super::ask::ViewMark,
}

impl Engine {
    /// Tier 3 before a call (R3.1, R6.1): only while the count is still
    /// over the compact line after Tier 2 (a snip that got under ends the
    /// cascade) and over the tier's own start line, with nothing pending,
    /// asks for one summary per segment. Returns whether the call must wait
    /// (over the blocking line with summaries pending).
    pub(super) fn run_collapse(&mut self, steps: &mut Vec<Step>) -> bool {
        let s = self.settings.collapse;
        if !s.enabled {
            return false;
        }
        self.drop_stale_segments(steps);
        let count = self.count();
        let start = self.collapse_start();
        let blocking = self.lines.budget * s.blocking_pct / 100;
        if count.tokens <= start {
            return false;
        }
        // No segment is asked for while a tool loop is open (R13.1).
        if self.collapse_pending.is_empty() && self.open_loop().is_none() {
            let found = self.queue_segments();
            if !found.is_empty() {
                let reason = format!(
                    "{} tokens, still over the {start} line after the tiers before: {} segment summaries asked for (turns {}); {}",
                    count.tokens,
                    found.len(),
                    turn_list(&found),
                    if count.tokens > blocking { "over 95%: the call waits" } else { "the call proceeds meanwhile" }
                );
                steps.push(Step {
                    model_calls: found.len() as u32,
                    ..Step::note(
                        Tier::Collapse,
                        "R6.1",
                        Owner::Model,
                        Evidence::ThirdParty,
                        count,
                        reason,
                    )
                });
            }
        }
        !self.collapse_pending.is_empty() && count.tokens > blocking
    }

    /// A pending segment whose messages left the view (snip deleted them
    /// after a 413's recovery asked for it) can no longer be asked for or
    /// applied: it is dropped with a step, so it never holds Tier 4 back.
    fn drop_stale_segments(&mut self, steps: &mut Vec<Step>) {
        let stale: Vec<usize> = (0..self.collapse_pending.len())
            .filter(|&i| {
                let p = &self.collapse_pending[i];
                !p.in_view
                    .passes(self.view.changes(), || self.messages_of(&p.uuids).is_some())
            })
            .collect();
        for i in stale.into_iter().rev() {
            let p = self.collapse_pending.remove(i);
            let step = Step::note(
                Tier::Collapse,
                "R6.1",
                Owner::Client,
                Evidence::ThirdParty,
                self.count(),
                format!(
                    "the summary of turns {}–{} is no longer asked for: its messages left the view",
                    p.turns.0, p.turns.1
                ),
            );
            steps.push(Step {
                messages: p.uuids,
                ..step
            });
        }
    }

    /// Where Tier 3 starts: its own line (`start_pct` of the budget) or the
    /// compact line, whichever is higher (R6.1: never below the compact
    /// line; Tiers 2–4 run only over it, R3.1).
    pub(crate) fn collapse_start(&self) -> u64 {
        (self.lines.budget * self.settings.collapse.start_pct / 100).max(self.lines.compact)
    }

    /// Finds the segments Tier 3 can collapse now and queues a request for
    /// each; returns their turn ranges.
    fn queue_segments(&mut self) -> Vec<(usize, usize)> {
        let found = segments(&self.view, &self.settings.collapse, &self.pinned, |u| {
            self.turn_of(u.as_str())
        });
        let mut turns = Vec::with_capacity(found.len());
        for segment in found {
            let id = self.next_request();
            let uuids = self.view.entries()[segment.range]
                .iter()
                .map(|e| e.message.uuid.clone())
                .collect();
            self.collapse_pending.push(PendingSegment {
                id,
                uuids,
                turns: segment.turns,
                model: 0,
                built: Default::default(),
                in_view: super::ask::ViewMark::at(self.view.changes()),
            });
            turns.push(segment.turns);
        }
        turns
    }

    /// R8.1's first stage after a 413, collapse overflow recovery: every
    /// segment Tier 3 could collapse is asked for regardless of its line
    /// (with those already pending). `None` when Tier 3 is off or has
    /// nothing to collapse: the emergency compaction follows at once.
    pub(super) fn collapse_recovery(&mut self) -> Option<Vec<Step>> {
        if !self.settings.collapse.enabled || self.open_loop().is_some() {
            return None;
        }
        let count = self.count();
        let queued = if self.collapse_pending.is_empty() {
            self.queue_segments()
        } else {
            self.collapse_pending.iter().map(|p| p.turns).collect()
        };
        if queued.is_empty() {
            return None;
        }
        let requests = self.collapse_requests();
        let reason = format!(
            "the API answered prompt-too-long: collapse overflow recovery first, {} segment summaries (turns {}) whatever the line; answer them and retry the call, another 413 this turn compacts",
            requests.len(),
            turn_list(&queued)
        );
        let step = Step {
            model_calls: requests.len() as u32,
            ..Step::note(
                Tier::Reactive,
                "R8.1",
                Owner::Client,
                Evidence::ThirdParty,
                count,
                reason,
            )
        };
        Some(vec![step])
    }

    /// The segment summaries Tier 3 waits for.
    pub(super) fn collapse_requests(&self) -> Vec<SummaryRequest> {
        self.collapse_pending
            .iter()
            .filter_map(|p| self.segment_request(p))
            .collect()
    }

    pub(super) fn segment_request(&self, p: &PendingSegment) -> Option<SummaryRequest> {
        let purpose = Purpose::CollapseSegment {
            first_turn: p.turns.0,
            last_turn: p.turns.1,
        };
        // Its messages are in the view before what is appended: appends
        // leave it as it was, any other change to the view builds it anew.
        let key = [
            self.view.changes(),
            self.system_tokens,
            p.id,
            p.model as u64,
            0,
            0,
            0,
        ];
        p.built.get(key, || {
            self.request_for(
                p.id,
                purpose,
                &p.uuids,
                segment_prompt(p.turns.0, p.turns.1),
                p.model,
            )
        })
    }

    /// Where the segment request `id` stands among those pending.
    pub(super) fn segment_index(&self, id: u64) -> Option<usize> {
        self.collapse_pending.iter().position(|p| p.id == id)
    }

    /// Answers one segment summary (R6.1): the segment is replaced in the
    /// view by `Turns a–b: …` as soon as it arrives. An unavailable model
    /// moves down the fallback chain; an exhausted chain, a too-long
    /// segment, an empty reply, a failed host or a view that changed
    /// meanwhile drop the request, and the step says so.
    pub(super) fn segment_answered(&mut self, index: usize, reply: Reply) -> Vec<Step> {
        let (text, owner) = match reply {
            Reply::Text(reply, _) => (parse_segment(&reply), Owner::Model),
            Reply::Offline => {
                let messages: Vec<Message> = self.collapse_pending[index]
                    .uuids
                    .iter()
                    .filter_map(|u| {
                        self.view
                            .position(u)
                            .map(|i| (*self.view.entries()[i].message).clone())
                    })
                    .collect();
                (Some(offline_segment(&messages)), Owner::Client)
            }
            Reply::Unavailable => {
                let chain_len = 1 + self.settings.compact.fallback_models.len();
                if self.collapse_pending[index].model + 1 < chain_len {
                    let new_id = self.next_request();
                    let p = &mut self.collapse_pending[index];
                    p.model += 1;
                    p.id = new_id;
                    return Vec::new();
                }
                (None, Owner::Model)
            }
            Reply::TooLong | Reply::Failed(_) => (None, Owner::Model),
        };
        let pending = self.collapse_pending.remove(index);
        let step = self.apply_segment(pending, text, owner);
        std::iter::once(step)
            .chain(self.settle_thinking(Tier::Collapse))
            .collect()
    }

    fn apply_segment(&mut self, pending: PendingSegment, text: Option<String>, owner: Owner) -> Step {
        let before = self.count();
        let (first, last) = pending.turns;
        let range = pending
            .uuids
            .first()
            .and_then(|u| self.view.position(u))
            .and_then(|start| {
                let end = start + pending.uuids.len();
                let same = self
                    .view
                    .entries()
                    .get(start..end)?
                    .iter()
                    .zip(&pending.uuids)
                    .all(|(e, u)| &e.message.uuid == u);
                same.then_some(start..end)
            });
        let mut step = Step {
            tier: Tier::Collapse,
            rule: "R6.1",
            owner,
            evidence: Evidence::ThirdParty,
            count_before: before,
            count_after: before,
            messages: pending.uuids.clone(),
            blocks: Vec::new(),
            cache: CacheEffect::Intact,
            model_calls: 0,
            reason: String::new(),
        };
        if let Some(at) = self.open_loop() {
            step.reason = format!("the summary of turns {first}–{last} was not applied: a tool loop is open at {} and its signed thinking must keep its prefix (R13.1)", self.view.entries()[at].message.uuid);
            return step;
        }
        let (Some(range), Some(text)) = (range, text) else {
            step.reason = format!("the summary of turns {first}–{last} was dropped: no usable reply, or the view changed meanwhile");
            return step;
        };
        let uuid = derived_uuid(&format!("collapse {} {first}-{last}", pending.uuids[0]));
        let message = Arc::new(segment_message(uuid.clone(), first, last, &text));
        let replaced: Vec<Entry> = self.view.entries()[range.clone()].to_vec();
        // Pinned messages (extension) follow the segment's summary
        // verbatim, with their legal groups, as after a compaction.
        let in_pinned = pinned_positions(&self.view, &self.pinned);
        let kept: Vec<Entry> = range
            .clone()
            .filter(|&i| in_pinned[i])
            .map(|i| self.view.entries()[i].clone())
            .collect();
        let collapsed = Entry {
            tokens: self.settings.estimator.message(&message),
            media: self.settings.estimator.media(&message),
            message,
            sent: None,
            source: Source::Collapse {
                replaces: pending.uuids.clone(),
            },
            settled_blocks: Vec::new(),
        };
        let mut entries = self.view.entries().to_vec();
        let start = range.start;
        let mut produced = vec![uuid.clone()];
        produced.extend(kept.iter().map(|e| e.message.uuid.clone()));
        let removed: Vec<Uuid> = pending
            .uuids
            .iter()
            .filter(|u| !produced.contains(u))
            .cloned()
            .collect();
        self.push_view_event(super::ViewEvent::Collapsed {
            removed,
            summary: Arc::clone(&collapsed.message),
            after: start
                .checked_sub(1)
                .and_then(|i| entries.get(i))
                .map(|e| e.message.uuid.clone()),
        });
        let pinned_kept = kept.len();
        entries.splice(range, std::iter::once(collapsed).chain(kept));
        self.view.replace_entries(entries);
        // Only what follows the segment has a new prefix (R13.1).
        self.view.take_rewrite();
        self.view.note_rewrite(start);
        self.microcompact.rebuild(&self.view, &self.settings.microcompact);
        self.keep_lineage(
            uuid.clone(),
            Replaced {
                before: replaced,
                produced,
            },
        );
        step.count_after = self.count();
        step.cache = CacheEffect::PrefixBroken {
            from: pending.uuids[0].clone(),
        };
        let pins = if pinned_kept > 0 {
            format!(", {pinned_kept} pinned message(s) with their groups kept after it")
        } else {
            String::new()
        };
        step.reason = format!(
            "turns {first}–{last} ({} messages) now read as one summary{pins}; the originals stay in the collapse store (expand restores them)",
            pending.uuids.len()
        );
        step
    }
}
