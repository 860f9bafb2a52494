//! Today's Messages API (SPEC R13): the settings it adds, the request's
//! `context_management` built in one place, and the beta headers a request
//! needs (R13.4).

use serde::Serialize;

use crate::message::Json;
use crate::microcompact::{Amount, ClearToolUsesEdit};

pub mod applied;
pub mod body;
pub(crate) mod plain;
pub mod thinking;

/// Beta of `context_management` (R4.3, R13.4).
pub const BETA_CONTEXT_MANAGEMENT: &str = "context-management-2025-06-27";
/// Beta of the `compact_20260112` edit and of compaction blocks (R13.2).
pub const BETA_COMPACT: &str = "compact-2026-01-12";
/// Beta of an on-demand compaction request (`compaction: {type: "summarize"}`).
pub const BETA_COMPACT_ON_DEMAND: &str = "compact-2026-09-04";
/// Beta of `thinking.block_binding` (R13.1).
pub const BETA_THINKING_BINDING: &str = "thinking-binding-controls-2026-08-01";
/// Beta of `tool_addition` / `tool_removal` blocks (R13.3).
pub const BETA_TOOL_CHANGES: &str = "mid-conversation-tool-changes-2026-07-01";
/// Beta of a system message's `clear_at` (R13.3).
pub const BETA_SYSTEM_CLEAR_AT: &str = "mid-conversation-system-clear-at-2026-08-21";
/// Beta of a system message's `output_config` (R13.3).
pub const BETA_OUTPUT_CONFIG: &str = "mid-conversation-output-config-2026-07-01";

/// Who writes Tier 4's summary (R13.2).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum CompactionMode {
    /// The client asks a model for a summary (R7; the default).
    #[default]
    Client,
    /// The server compacts: the request carries a `compact_20260112` edit
    /// triggered at the compact line, and the signed `compaction` block of
    /// its response starts the view.
    Server,
}

/// What the engine does with signed thinking blocks after a client-side
/// rewrite (R13.1).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ThinkingMode {
    /// Drop every `thinking` / `redacted_thinking` block after the first
    /// point the client rewrote (the default).
    #[default]
    Strip,
    /// Keep them and send `thinking.block_binding.prefix_mismatch_behavior:
    /// "drop_block"` with its beta: the server drops the failing ones.
    DropBlock,
    /// Keep them: the host takes responsibility.
    Keep,
}

impl ThinkingMode {
    /// The setting's name, as the CLI and the JS package spell it.
    pub fn name(self) -> &'static str {
        match self {
            ThinkingMode::Strip => "strip",
            ThinkingMode::DropBlock => "drop_block",
            ThinkingMode::Keep => "keep",
        }
    }
}

/// The R13 settings.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ApiSettings {
    /// Signed thinking after a rewrite (R13.1; default `strip`).
    pub thinking: ThinkingMode,
    /// Who writes Tier 4's summary (R13.2; default client).
    pub compaction: CompactionMode,
    /// Server compaction: send the engine's summary prompt as the edit's
    /// `instructions` (default off: the server's own prompt).
    pub server_instructions: bool,
    /// The host's own `clear_thinking_20251015` edit, verbatim: it goes
    /// first in `context_management.edits` (R13.4).
    pub clear_thinking: Option<Json>,
}

/// A `compact_20260112` edit (R13.2), in the API's shape.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CompactEdit {
    /// Always `compact_20260112`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// Compacts when the prompt exceeds this: the compact line (R1.2).
    pub trigger: Amount,
    /// The engine's summary prompt, when the host wants it sent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
}

/// One edit of `context_management.edits`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Edit {
    /// The host's `clear_thinking_20251015` edit, verbatim.
    ClearThinking(Json),
    /// Cache-aware microcompact (R4.3).
    ClearToolUses(ClearToolUsesEdit),
    /// Server compaction (R13.2).
    Compact(CompactEdit),
}

/// The request's `context_management` parameter (beta
/// `context-management-2025-06-27`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ContextManagement {
    /// The edits, the host's `clear_thinking_20251015` first.
    pub edits: Vec<Edit>,
}

/// What the next request needs beyond its messages.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Needs {
    /// Tier 1's server-side clearing edit.
    pub(crate) clear_tool_uses: Option<ClearToolUsesEdit>,
    /// Tier 4's server compaction edit.
    pub(crate) compact: Option<CompactEdit>,
    /// The host's clear-thinking edit.
    pub(crate) clear_thinking: Option<Json>,
    /// `drop_block` binding control (R13.1).
    pub(crate) drop_block: bool,
    /// What the view's messages hold (R13.2, R13.3).
    pub(crate) features: crate::view::Features,
}

/// `context_management` for a model call: the host's clear-thinking edit
/// (when it set one) first, as the API requires, then clearing, then
/// compaction. `None` when there is no edit. The one builder of the parameter (R13.4); an
/// on-demand compaction request never carries it (the API refuses the
/// two together), so only [`Decision`](crate::engine::Decision)s get one.
pub(crate) fn context_management(needs: &Needs) -> Option<ContextManagement> {
    let mut edits = Vec::new();
    edits.extend(needs.clear_thinking.clone().map(Edit::ClearThinking));
    edits.extend(needs.clear_tool_uses.clone().map(Edit::ClearToolUses));
    edits.extend(needs.compact.clone().map(Edit::Compact));
    (!edits.is_empty()).then_some(ContextManagement { edits })
}

/// The beta headers a request with these needs takes, sorted, each once.
pub(crate) fn betas(needs: &Needs, context_management: Option<&ContextManagement>) -> Vec<String> {
    // In sorted order (a test checks it), each at most once: no sort, no
    // dedup, no `Vec` of `&str` first on every call.
    let f = &needs.features;
    let mut out = Vec::new();
    for (needed, beta) in [
        (needs.compact.is_some() || f.compaction_blocks > 0, BETA_COMPACT),
        (context_management.is_some(), BETA_CONTEXT_MANAGEMENT),
        (f.output_config > 0, BETA_OUTPUT_CONFIG),
        (f.clear_at > 0, BETA_SYSTEM_CLEAR_AT),
        (f.tool_changes > 0, BETA_TOOL_CHANGES),
        (needs.drop_block, BETA_THINKING_BINDING),
    ] {
        if needed {
            out.push(beta.to_owned());
        }
    }
    out
}

/// An on-demand compaction request's `compaction` parameter (beta
/// `compact-2026-09-04`): the API summarises the messages sent and answers
/// with one signed `compaction` block.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CompactionConfig {
    /// Always `summarize`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// Replaces the server's summary prompt for this request.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
}

/// An on-demand compaction request (R13.2): send the view's messages with
/// `compaction` and these `betas` and no `context_management` (the API
/// refuses the two together, R13.4), then swap the block it returns in for
/// exactly `summarised` (R9.4).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OnDemandCompaction {
    /// The messages it summarises: the whole view, in order.
    pub summarised: Vec<crate::message::Uuid>,
    /// The request's `compaction` parameter.
    pub compaction: CompactionConfig,
    /// The beta headers it needs, sorted: `compact-2026-09-04` and what the
    /// messages hold, never `context-management-2025-06-27`.
    pub betas: Vec<String>,
}

/// The betas of an on-demand compaction request over messages with these
/// features: no `context_management` goes with it.
pub(crate) fn on_demand_betas(features: crate::view::Features) -> Vec<String> {
    let needs = Needs {
        features,
        ..Needs::default()
    };
    let mut out = betas(&needs, None);
    out.push(BETA_COMPACT_ON_DEMAND.to_owned());
    out.sort();
    out
}

/// `thinking.block_binding` for the request (R13.1): merge it into the
/// host's `thinking` parameter.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ThinkingParams {
    /// `{prefix_mismatch_behavior: "drop_block"}`.
    pub block_binding: BlockBinding,
}

/// `thinking.block_binding`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BlockBinding {
    /// Always `drop_block`: the server drops a thinking block whose prefix
    /// changed instead of refusing the request.
    pub prefix_mismatch_behavior: &'static str,
}

impl ThinkingParams {
    /// `{block_binding: {prefix_mismatch_behavior: "drop_block"}}`.
    pub fn drop_block() -> Self {
        ThinkingParams {
            block_binding: BlockBinding {
                prefix_mismatch_behavior: "drop_block",
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clear_tool_uses() -> ClearToolUsesEdit {
        ClearToolUsesEdit {
            kind: "clear_tool_uses_20250919",
            trigger: Amount {
                kind: "input_tokens",
                value: 1,
            },
            keep: Amount {
                kind: "tool_uses",
                value: 20,
            },
            clear_at_least: None,
            exclude_tools: Vec::new(),
            clear_tool_inputs: false,
        }
    }

    #[test]
    fn r13_4_the_hosts_clear_thinking_edit_goes_first_and_betas_follow_the_edits() {
        let needs = Needs {
            clear_tool_uses: Some(clear_tool_uses()),
            compact: Some(CompactEdit {
                kind: "compact_20260112",
                trigger: Amount {
                    kind: "input_tokens",
                    value: 167_000,
                },
                instructions: None,
            }),
            clear_thinking: Json::parse(r#"{"type":"clear_thinking_20251015","keep":"all"}"#).ok(),
            ..Needs::default()
        };
        let cm = context_management(&needs).unwrap();
        let text = serde_json::to_string(&cm).unwrap();
        assert!(text.starts_with(r#"{"edits":[{"type":"clear_thinking_20251015","keep":"all"},{"type":"clear_tool_uses_20250919""#), "{text}");
        assert!(
            text.ends_with(
                r#"{"type":"compact_20260112","trigger":{"type":"input_tokens","value":167000}}]}"#
            ),
            "{text}"
        );
        assert_eq!(
            betas(&needs, Some(&cm)),
            vec![BETA_COMPACT, BETA_CONTEXT_MANAGEMENT]
        );
    }

    #[test]
    fn r13_4_no_edit_no_parameter_and_no_beta() {
        let needs = Needs::default();
        assert_eq!(context_management(&needs), None);
        assert!(betas(&needs, None).is_empty());
        let needs = Needs {
            drop_block: true,
            ..Needs::default()
        };
        assert_eq!(betas(&needs, None), vec![BETA_THINKING_BINDING]);
    }

    #[test]
    fn betas_are_sorted_and_each_named_once() {
        let cm = ContextManagement { edits: Vec::new() };
        let every = Needs {
            compact: None,
            drop_block: true,
            features: crate::view::Features {
                compaction_blocks: 2,
                tool_changes: 1,
                clear_at: 3,
                output_config: 1,
            },
            ..Needs::default()
        };
        let mut expected = vec![
            BETA_CONTEXT_MANAGEMENT,
            BETA_COMPACT,
            BETA_THINKING_BINDING,
            BETA_TOOL_CHANGES,
            BETA_SYSTEM_CLEAR_AT,
            BETA_OUTPUT_CONFIG,
        ];
        expected.sort_unstable();
        assert_eq!(betas(&every, Some(&cm)), expected);
        // Each alone.
        let one = |features| Needs {
            features,
            ..Needs::default()
        };
        let f = crate::view::Features::default();
        assert_eq!(betas(&one(f), Some(&cm)), vec![BETA_CONTEXT_MANAGEMENT]);
        let f1 = crate::view::Features {
            output_config: 1,
            ..f
        };
        assert_eq!(betas(&one(f1), None), vec![BETA_OUTPUT_CONFIG]);
    }
}
