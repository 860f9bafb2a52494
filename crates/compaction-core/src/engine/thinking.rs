//! The engine's side of `api::thinking` (R13): what it does with the API's thinking blocks.

use super::Engine;
use crate::api::thinking::{is_signed_thinking, without_thinking};
use crate::api::ThinkingMode;
use crate::message::{Message, Role};
use crate::step::{CacheEffect, Evidence, Owner, Step, Tier};

impl Engine {
    /// The view position of an open tool loop's assistant message under
    /// `strip` (R13.1): the view ends with the results of that message's
    /// `tool_use` blocks, and it holds a signed thinking block. The API
    /// wants that block passed back whole, over the prefix it was signed
    /// over: it refuses the request when the block is missing ("a final
    /// assistant message must start with a thinking block") as when its
    /// prefix changed. So while a loop is open no client rewrite may touch
    /// what precedes it: the cheap tiers wait for the loop to close, and a
    /// compaction summarises the loop too (nothing is preserved after the
    /// summary). `None` under `drop_block` (the server drops the block) and
    /// `keep` (the host's call).
    pub(crate) fn open_loop(&self) -> Option<usize> {
        if self.settings.api.thinking != ThinkingMode::Strip {
            return None;
        }
        let entries = self.view.entries();
        let [.., a, last] = entries else {
            return None;
        };
        let (a, last) = (&a.message, &last.message);
        let open = last.role == Role::User
            && last.tool_result_ids().next().is_some()
            && a.role == Role::Assistant
            && a.tool_use_ids().next().is_some()
            && a.content.blocks().iter().any(is_signed_thinking);
        open.then(|| entries.len() - 2)
    }

    /// A reply appended with no call since results from view position `at`
    /// on were reduced was written against the original results (R13.1).
    /// Under `strip`, when the reply holds signed thinking, the reductions
    /// are undone (those kept under earlier replies without thinking too):
    /// the model read those results whole, budget reduction is for results
    /// it has not read yet, and undoing keeps the reply's block valid (an
    /// open tool loop's block must stay). Otherwise the reduction is a
    /// rewrite like any other.
    pub(crate) fn reply_over_reduction(&mut self, at: usize, reply: &Message) {
        let signed = reply.content.blocks().iter().any(is_signed_thinking);
        if self.settings.api.thinking != ThinkingMode::Strip || !signed {
            self.view.note_reduction_rewrite(at);
            return;
        }
        // Every reduction since the last call is undone, those kept under
        // earlier replies too: the rewrites they noted go with them.
        self.view.forget_reduction_rewrite();
        let mut undone = Vec::new();
        self.pending.retain(|s| {
            let reduced = s.rule == "R2.2";
            if reduced {
                undone.extend(s.messages.iter().cloned());
            }
            !reduced
        });
        for uuid in &undone {
            if let (Some(i), Some(original)) = (self.view.position(uuid), self.store.get(uuid)) {
                let original = std::sync::Arc::clone(original);
                self.view.patch(i, original, &[]);
            }
        }
    }

    /// A summary request's copies of the view entries from `start` on,
    /// with every signed thinking block dropped from the first message whose
    /// prefix is not what the client sent before (R13.1): the request does
    /// not start where the view starts, or an entry shows the server's
    /// clearing (a summary request carries no edit), or the view keeps stale
    /// blocks (`drop_block`: a summary request carries no binding control).
    /// `keep` leaves them.
    pub(crate) fn thinking_safe(&self, start: usize, mut messages: Vec<Message>) -> Vec<Message> {
        let first_changed = match self.settings.api.thinking {
            ThinkingMode::Keep => return messages,
            ThinkingMode::DropBlock => 0,
            ThinkingMode::Strip if start != 0 => 0,
            ThinkingMode::Strip => self
                .view
                .entries()
                .iter()
                .take(messages.len())
                .position(|e| e.sent.is_some())
                .unwrap_or(messages.len()),
        };
        let tail = messages.split_off(first_changed.min(messages.len()));
        messages.extend(without_thinking(tail).0);
        messages
    }

    /// After `tier` rewrote what the client sends: the thinking blocks that
    /// now follow a changed prefix are dropped (`strip`), or kept and named
    /// (`drop_block`: the request lets the server drop them; `keep`: the
    /// host's call). `None` when nothing was rewritten or no thinking block
    /// follows the rewrite.
    pub(crate) fn settle_thinking(&mut self, tier: Tier) -> Option<Step> {
        let from = self.view.take_rewrite()?;
        let mode = self.settings.api.thinking;
        let before = self.count();
        let after_uuid = from
            .checked_sub(1)
            .and_then(|i| self.view.entries().get(i))
            .map(|e| e.message.uuid.clone());
        let (blocks, gone) = match mode {
            ThinkingMode::Strip => {
                let dropped = self.view.drop_blocks(from, is_signed_thinking);
                // Dropping is itself a change, but only after `from`, where
                // no signed block is left.
                self.view.take_rewrite();
                if !dropped.1.is_empty() {
                    self.microcompact.rebuild(&self.view, &self.settings.microcompact);
                }
                dropped
            }
            ThinkingMode::DropBlock | ThinkingMode::Keep => {
                let mut found = Vec::new();
                for e in self.view.entries().iter().skip(from) {
                    for (block, b) in e.message.content.blocks().iter().enumerate() {
                        if is_signed_thinking(b) {
                            found.push(crate::step::BlockRef {
                                uuid: e.message.uuid.clone(),
                                block,
                            });
                        }
                    }
                }
                (found, Vec::new())
            }
        };
        let first = blocks.first()?.uuid.clone();
        let place = match &after_uuid {
            Some(u) => format!("after {u}"),
            None => "from the start of the view".to_owned(),
        };
        let what = match mode {
            ThinkingMode::Strip => {
                let empty = if gone.is_empty() {
                    String::new()
                } else {
                    format!("; {} message(s) held nothing else and left the view", gone.len())
                };
                crate::text::concat("dropped them whole (thinking: strip)", &empty)
            }
            ThinkingMode::DropBlock => {
                "kept them: the request carries thinking.block_binding.prefix_mismatch_behavior \"drop_block\" and its beta, so the server drops them (thinking: drop_block)".to_owned()
            }
            ThinkingMode::Keep => {
                "kept them (thinking: keep): the API refuses them unless the host removes them or sends drop_block".to_owned()
            }
        };
        let mut messages: Vec<_> = blocks.iter().map(|b| b.uuid.clone()).collect();
        messages.dedup();
        Some(Step {
            tier,
            rule: "R13.1",
            owner: Owner::Client,
            evidence: Evidence::PublicApi,
            count_before: before,
            count_after: self.count(),
            messages,
            cache: CacheEffect::PrefixBroken { from: first },
            blocks: blocks.clone(),
            model_calls: 0,
            reason: format!(
                "the client rewrote the history {place}: {} signed thinking block(s) after it no longer match what they were signed over; {what}",
                blocks.len()
            ),
        })
    }
}
