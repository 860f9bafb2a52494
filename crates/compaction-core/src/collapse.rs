//! Tier 3, context collapse (SPEC R6): old turns are cut into segments and
//! each segment is replaced in the view by its own short summary, `Turns
//! a–b: …`. A read-time projection: the originals stay in the collapse
//! store (the engine's lineage) and a collapse can be expanded (R6.2).
//! It runs only while the count is still over the compact line after snip
//! (R3.1); non-blocking below 95% of the budget (the call proceeds; the
//! view switches when the answers arrive), blocking from 95%.

use std::ops::Range;

use serde::Serialize;

use crate::hash::KeySet;
use crate::message::{Message, Uuid};
use crate::summary::{parse_summary, user_prompt_text};
use crate::view::{Source, View};

/// R6.1's numbers, all settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CollapseSettings {
    /// The tier runs at all (some configurations skip it).
    pub enabled: bool,
    /// Tier 3's own start line, in percent of the budget (default 90, seed
    /// 000's "about 90%"); the tier never starts below the compact line
    /// (R6.1), so at 200k it starts at 167,000.
    pub start_pct: u64,
    /// Blocking from this percent of the budget (default 95).
    pub blocking_pct: u64,
    /// Turns per segment (default 8; the source says 5–10).
    pub segment_turns: usize,
    /// A last, shorter segment needs at least this many turns (default 5).
    pub min_segment_turns: usize,
    /// The most recent turns always stay whole (default 10).
    pub keep_recent_turns: usize,
}

impl Default for CollapseSettings {
    fn default() -> Self {
        CollapseSettings {
            enabled: true,
            start_pct: 90,
            blocking_pct: 95,
            segment_turns: 8,
            min_segment_turns: 5,
            keep_recent_turns: 10,
        }
    }
}

/// One segment to collapse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segment {
    /// Its view positions.
    pub range: Range<usize>,
    /// Its first and last turn numbers (1-based, session order).
    pub turns: (usize, usize),
}

/// Which view positions belong to a legal group holding a pinned message
/// (extension): a collapse keeps those verbatim after its summary.
pub fn pinned_positions(view: &View, pinned: &KeySet<String>) -> Vec<bool> {
    let mut marked = vec![false; view.len()];
    if pinned.is_empty() {
        return marked;
    }
    for group in view.segmentation().groups() {
        if view.entries()[group.clone()]
            .iter()
            .any(|e| pinned.contains(e.message.uuid.as_str()))
        {
            marked[group].iter_mut().for_each(|m| *m = true);
        }
    }
    marked
}

/// The segments of `view` that can be collapsed now: whole turns of store
/// messages (not summaries or earlier collapses), oldest first, outside the
/// most recent `keep_recent_turns`, bounded by legal cuts. A turn holding
/// pinned messages (extension) may be collapsed (its pins stay verbatim),
/// one holding nothing else may not: it has nothing to give. `turn_of`
/// gives a message's turn number.
pub fn segments(
    view: &View,
    settings: &CollapseSettings,
    pinned: &KeySet<String>,
    turn_of: impl Fn(&Uuid) -> usize,
) -> Vec<Segment> {
    let in_pinned = pinned_positions(view, pinned);
    let seg = view.segmentation();
    let turns: Vec<Range<usize>> = seg.turns().collect();
    let eligible_end = turns.len().saturating_sub(settings.keep_recent_turns.max(1));
    let mut out = Vec::new();
    let mut run: Vec<Range<usize>> = Vec::new();
    let flush = |run: &mut Vec<Range<usize>>, out: &mut Vec<Segment>| {
        for chunk in run.chunks(settings.segment_turns.max(1)) {
            if chunk.len() < settings.min_segment_turns.max(1) {
                break;
            }
            let range = chunk[0].start..chunk[chunk.len() - 1].end;
            let first = turn_of(&view.entries()[range.start].message.uuid);
            let last = turn_of(&view.entries()[range.end - 1].message.uuid);
            out.push(Segment {
                range,
                turns: (first, last),
            });
        }
        run.clear();
    };
    for turn in &turns[..eligible_end] {
        let stored = view.entries()[turn.clone()]
            .iter()
            .all(|e| e.source == Source::Stored);
        let legal = seg.is_legal_cut(turn.start) && seg.is_legal_cut(turn.end);
        let gives = turn.clone().any(|i| !in_pinned[i]);
        if stored && legal && gives {
            run.push(turn.clone());
        } else {
            flush(&mut run, &mut out);
        }
    }
    flush(&mut run, &mut out);
    out
}

/// The prompt for one segment's summary.
pub fn segment_prompt(first: usize, last: usize) -> String {
    format!(
        "CRITICAL: Respond with TEXT ONLY. Do NOT call any tools.\n\n\
         Summarise turns {first}–{last} of the conversation above in 100 to 300 tokens: what the user asked, \
         what was done and decided, which files were read or changed, and any error and its fix. \
         Plain text, no headings."
    )
}

/// The segment's summary text from a model reply: the R7.4 parser, without
/// its `Summary:` heading. `None` for an empty reply.
pub fn parse_segment(reply: &str) -> Option<String> {
    let parsed = parse_summary(reply).ok()?;
    let text = parsed.strip_prefix("Summary:\n").unwrap_or(&parsed).trim();
    (!text.is_empty()).then(|| text.to_owned())
}

/// A deterministic, extractive segment summary (no model): the user's
/// prompts, then the tools used.
pub fn offline_segment(messages: &[Message]) -> String {
    let prompts: Vec<String> = messages
        .iter()
        .filter_map(user_prompt_text)
        .map(|t| {
            let mut one_line = String::with_capacity(t.len());
            for word in t.split_whitespace() {
                if !one_line.is_empty() {
                    one_line.push(' ');
                }
                one_line.push_str(word);
            }
            let short: String = one_line.chars().take(160).collect();
            if short.len() < one_line.len() {
                crate::text::concat(&short, "…")
            } else {
                short
            }
        })
        .collect();
    let tools: usize = messages.iter().map(|m| m.tool_use_ids().count()).sum();
    format!(
        "the user asked: {}; {tools} tool call(s).",
        if prompts.is_empty() {
            "(nothing)".to_owned()
        } else {
            prompts.join(" / ")
        }
    )
}

/// The message that stands for a collapsed segment.
pub fn segment_message(uuid: Uuid, first: usize, last: usize, text: &str) -> Message {
    Message::user(uuid.0, format!("Turns {first}–{last}: {text}"))
}
