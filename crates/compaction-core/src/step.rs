//! Steps: every decision the engine takes, as data (SPEC R3.3). Agents log
//! them, tests snapshot them, the sandbox draws them.

use serde::ser::{SerializeStruct, Serializer};
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
#[derive(Debug, Clone, PartialEq, Eq)]
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
#[derive(Debug, Clone, PartialEq, Eq)]
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

// Evidence and CacheEffect are written as `derive(Serialize)` with
// `rename_all = "camelCase", tag = "kind"` wrote them, by one function
// ([`serialize_tagged`]) instead of a derived body per enum.

impl Serialize for Evidence {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let (kind, field) = match self {
            Evidence::SourceLocation { location } => ("sourceLocation", Some(("location", *location))),
            Evidence::RuntimeProbe { probe } => ("runtimeProbe", Some(("probe", *probe))),
            Evidence::ThirdParty => ("thirdParty", None),
            Evidence::PublicApi => ("publicApi", None),
            Evidence::Illustrative => ("illustrative", None),
            Evidence::Extension => ("extension", None),
        };
        serialize_tagged(serializer, "Evidence", kind, field)
    }
}

impl Serialize for CacheEffect {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let (kind, field) = match self {
            CacheEffect::Intact => ("intact", None),
            CacheEffect::PrefixBroken { from } => ("prefixBroken", Some(("from", from.as_str()))),
            CacheEffect::ServerInvalidatesFrom { from } => {
                ("serverInvalidatesFrom", Some(("from", from.as_str())))
            }
        };
        serialize_tagged(serializer, "CacheEffect", kind, field)
    }
}

/// One variant of an internally tagged enum (`tag = "kind"`) with at most
/// one field, exactly as `derive(Serialize)` writes it: `{"kind": kind}` or
/// `{"kind": kind, key: value}`. One body for every such enum that uses it
/// (per value type), where the derive compiles one per enum.
pub fn serialize_tagged<S: Serializer, V: Serialize + ?Sized>(
    serializer: S,
    name: &'static str,
    kind: &'static str,
    field: Option<(&'static str, &V)>,
) -> Result<S::Ok, S::Error> {
    let mut s = serializer.serialize_struct(name, 1 + usize::from(field.is_some()))?;
    s.serialize_field("kind", kind)?;
    if let Some((key, value)) = field {
        s.serialize_field(key, value)?;
    }
    s.end()
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// The derives these impls replace, kept to compare with.
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase", tag = "kind")]
    enum DerivedEvidence {
        SourceLocation { location: &'static str },
        RuntimeProbe { probe: &'static str },
        ThirdParty,
        PublicApi,
        Illustrative,
        Extension,
    }

    #[derive(Serialize)]
    #[serde(rename_all = "camelCase", tag = "kind")]
    enum DerivedCacheEffect {
        Intact,
        PrefixBroken { from: Uuid },
        ServerInvalidatesFrom { from: Uuid },
    }

    #[test]
    fn evidence_and_cache_effects_write_what_the_derive_wrote() {
        for (ours, derived) in [
            (
                Evidence::SourceLocation { location: "a.js:1" },
                DerivedEvidence::SourceLocation { location: "a.js:1" },
            ),
            (
                Evidence::RuntimeProbe { probe: "p \"q\"" },
                DerivedEvidence::RuntimeProbe { probe: "p \"q\"" },
            ),
            (Evidence::ThirdParty, DerivedEvidence::ThirdParty),
            (Evidence::PublicApi, DerivedEvidence::PublicApi),
            (Evidence::Illustrative, DerivedEvidence::Illustrative),
            (Evidence::Extension, DerivedEvidence::Extension),
        ] {
            assert_eq!(json(&ours), json(&derived));
        }
        let u = || Uuid::from("m1");
        for (ours, derived) in [
            (CacheEffect::Intact, DerivedCacheEffect::Intact),
            (
                CacheEffect::PrefixBroken { from: u() },
                DerivedCacheEffect::PrefixBroken { from: u() },
            ),
            (
                CacheEffect::ServerInvalidatesFrom { from: u() },
                DerivedCacheEffect::ServerInvalidatesFrom { from: u() },
            ),
        ] {
            assert_eq!(json(&ours), json(&derived));
        }
    }

    /// As text and as a tree: serde_json's two serializers.
    fn json<T: Serialize>(value: &T) -> String {
        let text = serde_json::to_string(value).unwrap();
        format!("{text} {}", serde_json::to_value(value).unwrap())
    }
}
