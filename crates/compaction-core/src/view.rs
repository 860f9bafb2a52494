//! The active view: what the next model request will contain (SPEC "store
//! vs active view"), with its legal groups, turns and token count kept up to
//! date one change at a time, so a before-call decision costs O(what
//! changed), not O(history).

use std::ops::Range;
use std::sync::Arc;

use serde::Serialize;

use crate::groups::Segmentation;
use crate::message::{Block, Content, Message, Uuid};
use crate::tokens::{Basis, Estimator, TokenFigure};

/// Where a view entry comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum Source {
    /// A store message (possibly reduced or cleared in the view).
    Stored,
    /// A summary written by a compaction, replacing these store messages.
    Summary {
        /// The store messages it replaced (lineage).
        replaces: Vec<Uuid>,
    },
    /// Material restored after a compaction (a file, a plan…).
    Attachment,
    /// A collapsed segment's summary (Tier 3), replacing these messages.
    Collapse {
        /// The messages it replaced (lineage).
        replaces: Vec<Uuid>,
    },
}

/// One message of the view.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// What the model sees.
    pub message: Arc<Message>,
    /// What the client sends, when it differs from what the model sees:
    /// the server clears content by context editing, and the client's copy
    /// stays intact (R4.3).
    pub sent: Option<Arc<Message>>,
    /// Where it comes from.
    pub source: Source,
    /// Estimated tokens of `message`.
    pub tokens: u64,
    /// The part of `tokens` its images and documents make
    /// ([`Estimator::media`]).
    pub media: u64,
    /// Indices of blocks whose content the view changed (reduced or
    /// cleared): they are never changed again (R2.3, R4.5).
    pub settled_blocks: Vec<usize>,
}

/// The last API-reported usage in the view (R1.6).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Anchor {
    /// Position of the message carrying the usage.
    position: usize,
    /// input + cache-creation + cache-read tokens of that request.
    reported: u64,
    /// The reply's counted output minus its content's estimate: thinking
    /// the transcript does not show, for one (R1.6: tokens are estimated
    /// unless known, and the reply's are known); negative only when the
    /// estimator takes a smaller report as it stands
    /// ([`Estimator::reported_output_as_is`]).
    reply_delta: i64,
    /// Estimated tokens of the entries before `position`.
    prefix_estimate: u64,
    /// The part of `prefix_estimate` images and documents make.
    prefix_media: u64,
    /// Change since the request in the estimate of entries before
    /// `position` (negative: tokens freed by clearing or dropping).
    prefix_delta: i64,
}

/// What the view's messages hold that a request must announce with a beta
/// header (R13.4): counts, kept up to date as the view changes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Features {
    /// `compaction` blocks (R13.2).
    pub compaction_blocks: usize,
    /// `tool_addition` / `tool_removal` blocks (R13.3).
    pub tool_changes: usize,
    /// System messages with a `clear_at` (R13.3).
    pub clear_at: usize,
    /// System messages with an `output_config` (R13.3).
    pub output_config: usize,
}

impl Features {
    fn add(&mut self, m: &Message) {
        for b in m.content.blocks() {
            match b.kind() {
                "compaction" => self.compaction_blocks += 1,
                "tool_addition" | "tool_removal" => self.tool_changes += 1,
                _ => {}
            }
        }
        self.clear_at += usize::from(m.extra.contains_key("clear_at"));
        self.output_config += usize::from(m.extra.contains_key("output_config"));
    }
}

/// The active view.
#[derive(Debug, Clone, Default)]
pub struct View {
    entries: Vec<Entry>,
    segmentation: Segmentation,
    estimate: u64,
    /// The part of `estimate` images and documents make.
    media: u64,
    anchor: Option<Anchor>,
    estimator: Estimator,
    calibration: Calibration,
    features: Features,
    /// The first position whose prefix, as the client sends it, changed
    /// since [`View::take_rewrite`] was last called (R13.1).
    rewritten_from: Option<usize>,
    /// The same for budget reductions kept under a reply that read the
    /// results whole: taken back when a later signed reply undoes them.
    reduced_from: Option<usize>,
    /// Changes to entries already in the view (never an append): what is
    /// built from a view prefix holds while this stays the same.
    changes: u64,
}

impl View {
    /// An empty view that estimates with `estimator`.
    pub fn new(estimator: Estimator) -> Self {
        View {
            estimator,
            ..View::default()
        }
    }

    /// The entries, in request order.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The messages, in request order.
    pub fn messages(&self) -> impl Iterator<Item = &Message> {
        self.entries.iter().map(|e| e.message.as_ref())
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Drops up to `n` of the last entries of a view being dropped; true
    /// once none are left.
    pub(crate) fn release(&mut self, n: usize) -> bool {
        self.entries.truncate(self.entries.len().saturating_sub(n));
        self.entries.is_empty()
    }

    /// Whether the view is empty.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Legal groups and turns of the view.
    pub fn segmentation(&self) -> &Segmentation {
        &self.segmentation
    }

    /// The estimator in use.
    pub fn estimator(&self) -> &Estimator {
        &self.estimator
    }

    /// Estimated tokens of all entries.
    pub fn estimate(&self) -> u64 {
        self.estimate
    }

    /// What reported usage has said of the estimator so far (R1.6a).
    pub fn calibration(&self) -> Calibration {
        self.calibration
    }

    /// What the messages hold that needs a beta header (R13.4).
    pub fn features(&self) -> Features {
        self.features
    }

    /// Records that the client changed what it sends so that everything
    /// from position `from` on follows a changed prefix (R13.1).
    pub(crate) fn note_rewrite(&mut self, from: usize) {
        self.rewritten_from = Some(self.rewritten_from.map_or(from, |f| f.min(from)));
    }

    /// [`View::note_rewrite`] for a budget reduction kept under a reply
    /// that read the original result (R13.1).
    pub(crate) fn note_reduction_rewrite(&mut self, from: usize) {
        self.reduced_from = Some(self.reduced_from.map_or(from, |f| f.min(from)));
    }

    /// Forgets the rewrites of kept budget reductions: they were undone.
    pub(crate) fn forget_reduction_rewrite(&mut self) {
        self.reduced_from = None;
    }

    /// The first position whose prefix changed since the last call, and
    /// forgets it.
    pub(crate) fn take_rewrite(&mut self) -> Option<usize> {
        let reduced = self.reduced_from.take();
        match (self.rewritten_from.take(), reduced) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Makes room for `additional` more entries (a bulk load: the list is
    /// sized once, not doubled past what it holds).
    pub(crate) fn reserve(&mut self, additional: usize) {
        self.entries.reserve(additional);
    }

    /// Appends an entry (O(1) amortised).
    pub fn push(&mut self, message: Arc<Message>, source: Source, settled_blocks: Vec<usize>) {
        let tokens = self.estimator.message(&message);
        self.push_estimated(message, source, settled_blocks, tokens);
    }

    /// [`View::push`] for a message whose estimate the caller already has
    /// (`tokens` must be `estimator().message(&message)`).
    pub(crate) fn push_estimated(
        &mut self,
        message: Arc<Message>,
        source: Source,
        settled_blocks: Vec<usize>,
        tokens: u64,
    ) {
        let position = self.entries.len();
        let reported = message.usage.as_ref().map_or(0, |u| u.prompt_tokens());
        if reported > 0 {
            if let Some(last) = self.anchor {
                // Only appends since the last report, and the prompt grew:
                // the difference is the real size of what was appended.
                let estimated = self
                    .estimate
                    .saturating_sub(last.prefix_estimate)
                    .saturating_add_signed(last.reply_delta);
                if last.prefix_delta == 0 && reported > last.reported && estimated > 0 {
                    self.calibration.real += reported - last.reported;
                    self.calibration.estimated += estimated;
                }
            }
            // The reply's output: as reported, or its estimate when the
            // report is smaller (a streaming snapshot, R1.6), unless the
            // estimator takes the report as it stands.
            let output = message.usage.as_ref().map_or(0, |u| u.output_tokens);
            let output = if self.estimator.reported_output_as_is {
                output
            } else {
                output.max(self.estimator.reply_output(&message))
            };
            self.anchor = Some(Anchor {
                position,
                reported,
                reply_delta: signed(output) - signed(tokens),
                prefix_estimate: self.estimate,
                prefix_media: self.media,
                prefix_delta: 0,
            });
        }
        let media = self.estimator.media(&message);
        self.segmentation.push(&message);
        self.features.add(&message);
        self.estimate += tokens;
        self.media += media;
        self.entries.push(Entry {
            message,
            sent: None,
            source,
            tokens,
            media,
            settled_blocks,
        });
    }

    /// Replaces the message at `index` with a changed version of it (same
    /// tool ids: reduction and clearing change content only) and marks
    /// `blocks` settled.
    pub fn patch(&mut self, index: usize, message: Arc<Message>, blocks: &[usize]) {
        let Some(entry) = self.entries.get_mut(index) else {
            return;
        };
        let tokens = self.estimator.message(&message);
        let delta = tokens as i64 - entry.tokens as i64;
        let media = self.estimator.media(&message);
        let media_delta = media as i64 - entry.media as i64;
        entry.media = media;
        self.changes += 1;
        entry.message = message;
        entry.tokens = tokens;
        entry.settled_blocks.extend_from_slice(blocks);
        entry.settled_blocks.sort_unstable();
        entry.settled_blocks.dedup();
        self.estimate = self.estimate.saturating_add_signed(delta);
        self.media = self.media.saturating_add_signed(media_delta);
        if let Some(anchor) = &mut self.anchor {
            if index < anchor.position {
                anchor.prefix_estimate = anchor.prefix_estimate.saturating_add_signed(delta);
                anchor.prefix_media = anchor.prefix_media.saturating_add_signed(media_delta);
                anchor.prefix_delta += delta;
            }
        }
    }

    /// Records that the server will show the model `predicted` in place of
    /// the message at `index`, while the client keeps sending its own copy.
    pub fn predict_server_edit(&mut self, index: usize, predicted: Arc<Message>, blocks: &[usize]) {
        let Some(entry) = self.entries.get_mut(index) else {
            return;
        };
        if entry.sent.is_none() {
            entry.sent = Some(Arc::clone(&entry.message));
        }
        self.patch(index, predicted, blocks);
    }

    /// Replaces what both the client sends and the model sees at `index`
    /// (the client changed its copy: time-based clearing).
    /// `sent` is the client's new copy when it still differs from what the
    /// model sees (other results of the message are cleared by the server).
    pub fn replace_sent(
        &mut self,
        index: usize,
        message: Arc<Message>,
        sent: Option<Arc<Message>>,
        blocks: &[usize],
    ) {
        if let Some(entry) = self.entries.get_mut(index) {
            entry.sent = sent;
        }
        self.note_rewrite(index);
        self.patch(index, message, blocks);
    }

    /// Drops every block `drop` picks from the entries at `from` on, from
    /// what the model sees and from what the client sends alike, whole
    /// (R13.1: a signed block is never edited). An entry left with no block
    /// leaves the view (it held no `tool_use`, so no pair breaks). Returns
    /// each dropped block (its index in the message as it was) and the
    /// uuids of the entries that left.
    pub(crate) fn drop_blocks(
        &mut self,
        from: usize,
        drop: impl Fn(&Block) -> bool,
    ) -> (Vec<crate::step::BlockRef>, Vec<Uuid>) {
        let without = |m: &Arc<Message>| -> Option<(Arc<Message>, Vec<usize>)> {
            let blocks = m.content.blocks();
            let dropped: Vec<usize> = (0..blocks.len()).filter(|&i| drop(&blocks[i])).collect();
            if dropped.is_empty() {
                return None;
            }
            let mut copy = (**m).clone();
            copy.content = Content::Blocks(
                blocks
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| dropped.binary_search(i).is_err())
                    .map(|(_, b)| b.clone())
                    .collect(),
            );
            Some((Arc::new(copy), dropped))
        };
        let mut touched = Vec::new();
        let mut emptied = Vec::new();
        for index in from..self.entries.len() {
            let entry = &self.entries[index];
            let sent = entry.sent.as_ref().and_then(&without).map(|(m, _)| m);
            let Some((message, dropped)) = without(&entry.message) else {
                continue;
            };
            let uuid = message.uuid.clone();
            if message.content.blocks().is_empty() {
                emptied.push(index);
            }
            touched.extend(dropped.into_iter().map(|block| crate::step::BlockRef {
                uuid: uuid.clone(),
                block,
            }));
            if let (Some(sent), Some(entry)) = (sent, self.entries.get_mut(index)) {
                entry.sent = Some(sent);
            }
            self.patch(index, message, &[]);
        }
        let gone: Vec<Uuid> = emptied
            .iter()
            .map(|&i| self.entries[i].message.uuid.clone())
            .collect();
        if !emptied.is_empty() {
            let ranges: Vec<Range<usize>> = emptied.iter().map(|&i| i..i + 1).collect();
            self.remove_ranges(&ranges);
        }
        (touched, gone)
    }

    /// The messages the client sends, in order.
    pub fn sent_messages(&self) -> impl Iterator<Item = &Message> {
        self.entries
            .iter()
            .map(|e| e.sent.as_deref().unwrap_or(&e.message))
    }

    /// Removes a range of entries (whole turns: snip). The caller keeps
    /// tool pairs legal by removing only legal ranges.
    pub fn remove(&mut self, range: Range<usize>) {
        self.remove_ranges(&[range]);
    }

    /// Removes several ascending, disjoint ranges at once, rebuilding the
    /// bookkeeping once.
    pub fn remove_ranges(&mut self, ranges: &[Range<usize>]) {
        if let Some(first) = ranges.iter().map(|r| r.start).min() {
            self.note_rewrite(first);
        }
        let mut anchor = self.anchor;
        for range in ranges {
            let tokens: u64 = self.entries[range.clone()].iter().map(|e| e.tokens).sum();
            let media: u64 = self.entries[range.clone()].iter().map(|e| e.media).sum();
            anchor = anchor.and_then(|mut a| {
                if a.position >= range.end {
                    a.prefix_estimate = a.prefix_estimate.saturating_sub(tokens);
                    a.prefix_media = a.prefix_media.saturating_sub(media);
                    a.prefix_delta -= tokens as i64;
                    Some(a)
                } else if a.position < range.start {
                    Some(a)
                } else {
                    None // the reporting message itself is gone: estimate instead
                }
            });
        }
        if let Some(a) = &mut anchor {
            let before: usize = ranges
                .iter()
                .filter(|r| r.end <= a.position)
                .map(|r| r.len())
                .sum();
            a.position -= before;
        }
        // One pass, each kept entry moved once: draining range by range
        // moved the rest of the view once per range (a snip of thousands of
        // turns moved it thousands of times).
        let mut next = ranges.iter().peekable();
        let mut at = 0;
        self.entries.retain(|_| {
            let here = at;
            at += 1;
            while next.peek().is_some_and(|r| r.end <= here) {
                next.next();
            }
            !next.peek().is_some_and(|r| r.contains(&here))
        });
        self.rebuild();
        self.anchor = anchor;
    }

    /// Replaces every entry (a compaction's new view). Usage-based counting
    /// restarts from the next reported usage. The calibration stays as it
    /// was: the reports on messages the new view keeps were compared when
    /// those messages were first appended, and comparing them again would
    /// count them twice.
    pub fn replace(&mut self, entries: Vec<(Arc<Message>, Source)>) {
        self.note_rewrite(0);
        self.entries.clear();
        self.anchor = None;
        self.rebuild();
        let calibration = self.calibration;
        for (message, source) in entries {
            self.push(message, source, Vec::new());
        }
        self.anchor = None;
        self.calibration = calibration;
    }

    /// Replaces every entry with entries kept from an earlier view (expand).
    /// Usage-based counting restarts from the next reported usage.
    pub fn replace_entries(&mut self, entries: Vec<Entry>) {
        self.note_rewrite(0);
        self.entries = entries;
        self.anchor = None;
        self.rebuild();
    }

    /// How many times entries already in the view changed (see the field).
    pub(crate) fn changes(&self) -> u64 {
        self.changes
    }

    fn rebuild(&mut self) {
        self.changes += 1;
        self.segmentation = Segmentation::of(self.entries.iter().map(|e| e.message.as_ref()));
        self.estimate = self.entries.iter().map(|e| e.tokens).sum();
        self.media = self.entries.iter().map(|e| e.media).sum();
        self.features = Features::default();
        for e in &self.entries {
            self.features.add(&e.message);
        }
    }

    /// Runs `change` as a change the last report already counted, when the
    /// last message carries that report: a response's `applied_edits`
    /// describe the request its usage counted (R13.4), so showing what the
    /// server really cleared moves the estimate, not the count.
    pub(crate) fn counted_by_last_report<T>(&mut self, change: impl FnOnce(&mut View) -> T) -> T {
        let last = self.entries.len().checked_sub(1);
        let kept = self
            .anchor
            .filter(|a| Some(a.position) == last)
            .map(|a| a.prefix_delta);
        let out = change(self);
        if let (Some(delta), Some(a)) = (kept, self.anchor.as_mut()) {
            a.prefix_delta = delta;
        }
        out
    }

    /// The API stated the size of the request it refused (R8.1: "N from the
    /// error recalibrates the count"): `tokens` becomes the reported size of
    /// the whole view as it is now, as a usage report on its last message
    /// would be; what is appended or freed afterwards moves the count from
    /// there.
    pub fn recalibrate(&mut self, tokens: u64) {
        self.anchor = Some(Anchor {
            position: self.entries.len(),
            reported: tokens,
            reply_delta: 0,
            prefix_estimate: self.estimate,
            prefix_media: self.media,
            prefix_delta: 0,
        });
    }

    /// The count held against the lines (R1.6): the last reported usage,
    /// corrected by what the view has freed before it since, plus an
    /// estimate of everything from that request's reply on, and never less
    /// than the view's own estimate; only with no usage at all is the whole
    /// view estimated (plus `system_tokens`, the system prompt and tool
    /// definitions the host sends). The reply counts at its estimate or its
    /// reported output, whichever is larger (a session file's recorded
    /// `output_tokens` is often a streaming snapshot), or at its reported
    /// output as it stands ([`Estimator::reported_output_as_is`]). The estimate of what
    /// followed the report is calibrated by earlier reports (R1.6a,
    /// [`Calibration`]).
    pub fn count(&self, system_tokens: u64) -> TokenFigure {
        self.count_plus(system_tokens, 0)
    }

    /// [`View::count`] as if messages estimated at `extra` tokens were
    /// appended (without usage).
    pub fn count_plus(&self, system_tokens: u64, extra: u64) -> TokenFigure {
        let estimate = self.estimate + extra;
        match self.anchor {
            Some(a) => {
                let since = estimate
                    .saturating_sub(a.prefix_estimate)
                    .saturating_add_signed(a.reply_delta);
                let media = self.media.saturating_sub(a.prefix_media);
                let since = self.calibration.apply_with_media(since, media, &self.estimator);
                let reported = a.reported.saturating_add_signed(a.prefix_delta);
                // Freeing that happened before the usage was reported (a
                // replayed history whose server had already cleared) must
                // not be subtracted twice: the view's own estimate is a floor.
                TokenFigure {
                    tokens: (reported + since).max(estimate),
                    basis: Basis::ReportedPlusEstimate,
                }
            }
            None => TokenFigure {
                tokens: self.calibration.apply_with_media(
                    system_tokens + estimate,
                    self.media,
                    &self.estimator,
                ),
                basis: Basis::Estimated,
            },
        }
    }

    /// Position of the entry with this uuid.
    pub fn position(&self, uuid: &Uuid) -> Option<usize> {
        self.entries.iter().position(|e| &e.message.uuid == uuid)
    }
}

/// A token figure as a signed difference's operand (saturating: no
/// overflow for any count).
fn signed(tokens: u64) -> i64 {
    i64::try_from(tokens).unwrap_or(i64::MAX)
}

mod counting;
pub use counting::{Calibration, Counting, SavedAnchor, ServerCleared};

#[cfg(test)]
mod tests;
