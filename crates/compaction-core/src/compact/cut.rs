//! Where a compaction cuts (SPEC R7.5): which legal groups are summarised
//! and which are preserved verbatim, and how the cut moves when the summary
//! request itself is too big.

use std::ops::Range;

use crate::view::View;

/// The messages a compaction summarises, as a range of view positions; the
/// ones after it are preserved, the ones before it (auto regime only) are
/// dropped.
pub type Prefix = Range<usize>;

/// Manual and reactive regime: preserve the last `groups` legal groups.
/// `None` when that leaves nothing to summarise.
pub fn preserve_groups(view: &View, groups: usize) -> Option<Prefix> {
    let starts = view.segmentation().cut_points();
    let keep = groups.max(1);
    if starts.len() <= keep {
        return None;
    }
    let end = starts[starts.len() - keep];
    (end > 0).then_some(0..end)
}

/// Auto regime: preserve the last `turns` turns (at least the turn in
/// progress). When the kept turns are the whole view (one long turn), fall
/// back to preserving the last legal group, so a turn too big for the
/// window can still be compacted. `None` when nothing is left to summarise.
pub fn preserve_turns(view: &View, turns: usize) -> Option<Prefix> {
    let starts = view.segmentation().turn_starts();
    let keep = turns.max(1);
    let end = if starts.len() > keep {
        starts[starts.len() - keep]
    } else {
        0
    };
    // A turn start that is not a legal cut moves back to one that is.
    let seg = view.segmentation();
    let end = seg
        .cut_points()
        .into_iter()
        .rev()
        .find(|&g| g <= end)
        .unwrap_or(0);
    if end > 0 {
        return Some(0..end);
    }
    preserve_groups(view, 1)
}

/// Auto regime as the engine cuts: [`preserve_turns`], unless the kept
/// turns alone hold more than `max_tail` tokens (the compact line: a turn
/// in progress that outgrew it, after older turns were pinned or
/// collapsed). Keeping them would leave the view over the line, so the
/// compaction would free nothing that matters: preserve the last legal
/// group instead, as for one long turn.
pub fn preserve_turns_within(view: &View, turns: usize, max_tail: u64) -> Option<Prefix> {
    let prefix = preserve_turns(view, turns)?;
    if tokens(view, prefix.end..view.len()) > max_tail {
        return preserve_groups(view, 1);
    }
    Some(prefix)
}

/// Manual regime retry: preserve more tail groups until the prefix shrinks
/// by at least `gap` tokens (one group at least). `None` when nothing is
/// left to shorten.
pub fn shorten(view: &View, prefix: &Prefix, gap: u64) -> Option<Prefix> {
    let starts = view.segmentation().cut_points();
    let mut end = prefix.end;
    let mut freed = 0;
    loop {
        let &previous = starts.iter().rev().find(|&&g| g < end && g > prefix.start)?;
        freed += tokens(view, previous..end);
        end = previous;
        if freed >= gap.max(1) {
            return Some(prefix.start..end);
        }
    }
}

/// Auto regime retry: drop the oldest groups of the prefix until it
/// shrinks by at least `gap` tokens. `None` when nothing is left.
pub fn truncate(view: &View, prefix: &Prefix, gap: u64) -> Option<Prefix> {
    let starts = view.segmentation().cut_points();
    let mut start = prefix.start;
    let mut freed = 0;
    loop {
        let &next = starts.iter().find(|&&g| g > start && g < prefix.end)?;
        freed += tokens(view, start..next);
        start = next;
        if freed >= gap.max(1) {
            return Some(start..prefix.end);
        }
    }
}

/// Estimated tokens of a range of the view.
pub fn tokens(view: &View, range: Range<usize>) -> u64 {
    view.entries()[range].iter().map(|e| e.tokens).sum()
}
