//! What the engine tells the host before a call: the [`Decision`] and the
//! call's status against the lines (SPEC R1.7).

use serde::Serialize;

use super::Engine;
use crate::api::{ContextManagement, ThinkingParams};
use crate::breakers::Open;
use crate::compact::Progress;
use crate::step::{Evidence, Owner, Step, Tier};
use crate::thresholds::Thresholds;
use crate::tokens::TokenFigure;

/// What the host must do with the call (R1.7).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", rename_all_fields = "camelCase", tag = "kind")]
pub enum CallStatus {
    /// Send it.
    Proceed,
    /// Send it, and show the user how much room is left before the compact
    /// line ("N tokens left").
    Warn {
        /// Tokens left before the compact line.
        tokens_left: u64,
    },
    /// The count is still over the compact line after tiers 1–2: tiers 3–4
    /// (collapse, compaction) are due. Send the call if under blocked.
    CompactionDue {
        /// Tokens over the compact line.
        over_by: u64,
    },
    /// The count is over Tier 3's blocking line (R6.1) and segment summaries
    /// are pending: the call waits for them.
    WaitForCollapse {
        /// Segment summaries still pending.
        pending: usize,
    },
    /// Refused: the count is at or over the blocked line; the host must
    /// compact first.
    Blocked {
        /// Tokens at or over the blocked line.
        over_by: u64,
    },
}

/// The engine's answer before one model call.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Decision {
    /// What the engine did, in order.
    pub steps: Vec<Step>,
    /// The count after those steps.
    pub count: TokenFigure,
    /// The lines it was held against.
    pub lines: Thresholds,
    /// What to do with the call.
    pub status: CallStatus,
    /// The `context_management` parameter to send, if any: the host's
    /// clear-thinking edit, cache-aware microcompact's clearing, server
    /// compaction (R13.4).
    pub context_management: Option<ContextManagement>,
    /// The beta headers this request needs (`anthropic-beta`), sorted
    /// (R13.4).
    pub betas: Vec<String>,
    /// What to merge into the request's `thinking` parameter: the
    /// `drop_block` binding control (R13.1, setting `thinking: drop_block`).
    pub thinking: Option<ThinkingParams>,
    /// Results the client cleared in this call (a `microcompact_boundary`).
    pub cleared_by_client: Vec<String>,
    /// The automatic compaction this call started or is waiting on (Tier
    /// 4), if any: waiting (its request is in `requests`), or already done
    /// or failed within the call.
    pub compaction: Option<Progress>,
    /// Why automatic compaction is off for the session, if it is (R10): at
    /// the blocked line the host must compact manually (R10.3).
    pub breaker: Option<Open>,
    /// Every request pending, in one place: the compaction's (its
    /// PreCompact hooks, summary or files), Tier 3's segments (R6.1), the
    /// background precompute (R9.1). Answer each with [`Engine::answer`],
    /// or let [`drive`](super::drive) answer them through a [`Host`](super::Host).
    pub requests: Vec<super::Request>,
}

impl Engine {
    /// A dry run of [`Engine::before_call`]: the same decision, nothing
    /// changed (R3.4).
    pub fn plan(&self, now: Option<&crate::time::Timestamp>) -> Decision {
        self.scratch().before_call(now)
    }

    /// A copy of this engine to run a call on and drop: all a call reads,
    /// but not what only the host reads back and a call only adds to (what
    /// each compaction replaced, kept for `expand`; the view events not yet
    /// taken), so a dry run neither copies nor carries that code.
    fn scratch(&self) -> Engine {
        Engine {
            settings: self.settings.clone(),
            lines: self.lines.clone(),
            store: self.store.clone(),
            view: self.view.clone(),
            microcompact: self.microcompact.clone(),
            pending: self.pending.clone(),
            view_events: Vec::new(),
            unsent_reduction: self.unsent_reduction,
            system_tokens: self.system_tokens,
            hook: self.hook.clone(),
            run: self.run.clone(),
            requests: self.requests,
            compactions: self.compactions,
            cumulative_dropped: self.cumulative_dropped,
            breakers: self.breakers.clone(),
            prompts: self.prompts,
            calls: self.calls,
            reactive: self.reactive,
            pinned: self.pinned.clone(),
            lineage: Vec::new(),
            turn_of: self.turn_of.clone(),
            collapse_pending: self.collapse_pending.clone(),
            precompute: self.precompute.clone(),
            context: self.context.clone(),
            clock: self.clock.clone(),
        }
    }

    pub(super) fn status(&self, count: TokenFigure) -> CallStatus {
        let l = &self.lines;
        if count.tokens >= l.blocked {
            CallStatus::Blocked {
                over_by: count.tokens - l.blocked,
            }
        } else if count.tokens > l.compact {
            CallStatus::CompactionDue {
                over_by: count.tokens - l.compact,
            }
        } else if count.tokens >= l.warn {
            CallStatus::Warn {
                tokens_left: l.compact - count.tokens,
            }
        } else {
            CallStatus::Proceed
        }
    }

    pub(super) fn status_step(&self, count: TokenFigure, status: &CallStatus) -> Option<Step> {
        let reason = match status {
            CallStatus::Proceed => return None,
            CallStatus::Warn { tokens_left } => {
                format!("{} tokens, at or over the warn line {}: {tokens_left} tokens left before compaction", count.tokens, self.lines.warn)
            }
            CallStatus::CompactionDue { over_by } => {
                format!("{} tokens, {over_by} over the compact line {} after tiers 1–2", count.tokens, self.lines.compact)
            }
            CallStatus::WaitForCollapse { pending } => format!(
                "{} tokens, over Tier 3's blocking line: the call waits for {pending} segment summaries",
                count.tokens
            ),
            CallStatus::Blocked { over_by } => format!(
                "{} tokens, at or over the blocked line {} by {over_by}: the call is refused until the host compacts",
                count.tokens, self.lines.blocked
            ),
        };
        Some(Step::note(
            Tier::Lines,
            "R1.7",
            Owner::Client,
            Evidence::SourceLocation {
                location: "cli.readable.js 216095-216245",
            },
            count,
            reason,
        ))
    }
}
