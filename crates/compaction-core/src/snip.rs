//! Tier 2, snip (SPEC R5): delete whole turns, oldest first, recounting
//! after each, until the count is under the line. No marker, no summary.
//! The turn in progress is never snipped. The store keeps every snipped
//! message (extension: Claude Code discards them).

use crate::hash::KeySet;

use crate::message::Uuid;
use crate::step::{CacheEffect, Evidence, Owner, Step, Tier};
use crate::view::{Source, View};

/// Snips until `view.count(system_tokens)` is at most `line`, or until
/// only the turn in progress, turns holding a pinned message (extension)
/// and turns holding a summary or collapse (they stand for older history)
/// are left. `None` when nothing was snipped.
pub fn snip(view: &mut View, line: u64, system_tokens: u64, pinned: &KeySet<String>) -> Option<Step> {
    let before = view.count(system_tokens);
    let mut removed: Vec<Uuid> = Vec::new();
    let mut turns = 0;
    loop {
        let count = view.count(system_tokens).tokens;
        if count <= line {
            break;
        }
        // The oldest turns whose tokens cover the excess, removed in one go;
        // then recount, in case the estimate of the gain was off.
        let batch = oldest_snippable_turns(view, pinned, count - line);
        if batch.is_empty() {
            break;
        }
        for range in &batch {
            removed.extend(
                view.entries()[range.clone()]
                    .iter()
                    .map(|e| e.message.uuid.clone()),
            );
        }
        turns += batch.len();
        view.remove_ranges(&batch);
    }
    let first = removed.first()?.clone();
    let pinned_note = if pinned.is_empty() {
        ""
    } else {
        " (turns holding pinned messages kept)"
    };
    let after = view.count(system_tokens);
    Some(Step {
        tier: Tier::Snip,
        rule: "R5.1",
        owner: Owner::Client,
        evidence: Evidence::ThirdParty,
        count_before: before,
        count_after: after,
        cache: CacheEffect::PrefixBroken { from: first },
        blocks: Vec::new(),
        model_calls: 0,
        reason: format!(
            "{} tokens, over the {line} line: deleted the {turns} oldest turn(s) ({} messages){pinned_note}, recounting after each; now {}{}",
            before.tokens,
            removed.len(),
            after.tokens,
            if after.tokens > line { ", still over" } else { "" }
        ),
        messages: removed,
    })
}

/// The oldest turns that can go, in order, until their tokens reach
/// `excess`: never the last turn (in progress), none holding a pinned
/// message, each bounded by legal cuts (a turn whose end is not a legal cut
/// runs on to the next one that is).
fn oldest_snippable_turns(view: &View, pinned: &KeySet<String>, excess: u64) -> Vec<std::ops::Range<usize>> {
    let seg = view.segmentation();
    let starts = seg.turn_starts();
    let mut out = Vec::new();
    let Some(&last) = starts.last() else {
        return out;
    };
    let mut gained = 0;
    let mut i = 0;
    while i + 1 < starts.len() && gained < excess {
        let start = starts[i];
        let mut j = i + 1;
        while j < starts.len() && !seg.is_legal_cut(starts[j]) {
            j += 1;
        }
        let end = starts.get(j).copied().unwrap_or(view.len());
        if end > last || end >= view.len() {
            break;
        }
        let entries = &view.entries()[start..end];
        // A summary, collapse or attachment stands for older history:
        // snip deletes turns of messages, never those.
        let keeps = entries
            .iter()
            .any(|e| pinned.contains(e.message.uuid.as_str()) || e.source != Source::Stored);
        if seg.is_legal_cut(start) && !keeps {
            gained += entries.iter().map(|e| e.tokens).sum::<u64>();
            out.push(start..end);
        }
        i = j;
    }
    out
}
