//! What the server says it did (SPEC R13.4): a response's
//! `context_management.applied_edits` replaces the view's prediction of
//! what the server cleared.

use serde::{Deserialize, Serialize};

/// One entry of a response's `context_management.applied_edits`
/// (`BetaClearToolUses20250919EditResponse`,
/// `BetaClearThinking20251015EditResponse`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AppliedEdit {
    /// `clear_tool_uses_20250919` or `clear_thinking_20251015`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Tool uses the server cleared (a clear-tool-uses edit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cleared_tool_uses: Option<u64>,
    /// Thinking turns the server cleared (a clear-thinking edit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cleared_thinking_turns: Option<u64>,
    /// Input tokens those edits cleared.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cleared_input_tokens: Option<u64>,
}
