//! Tier 2, snip (SPEC R5): delete whole turns, oldest first, recounting
//! after each, until the count is under the line. No marker, no summary.
//! The turn in progress is never snipped. The store keeps every snipped
//! message (extension: Claude Code discards them).

use std::collections::HashSet;

use crate::message::Uuid;
use crate::step::{CacheEffect, Evidence, Owner, Step, Tier};
use crate::view::View;

/// Snips until `view.count(system_tokens)` is at most `line`, or until
/// only the turn in progress and turns holding a pinned message (extension)
/// are left. `None` when nothing was snipped.
pub fn snip(view: &mut View, line: u64, system_tokens: u64, pinned: &HashSet<Uuid>) -> Option<Step> {
    let before = view.count(system_tokens);
    let mut removed: Vec<Uuid> = Vec::new();
    let mut turns = 0;
    while view.count(system_tokens).tokens > line {
        let Some(range) = oldest_snippable_turn(view, pinned) else {
            break;
        };
        removed.extend(
            view.entries()[range.clone()]
                .iter()
                .map(|e| e.message.uuid.clone()),
        );
        view.remove(range);
        turns += 1;
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

/// The oldest turn that can go: not the last (in progress), holding no
/// pinned message, and bounded by legal cuts on both sides (a turn whose end
/// is not a legal cut runs on to the next one that is).
fn oldest_snippable_turn(view: &View, pinned: &HashSet<Uuid>) -> Option<std::ops::Range<usize>> {
    let seg = view.segmentation();
    let starts = seg.turn_starts();
    let last = *starts.last()?;
    let mut i = 0;
    while i + 1 < starts.len() {
        let start = starts[i];
        // Extend to the next turn start that is a legal cut.
        let mut j = i + 1;
        while j < starts.len() && !seg.is_legal_cut(starts[j]) {
            j += 1;
        }
        let end = starts.get(j).copied().unwrap_or(view.len());
        if end > last || end >= view.len() {
            return None;
        }
        let holds_pin = view.entries()[start..end]
            .iter()
            .any(|e| pinned.contains(&e.message.uuid));
        if seg.is_legal_cut(start) && !holds_pin {
            return Some(start..end);
        }
        i = j;
    }
    None
}
