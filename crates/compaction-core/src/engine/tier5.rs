//! Tier 5, reactive (SPEC R8): what the engine does when the API answers
//! a call with prompt-too-long (413).

use super::request::Outcome;
use super::Engine;
use crate::compact::{Progress, Trigger};
use crate::step::{Evidence, Owner, Step, Tier};

/// Tier 5's stages within one episode (R8.1): the 413s of one call and its
/// retries, until a reply or a new prompt is appended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Reactive {
    /// Collapse overflow recovery asked for segment summaries.
    Collapsed,
    /// The emergency compaction ran.
    Compacted,
}

impl Engine {
    /// The API refused the call as too long (413): Tier 5 (R8.1). First
    /// collapse overflow recovery: every segment Tier 3 could collapse is
    /// asked for whatever the line (the outcome's `requests`, with no
    /// compaction; answer them, then retry the call). When there is none, or on the next 413 of the same
    /// episode, an emergency compaction through the manual/reactive compactor
    /// (R7.5). A 413 after that in the same episode (no reply
    /// appended since) fails: the host must end
    /// the session with a clear error.
    pub fn prompt_too_long(&mut self) -> Outcome {
        self.reactive_stage()
    }

    /// [`Engine::prompt_too_long`] when the error stated the prompt's real
    /// size (`tokens`, as [`crate::overflow::classify`] reads it): the count
    /// is recalibrated to it first (R8.1 "N from the error recalibrates the
    /// count"), so the reactive tier and every line after it work from the
    /// API's figure, not the estimate. A first step says so.
    pub fn prompt_too_long_at(&mut self, tokens: u64) -> Outcome {
        let before = self.count();
        self.view.recalibrate(tokens);
        let note = Step::note(
            Tier::Reactive,
            "R8.1",
            Owner::Client,
            Evidence::ThirdParty,
            self.count(),
            format!(
                "the API counted the refused prompt at {tokens} tokens (the engine's count was {}): the count is recalibrated to it",
                before.tokens
            ),
        );
        let mut out = self.reactive_stage();
        out.steps.insert(0, note);
        out
    }

    fn reactive_stage(&mut self) -> Outcome {
        // R8.1's "one episode per turn", read as R10.2's turn (a reading):
        // an episode ends when the retried call gets through (its reply is
        // appended) or a new prompt starts; a later 413 in the same
        // autonomous run is a new episode, not the end of the session.
        let turn = self.prompts + self.calls;
        let stage = self.reactive.filter(|(t, _)| *t == turn).map(|(_, s)| s);
        if stage == Some(Reactive::Compacted) {
            let reason = "another prompt-too-long in the same turn after the emergency compaction: the session cannot continue";
            let step = Step::note(
                Tier::Reactive,
                "R8.1",
                Owner::Client,
                Evidence::ThirdParty,
                self.count(),
                crate::text::concat(reason, "; the host ends it with a clear error"),
            );
            let failed = Progress::Failed {
                reason: reason.to_owned(),
            };
            return self.outcome(vec![step], Some(failed));
        }
        if stage.is_none() && !self.compacting() {
            if let Some(steps) = self.collapse_recovery() {
                self.reactive = Some((turn, Reactive::Collapsed));
                return self.outcome(steps, None);
            }
        }
        let why = if stage == Some(Reactive::Collapsed) {
            "the call was refused again after collapse overflow recovery"
        } else {
            "the API answered prompt-too-long and there is nothing to collapse"
        };
        let note = Step::note(
            Tier::Reactive,
            "R8.1",
            Owner::Client,
            Evidence::ThirdParty,
            self.count(),
            crate::text::concat(why, ": an emergency compaction through the manual/reactive compactor (R7.5), once this turn; retry the call when it is done"),
        );
        self.reactive = Some((turn, Reactive::Compacted));
        self.run = None;
        self.hook = None;
        let started = self.begin(Trigger::Auto, true, None);
        let (mut steps, progress) = super::tier4::relabel(started, Tier::Reactive, self.count());
        steps.insert(0, note);
        self.outcome(steps, Some(progress))
    }
}
