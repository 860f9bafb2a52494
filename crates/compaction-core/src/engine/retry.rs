//! When a Tier 4 summary request is over the window (SPEC R7.5): the
//! manual/reactive regime preserves more tail groups until it fits or
//! nothing is left to shorten; the auto and partial regime truncates the
//! prefix, at most `auto_max_retries` times (seed 002: 3), so a compaction
//! makes at most 4 summary requests. Both loops are bounded.

use super::tier4::{Run, EVIDENCE_GROUPS};
use super::Engine;
use crate::compact::{cut, Trigger};
use crate::step::{Owner, Step, Tier};

impl Engine {
    /// Whether a run shortens by preserving more tail groups (manual and
    /// reactive) rather than truncating its prefix (auto, partial).
    /// Preserving more tail would keep an open loop's thinking after the
    /// summary (R13.1): such a run truncates instead.
    fn preserves_more(&self, run: &Run) -> bool {
        (run.trigger == Trigger::Manual || run.reactive) && !run.partial && run.prefix.end < self.view.len()
    }

    /// Before the first request: shortens the run until its request fits
    /// the window. Each pass shrinks the prefix by one legal group at
    /// least, and truncations count toward the retry limit, so this ends.
    /// `Err` with the reason when it cannot fit.
    pub(super) fn fit_window(&self, run: &mut Run, steps: &mut Vec<Step>) -> Result<(), String> {
        let window = self.settings.thresholds.window;
        // A prefix of n messages can shrink at most n times.
        for _ in 0..=run.prefix.len() {
            let tokens = self.request_tokens(run);
            if tokens <= window {
                return Ok(());
            }
            steps.push(self.retry_cut(run, tokens - window)?);
        }
        Err("the summary request is over the window and nothing is left to shorten".to_owned())
    }

    /// The API refused the summary request as too long: the next cut, or
    /// `Err` with the reason the run fails.
    pub(super) fn after_too_long(&self, run: &mut Run) -> Result<Step, String> {
        let gap = self
            .request_tokens(run)
            .saturating_sub(self.settings.thresholds.window);
        self.retry_cut(run, gap)
    }

    /// Moves the cut for a retry (R7.5): manual/reactive preserve more tail
    /// groups; auto and partial truncate the prefix, at most
    /// `auto_max_retries` times in all.
    fn retry_cut(&self, run: &mut Run, gap: u64) -> Result<Step, String> {
        let manual = self.preserves_more(run);
        let max = self.settings.compact.auto_max_retries;
        if !manual && run.truncations >= max {
            return Err(format!(
                "the summary request stays over the window after {max} truncation retries (R7.5)"
            ));
        }
        let next = if manual {
            cut::shorten(&self.view, &run.prefix, gap)
        } else {
            cut::truncate(&self.view, &run.prefix, gap)
        };
        let Some(next) = next else {
            return Err(
                "the summary request stays over the window and nothing is left to shorten".to_owned(),
            );
        };
        let what = if manual {
            "preserved more tail groups".to_owned()
        } else {
            run.truncations += 1;
            format!(
                "dropped the oldest groups of the prefix (truncation {} of at most {max})",
                run.truncations
            )
        };
        run.prefix = next;
        Ok(self.step(Tier::Compact, "R7.5", Owner::Client, EVIDENCE_GROUPS, run.pre, Vec::new(), 0,
            format!("the summary request is ~{gap} tokens over the window: {what}; {} message(s) left to summarise", run.prefix.len())))
    }
}
