//! The legal groups of the view a compaction cut, and where a cut may
//! fall (R7.5): what the sandbox draws as brackets and lets the visitor
//! move as "groups preserved". Legality is the core's
//! ([`Segmentation`](compaction_core::groups::Segmentation)); this module
//! only maps it onto the items drawn and says why a cut cannot fall where
//! it cannot, in seed 002's words.

use serde::Serialize;

use std::sync::Arc;

use compaction_core::groups::Segmentation;
use compaction_core::hash::HashMap;
use compaction_core::message::Message;

/// Seed 002's reason a cut never falls between a call and its result.
pub const SEED_002_REASON: &str = "an assistant tool_use and the user tool_result that answers it \
     are one message group: the client cannot keep the tool_result and drop the tool_use with the \
     same id, or tool causality is broken (seed 002)";

/// The view before an event, as legal groups over [`Moment::before`](super::Moment::before)'s
/// items, and where a cut may fall.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Groups {
    /// The item index where each legal group starts, ascending.
    pub starts: Vec<usize>,
    /// The item indices a cut may fall before (legal cut points), ascending.
    pub cuts: Vec<usize>,
    /// One past the last item of the view.
    pub end: usize,
    /// For each item that no cut may fall before (inside a group), why;
    /// ascending by item.
    pub illegal: Vec<(usize, String)>,
    /// Where the event's compaction cut: the first item it kept verbatim
    /// (`None`: it did not compact).
    pub at: Option<usize>,
    /// Whether the cut is set by "groups preserved" (a manual or reactive
    /// compaction, R7.5), so moving it changes that setting.
    pub movable: bool,
}

impl Groups {
    /// The view whose messages are `view` as groups (only for a
    /// compaction: the sandbox keeps each view's messages until it knows);
    /// `first` is the item index of the view's first entry (1 when a
    /// system prompt item precedes it); `items` are the view's items, whose
    /// labels the reasons quote (made once a play, not again per reason).
    pub(super) fn of(view: &[Arc<Message>], items: &[super::Item], first: usize, movable: bool) -> Groups {
        let seg = Segmentation::of(view.iter().map(AsRef::as_ref));
        let seg = &seg;
        let starts = seg.group_starts().iter().map(|s| s + first).collect();
        let cuts = seg.cut_points().iter().map(|s| s + first).collect();
        // Each position inside a group: the call a cut there would separate
        // from its result (the first such pair that spans it).
        let mut spans: Vec<Option<(&str, usize)>> = vec![None; view.len()];
        let mut used: HashMap<&str, usize> = HashMap::default();
        for (at, m) in view.iter().enumerate() {
            for id in m.tool_result_ids() {
                if let Some(&call) = used.get(id) {
                    for slot in spans.iter_mut().take(at + 1).skip(call + 1) {
                        slot.get_or_insert((id, call));
                    }
                }
            }
            for id in m.tool_use_ids() {
                used.insert(id, at);
            }
        }
        let open = seg.first_open();
        let label = |at: usize| match items.get(at + first) {
            Some(item) => item.label.as_str(),
            None => "",
        };
        let illegal = (1..view.len())
            .filter(|&p| !seg.is_legal_cut(p))
            .map(|p| {
                let why = match (spans[p], open) {
                    (Some((id, call)), _) => format!(
                        "A cut here would keep the tool_result of `{id}` and summarise its tool_use \
                         (“{}”): {SEED_002_REASON}.",
                        label(call)
                    ),
                    (None, Some(o)) if p > o => format!(
                        "“{}” calls a tool whose result has not come back: a cut after it would \
                         separate them when it does; {SEED_002_REASON}.",
                        label(o)
                    ),
                    _ => format!("This is inside a legal group: {SEED_002_REASON}."),
                };
                (p + first, why)
            })
            .collect();
        Groups {
            starts,
            cuts,
            end: view.len() + first,
            illegal,
            at: None,
            movable,
        }
    }

    /// The legal group holding item `item` (its index in
    /// [`Groups::starts`]), if the item is in the view.
    pub fn group_of(&self, item: usize) -> Option<usize> {
        if item >= self.end {
            return None;
        }
        self.starts.partition_point(|&s| s <= item).checked_sub(1)
    }

    /// Legal groups kept verbatim when the cut falls before `item`, or
    /// why it cannot fall there.
    pub fn preserved_at(&self, item: usize) -> Result<usize, String> {
        if let Ok(i) = self.illegal.binary_search_by_key(&item, |(at, _)| *at) {
            return Err(self.illegal[i].1.clone());
        }
        match self.cuts.binary_search(&item) {
            Ok(0) => Err(
                "A cut before the first message would summarise nothing: at least one group \
                 goes into the summary."
                    .to_owned(),
            ),
            Ok(i) => Ok(self.cuts.len() - i),
            Err(_) if item >= self.end => Err("The last legal group is always kept verbatim (R7.5): \
                 the cut cannot fall after it."
                .to_owned()),
            Err(_) => Err(format!("Not a legal cut: {SEED_002_REASON}.")),
        }
    }

    /// Legal groups kept verbatim by the event's compaction (after
    /// [`Groups::at`]).
    pub fn preserved(&self) -> Option<usize> {
        self.at
            .map(|at| self.cuts.len() - self.cuts.partition_point(|&c| c < at))
    }
}
