//! The engine's side of `api::applied` (R13): what it does with the API's applied edits.

use super::Engine;
use crate::api::applied::AppliedEdit;
use crate::step::{CacheEffect, Evidence, Owner, Step, Tier};

impl Engine {
    /// Reads a response's `applied_edits` (R13.4): when the server cleared
    /// a different number of tool results than the view predicted, the
    /// prediction is replaced by what it did, and a step says so (it is
    /// also reported by the next [`Engine::before_call`]). `None` when the
    /// prediction held.
    pub fn applied_edits(&mut self, applied: &[AppliedEdit]) -> Option<Step> {
        let predicted = self.microcompact.server_cleared();
        let actual = applied
            .iter()
            .filter(|e| e.kind == "clear_tool_uses_20250919")
            .filter_map(|e| e.cleared_tool_uses)
            .max()
            .unwrap_or(0);
        let actual = usize::try_from(actual).unwrap_or(usize::MAX);
        if actual == predicted {
            return None;
        }
        let before = self.count();
        let microcompact = &mut self.microcompact;
        let blocks = self
            .view
            .counted_by_last_report(|view| microcompact.reconcile(view, actual));
        let actual = self.microcompact.server_cleared();
        if actual == predicted {
            return None;
        }
        let mut messages: Vec<_> = blocks.iter().map(|b| b.uuid.clone()).collect();
        messages.dedup();
        let cache = match blocks.first() {
            Some(b) => CacheEffect::ServerInvalidatesFrom { from: b.uuid.clone() },
            None => CacheEffect::Intact,
        };
        let tokens = applied.iter().filter_map(|e| e.cleared_input_tokens).sum::<u64>();
        let step = Step {
            tier: Tier::Microcompact,
            rule: "R13.4",
            owner: Owner::Server,
            evidence: Evidence::PublicApi,
            count_before: before,
            count_after: self.count(),
            messages,
            blocks,
            cache,
            model_calls: 0,
            reason: format!(
                "the view predicted the server clears the {predicted} oldest eligible tool results; its applied_edits say {actual} ({tokens} input tokens): the view now shows what it did"
            ),
        };
        self.pending.push(step.clone());
        Some(step)
    }
}
