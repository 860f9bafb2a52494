//! Mirrors: TypeScript types for values the engine serializes itself (its
//! `Serialize` output crosses unchanged; `tests` checks each mirror against
//! the engine's real output).

use serde::{Deserialize, Serialize};
use tsify::Tsify;

/// A token count and where it comes from.
#[derive(Debug, Clone, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TokenFigure {
    /// Tokens.
    pub tokens: f64,
    /// `"estimated"`, `"reported"` (API usage) or `"reportedPlusEstimate"`.
    pub basis: Basis,
}

/// Where a token figure comes from.
#[derive(Debug, Clone, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub enum Basis {
    /// Estimated from characters.
    Estimated,
    /// The API's reported usage.
    Reported,
    /// The last reported usage plus an estimate of what came after.
    ReportedPlusEstimate,
}

/// One decision of the engine (SPEC R3.3).
#[derive(Debug, Clone, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Step {
    /// The tier that acted.
    pub tier: Tier,
    /// The SPEC rule id.
    pub rule: String,
    /// Who does it in Claude Code.
    pub owner: Owner,
    /// Where the behaviour comes from.
    pub evidence: Evidence,
    /// The count before.
    pub count_before: TokenFigure,
    /// The count after.
    pub count_after: TokenFigure,
    /// The messages affected (uuids).
    pub messages: Vec<String>,
    /// The blocks affected.
    pub blocks: Vec<BlockRef>,
    /// What it did to the prompt cache.
    pub cache: CacheEffect,
    /// Model calls it needed.
    pub model_calls: f64,
    /// Why, in one sentence.
    pub reason: String,
}

/// The tiers of the cascade.
#[derive(Debug, Clone, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub enum Tier {
    /// Oversized tool results trimmed on append (R2).
    BudgetReduction,
    /// The lines' status (R1.7).
    Lines,
    /// Tier 1 (R4).
    Microcompact,
    /// Tier 2 (R5).
    Snip,
    /// Tier 3 (R6).
    Collapse,
    /// Tier 4 (R7).
    Compact,
    /// Tier 5, after a 413 (R8).
    Reactive,
}

/// Who does a step in Claude Code.
#[derive(Debug, Clone, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub enum Owner {
    /// The client.
    Client,
    /// The model.
    Model,
    /// A hook.
    Hook,
    /// The API server.
    Server,
}

/// Where a behaviour comes from.
#[derive(Debug, Clone, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase", tag = "kind", deny_unknown_fields)]
pub enum Evidence {
    /// A place in the client's source.
    SourceLocation {
        /// Where.
        location: String,
    },
    /// A runtime probe.
    RuntimeProbe {
        /// Which.
        probe: String,
    },
    /// A third-party port.
    ThirdParty,
    /// The public API documentation.
    PublicApi,
    /// An illustrative choice.
    Illustrative,
    /// This project's extension.
    Extension,
}

/// A content block of a message.
#[derive(Debug, Clone, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BlockRef {
    /// The message.
    pub uuid: String,
    /// The block's index in its content.
    pub block: f64,
}

/// What a step did to the prompt cache.
#[derive(Debug, Clone, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase", tag = "kind", deny_unknown_fields)]
pub enum CacheEffect {
    /// The cached prefix still holds.
    Intact,
    /// The prefix changed from this message on.
    PrefixBroken {
        /// The first changed message.
        from: String,
    },
    /// The server invalidates the cache from this message on.
    ServerInvalidatesFrom {
        /// The first affected message.
        from: String,
    },
}

/// The `context_management` parameter of the Messages API (beta
/// `context-management-2025-06-27`).
#[derive(Debug, Clone, Serialize, Deserialize, Tsify)]
#[serde(deny_unknown_fields)]
pub struct ContextManagement {
    /// The edits: your clear-thinking edit first.
    pub edits: Vec<Edit>,
}

/// One edit of `context_management.edits`.
#[derive(Debug, Clone, Serialize, Deserialize, Tsify)]
#[serde(untagged)]
pub enum Edit {
    /// Cache-aware microcompact (R4.3).
    ClearToolUses(ClearToolUsesEdit),
    /// Server compaction (R13.2).
    Compact(CompactEdit),
    /// Your `clearThinking` setting, as you gave it.
    ClearThinking(ClearThinkingEdit),
}

/// A `clear_thinking_20251015` edit (the `clearThinking` setting).
#[derive(Debug, Clone, Serialize, Deserialize, Tsify)]
pub struct ClearThinkingEdit {
    /// `"clear_thinking_20251015"`.
    #[serde(rename = "type")]
    #[tsify(type = "\"clear_thinking_20251015\"")]
    pub kind: String,
    /// Assistant turns whose thinking is kept.
    #[tsify(
        optional,
        type = "{ type: \"thinking_turns\"; value: number } | { type: \"all\" } | \"all\""
    )]
    pub keep: Option<serde_json::Value>,
}

/// A `compact_20260112` edit (R13.2).
#[derive(Debug, Clone, Serialize, Deserialize, Tsify)]
#[serde(deny_unknown_fields)]
pub struct CompactEdit {
    /// `"compact_20260112"`.
    #[serde(rename = "type")]
    #[tsify(type = "\"compact_20260112\"")]
    pub kind: String,
    /// Compacts when the prompt exceeds this: the compact line.
    pub trigger: InputTokensAmount,
    /// The engine's summary prompt (setting `serverInstructions`).
    #[tsify(optional)]
    pub instructions: Option<String>,
}

/// A `clear_tool_uses_20250919` edit.
#[derive(Debug, Clone, Serialize, Deserialize, Tsify)]
#[serde(deny_unknown_fields)]
pub struct ClearToolUsesEdit {
    /// `"clear_tool_uses_20250919"`.
    #[serde(rename = "type")]
    #[tsify(type = "\"clear_tool_uses_20250919\"")]
    pub kind: String,
    /// When the server clears.
    pub trigger: InputTokensAmount,
    /// Tool uses kept.
    pub keep: ToolUsesAmount,
    /// At least this much is cleared.
    #[tsify(optional)]
    pub clear_at_least: Option<InputTokensAmount>,
    /// Tools never cleared.
    pub exclude_tools: Vec<String>,
    /// Whether tool inputs are cleared too.
    pub clear_tool_inputs: bool,
}

/// `{ type: "input_tokens", value }`.
#[derive(Debug, Clone, Serialize, Deserialize, Tsify)]
#[serde(deny_unknown_fields)]
pub struct InputTokensAmount {
    /// `"input_tokens"`.
    #[serde(rename = "type")]
    #[tsify(type = "\"input_tokens\"")]
    pub kind: String,
    /// Tokens.
    pub value: f64,
}

/// `{ type: "tool_uses", value }`.
#[derive(Debug, Clone, Serialize, Deserialize, Tsify)]
#[serde(deny_unknown_fields)]
pub struct ToolUsesAmount {
    /// `"tool_uses"`.
    #[serde(rename = "type")]
    #[tsify(type = "\"tool_uses\"")]
    pub kind: String,
    /// Tool uses.
    pub value: f64,
}

/// A finished compaction.
#[derive(Debug, Clone, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Compacted {
    /// The `compact_boundary` record (SPEC R7.9).
    pub boundary: BoundaryRecord,
    /// The summary record after it.
    pub summary: SummaryRecord,
    /// How each file re-attachment candidate ended (R7.7).
    pub attachments: Vec<Candidate>,
    /// What the summary left out (extension).
    pub retention: RetentionReport,
}

/// The `compact_boundary` record.
#[derive(Debug, Clone, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BoundaryRecord {
    /// `"system"`.
    #[serde(rename = "type")]
    pub kind: String,
    /// `"compact_boundary"`.
    pub subtype: String,
    /// Its uuid.
    pub uuid: String,
    /// Always `null`: a boundary starts a new chain.
    #[tsify(type = "string | null")]
    pub parent_uuid: Option<String>,
    /// The last message before it.
    #[tsify(type = "string | null")]
    pub logical_parent_uuid: Option<String>,
    /// `"Conversation compacted"`.
    pub content: String,
    /// `"info"`.
    pub level: String,
    /// The compaction's figures.
    pub compact_metadata: CompactMetadata,
}

/// `compactMetadata` of a boundary.
#[derive(Debug, Clone, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CompactMetadata {
    /// `"manual"` or `"auto"`.
    #[tsify(type = "\"manual\" | \"auto\"")]
    pub trigger: String,
    /// The count before.
    pub pre_tokens: f64,
    /// The count of the new view.
    pub post_tokens: f64,
    /// Messages kept verbatim after the summary.
    pub preserved_messages: Vec<String>,
    /// Tokens dropped by every compaction so far.
    pub cumulative_dropped_tokens: f64,
}

/// The summary record after a boundary.
#[derive(Debug, Clone, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SummaryRecord {
    /// `"user"`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Its uuid.
    pub uuid: String,
    /// The boundary.
    pub parent_uuid: String,
    /// Always `true`.
    pub is_compact_summary: bool,
    /// The summary message.
    pub message: SummaryPayload,
}

/// The summary message.
#[derive(Debug, Clone, Serialize, Deserialize, Tsify)]
#[serde(deny_unknown_fields)]
pub struct SummaryPayload {
    /// `"user"`.
    pub role: String,
    /// The summary text.
    pub content: String,
}

/// What an attachment restores (SPEC R7.7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub enum AttachmentKind {
    /// A recently read or edited file.
    File,
    /// The current plan.
    Plan,
    /// The task list.
    TaskState,
    /// An invoked skill's instructions.
    Skill,
    /// An MCP server's instructions.
    Mcp,
    /// A post-compact hook's output.
    HookOutput,
}

impl AttachmentKind {
    const ALL: [AttachmentKind; 6] = [
        AttachmentKind::File,
        AttachmentKind::Plan,
        AttachmentKind::TaskState,
        AttachmentKind::Skill,
        AttachmentKind::Mcp,
        AttachmentKind::HookOutput,
    ];
    const NAMES: [&'static str; 6] = ["file", "plan", "taskState", "skill", "mcp", "hookOutput"];

    /// The kind its serde name names.
    pub fn from_name(name: &str) -> Option<AttachmentKind> {
        let at = Self::NAMES.iter().position(|n| *n == name)?;
        Self::ALL.get(at).copied()
    }
}

impl<'de> Deserialize<'de> for AttachmentKind {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        crate::js::variant(deserializer, &Self::NAMES, Self::ALL)
    }
}

impl From<AttachmentKind> for compaction_core::compact::attachments::Kind {
    fn from(k: AttachmentKind) -> Self {
        use compaction_core::compact::attachments::Kind;
        match k {
            AttachmentKind::File => Kind::File,
            AttachmentKind::Plan => Kind::Plan,
            AttachmentKind::TaskState => Kind::TaskState,
            AttachmentKind::Skill => Kind::Skill,
            AttachmentKind::Mcp => Kind::Mcp,
            AttachmentKind::HookOutput => Kind::HookOutput,
        }
    }
}

/// Context the host holds outside the messages, restored after each
/// compaction (SPEC R7.7; `Engine.setContext`).
#[derive(Debug, Clone, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ContextItem {
    /// `"plan"`, `"taskState"`, `"skill"` or `"mcp"`.
    pub kind: AttachmentKind,
    /// The skill's or MCP server's name (free for a plan or task list).
    pub name: String,
    /// The text restored.
    pub content: String,
}

/// What one post-compact hook printed (SPEC R7.1).
#[derive(Debug, Clone, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HookOutput {
    /// The hook's name or command.
    pub hook: String,
    /// What it printed.
    pub output: String,
}

/// How one re-attachment candidate ended: a file (`path`) or another kind
/// (`path` is then its name).
#[derive(Debug, Clone, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase", tag = "status", rename_all_fields = "camelCase")]
pub enum Candidate {
    /// Restored.
    Restored {
        /// What it is.
        kind: AttachmentKind,
        /// The file, or the item's name.
        path: String,
        /// Tokens restored.
        tokens: f64,
        /// Cut to the per-file budget.
        cut: bool,
    },
    /// Only its path was restored.
    PathOnly {
        /// What it is.
        kind: AttachmentKind,
        /// The file, or the item's name.
        path: String,
    },
    /// Not among the most recent files.
    NotChosen {
        /// What it is.
        kind: AttachmentKind,
        /// The file, or the item's name.
        path: String,
    },
    /// Over the attachment budget.
    OverBudget {
        /// What it is.
        kind: AttachmentKind,
        /// The file, or the item's name.
        path: String,
        /// Its size in tokens.
        tokens: f64,
    },
    /// The host could not read it.
    Failed {
        /// What it is.
        kind: AttachmentKind,
        /// The file, or the item's name.
        path: String,
        /// Why.
        reason: String,
    },
}

/// What a summary left out.
#[derive(Debug, Clone, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RetentionReport {
    /// User prompts the summary does not mention.
    pub missing_prompts: Vec<MissingPrompt>,
    /// File paths it does not mention.
    pub missing_paths: Vec<String>,
}

/// A user prompt a summary left out.
#[derive(Debug, Clone, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct MissingPrompt {
    /// The prompt's message.
    pub uuid: String,
    /// Its first characters.
    pub text: String,
}
