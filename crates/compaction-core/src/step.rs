//! Steps: every decision the engine takes, as data (SPEC R3.3). Agents log
//! them, tests snapshot them, the sandbox draws them.

use serde::Serialize;

use crate::message::Uuid;
use crate::tokens::TokenFigure;

/// Which part of the cascade took a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Tier {
    /// Budget reduction, before every call (R2).
    BudgetReduction,
    /// The count against the lines: warn and blocked statuses (R1.7).
    Lines,
    /// Tier 1 (R4).
    Microcompact,
    /// Tier 2 (R5).
    Snip,
    /// Tier 3 (R6).
    Collapse,
    /// Tier 4, automatic or manual (R7).
    Compact,
    /// Tier 5 (R8).
    Reactive,
}

/// Who acts in a step (R3.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Owner {
    /// The client (the engine on the host's behalf).
    Client,
    /// The model (a summary).
    Model,
    /// A hook.
    Hook,
    /// The API server (context editing).
    Server,
}

/// How we know Claude Code does this (R3.3).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum Evidence {
    /// A location in client 2.1.235's bundle, from seed 002's table.
    SourceLocation {
        /// The location, as the table gives it.
        location: &'static str,
    },
    /// A runtime probe named in seed 002.
    RuntimeProbe {
        /// The probe's name.
        probe: &'static str,
    },
    /// Third-party reverse engineering, unconfirmed (seed 000).
    ThirdParty,
    /// The public Anthropic API documentation.
    PublicApi,
    /// An illustration, not a claim about the client.
    Illustrative,
    /// Our extension: Claude Code does not do this.
    Extension,
}

/// One block of one message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BlockRef {
    /// The message.
    pub uuid: Uuid,
    /// The block's index in the message's content.
    pub block: usize,
}

/// What a step does to the provider's prompt cache.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum CacheEffect {
    /// Nothing already sent changes.
    Intact,
    /// The client changed content at or after this message: the cached
    /// prefix from there on is not reused.
    PrefixBroken {
        /// The first changed message.
        from: Uuid,
    },
    /// The server clears content (context editing); per the API docs the
    /// cached prefix is invalidated from the first cleared block.
    ServerInvalidatesFrom {
        /// The first cleared block's message.
        from: Uuid,
    },
}

/// One decision (R3.3).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Step {
    /// The tier.
    pub tier: Tier,
    /// The rule id in SPEC.md.
    pub rule: &'static str,
    /// Who acts.
    pub owner: Owner,
    /// How we know.
    pub evidence: Evidence,
    /// The count before the step.
    pub count_before: TokenFigure,
    /// The count after the step.
    pub count_after: TokenFigure,
    /// Messages touched (uuids).
    pub messages: Vec<Uuid>,
    /// Blocks touched.
    pub blocks: Vec<BlockRef>,
    /// The prompt-cache effect.
    pub cache: CacheEffect,
    /// Model calls the step needs.
    pub model_calls: u32,
    /// One line saying why.
    pub reason: String,
}

impl Step {
    /// A step that changes nothing in the view: a status, a decision, a
    /// request. Touches no message, keeps the cache, needs no model call;
    /// set the fields that differ.
    pub fn note(
        tier: Tier,
        rule: &'static str,
        owner: Owner,
        evidence: Evidence,
        count: TokenFigure,
        reason: String,
    ) -> Step {
        Step {
            tier,
            rule,
            owner,
            evidence,
            count_before: count,
            count_after: count,
            messages: Vec::new(),
            blocks: Vec::new(),
            cache: CacheEffect::Intact,
            model_calls: 0,
            reason,
        }
    }
}
