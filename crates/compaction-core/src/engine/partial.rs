//! Partial compaction, "summarize from here" (SPEC R7.5): only the
//! messages on one side of a chosen message are summarised, the others
//! stay verbatim. Like every compaction it asks the PreCompact hooks first
//! (R7.2); a request over the window truncates its prefix (the auto
//! regime: at most `auto_max_retries` times).

use super::request::Outcome;
use super::tier4::relabel;
use super::Engine;
use crate::compact::cut::Prefix;
use crate::compact::{Direction, PartialCompact, Trigger};
use crate::step::Tier;

impl Engine {
    /// Starts a partial compaction (manual: never refused by a breaker,
    /// R10.3). [`Direction::From`] summarises `uuid` and everything after
    /// it, keeping what came before; [`Direction::UpTo`] summarises
    /// everything before `uuid`, keeping it and what follows. The message
    /// must be in the view at a legal cut, with something on the summarised
    /// side; otherwise the compaction fails once the hooks allow it, and
    /// the view stays.
    pub fn compact_partial(&mut self, partial: PartialCompact) -> Outcome {
        let instructions = partial.instructions.clone();
        let started = self.begin(Trigger::Manual, false, instructions);
        if let Some(wait) = &mut self.hook {
            wait.partial = Some(partial);
        }
        let (steps, progress) = relabel(started, Tier::Compact, self.count());
        self.outcome(steps, Some(progress))
    }

    /// Where a partial compaction cuts: the prefix it summarises and the
    /// end of the head kept verbatim before the summary.
    pub(super) fn partial_cut(&self, partial: &PartialCompact) -> Result<(Prefix, usize), String> {
        let Some(at) = self.view.position(&partial.uuid) else {
            return Err(format!(
                "partial compaction: {} is not in the view",
                partial.uuid.as_str()
            ));
        };
        if !self.view.segmentation().is_legal_cut(at) {
            return Err(format!(
                "partial compaction: {} is not at a legal cut (it would separate a tool_use from its tool_result)",
                partial.uuid.as_str()
            ));
        }
        let (prefix, head_end) = match partial.direction {
            Direction::From => (at..self.view.len(), at),
            Direction::UpTo => (0..at, 0),
        };
        if prefix.is_empty() {
            return Err("partial compaction: nothing to summarise on that side".to_owned());
        }
        Ok((prefix, head_end))
    }
}
