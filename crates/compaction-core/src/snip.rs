//! Tier 2, snip (SPEC R5): delete whole turns, oldest first, recounting
//! after each, until the count is under the line. No marker, no summary.
//! The turn in progress is never snipped. The store keeps every snipped
//! message (extension: Claude Code discards them).

use crate::message::Uuid;
use crate::step::{CacheEffect, Evidence, Owner, Step, Tier};
use crate::view::View;

/// Snips until `view.count(system_tokens)` is at most `line`, or until only
/// the turn in progress is left. `None` when nothing was snipped.
pub fn snip(view: &mut View, line: u64, system_tokens: u64) -> Option<Step> {
    let before = view.count(system_tokens);
    let mut removed: Vec<Uuid> = Vec::new();
    let mut turns = 0;
    while view.count(system_tokens).tokens > line {
        let seg = view.segmentation();
        let starts = seg.turn_starts();
        // The oldest whole turn, never the last (in progress); extend to the
        // next legal cut so no tool pair is split.
        if starts.len() < 2 {
            break;
        }
        let Some(end) = starts[1..].iter().copied().find(|&end| seg.is_legal_cut(end)) else {
            break;
        };
        if end == 0 || end >= view.len() {
            break;
        }
        removed.extend(view.entries()[..end].iter().map(|e| e.message.uuid.clone()));
        view.remove(0..end);
        turns += 1;
    }
    let first = removed.first()?.clone();
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
            "{} tokens, over the {line} line: deleted the {turns} oldest turn(s) ({} messages), recounting after each; now {}{}",
            before.tokens,
            removed.len(),
            after.tokens,
            if after.tokens > line { ", still over" } else { "" }
        ),
        messages: removed,
    })
}
