//! Swapping in a summary the engine did not ask for (SPEC R9.2's reuse and
//! R9.4): the summarised messages, and nothing else, give way to it.

use super::request::Outcome;
use super::tier4::{Pending, Run};
use super::Engine;
use crate::compact::{Progress, Trigger};
use crate::message::Uuid;
use crate::step::{Evidence, Owner, Tier};
use crate::summary::PromptOptions;
use crate::tokens::TokenFigure;

impl Run {
    /// A run that reuses a summary already written for the first `len`
    /// view messages (R9.2 hit, R9.4 swap).
    pub(super) fn reusing(trigger: Trigger, reactive: bool, len: usize, pre: TokenFigure) -> Run {
        Run {
            trigger,
            reactive,
            options: PromptOptions::default(),
            prefix: 0..len,
            attempt: 1,
            truncations: 0,
            head_end: 0,
            partial: false,
            model: 0,
            pre,
            pending: Pending::Summary(0),
            summary: None,
            candidates: Vec::new(),
            parked: Vec::new(),
            took: None,
            built: Default::default(),
            in_place: Default::default(),
        }
    }
}

impl Engine {
    /// Why `summarised` cannot be swapped for a summary, if it cannot.
    pub(super) fn swap_refusal(&self, summarised: &[Uuid]) -> Option<&'static str> {
        let len = summarised.len();
        let opens_view = len > 0
            && len <= self.view.len()
            && summarised
                .iter()
                .zip(self.view.entries())
                .all(|(u, e)| &e.message.uuid == u);
        if self.compacting() {
            Some("a compaction is already waiting for an answer")
        } else if !opens_view {
            Some("the summarised messages no longer open the view in order")
        } else if !self.view.segmentation().is_legal_cut(len) {
            Some("the summarised messages end inside a tool_use/tool_result pair")
        } else {
            None
        }
    }

    /// R9.4: a summary written outside the engine's own requests (the
    /// Anthropic API's background compaction, or any summariser the host
    /// ran itself) of exactly the messages `summarised`, which must still
    /// open the view in order and end on a legal cut. Those messages, and
    /// nothing else, are swapped for it; the rest of R7.1 runs
    /// (attachments, boundary). Otherwise it fails and the view stays.
    pub fn swap_in_summary(&mut self, summarised: &[Uuid], reply: &str) -> Outcome {
        let pre = self.count();
        let len = summarised.len();
        let refusal = self.swap_refusal(summarised);
        let run = Run::reusing(Trigger::Auto, false, len, pre);
        let step = |reason: String| {
            self.step(
                Tier::Compact,
                "R9.4",
                Owner::Server,
                Evidence::PublicApi,
                pre,
                summarised.to_vec(),
                0,
                reason,
            )
        };
        if let Some(why) = refusal {
            let step = step(format!(
                "a summary made elsewhere cannot be swapped in: {why}; the view stays"
            ));
            let failed = Progress::Failed {
                reason: why.to_owned(),
            };
            return self.outcome(vec![step], Some(failed));
        }
        let step = step(format!(
            "a summary made elsewhere replaces exactly the {len} messages it was given, nothing else; the {} since join the preserved tail",
            self.view.len() - len
        ));
        let (steps, progress) = self.with_reply(run, vec![step], reply);
        self.outcome(steps, Some(progress))
    }
}
