//! What a session import reports.

use serde::{Deserialize, Serialize};
use tsify::Tsify;

/// One problem found in a session file (never silently dropped).
#[derive(Debug, Clone, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Problem {
    /// The 1-based line.
    pub line: f64,
    /// What kind (`malformed_json`, `truncated_line`, `orphan_tool_result`, …).
    pub kind: String,
    /// Details.
    pub detail: String,
}

/// A boundary found in a session file.
#[derive(Debug, Clone, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BoundarySummary {
    /// The boundary record's uuid.
    pub uuid: String,
    /// `"manual"`, `"auto"`, or `null` when the record has none.
    #[tsify(type = "string | null")]
    pub trigger: Option<String>,
    /// The count before, or `null`.
    #[tsify(type = "number | null")]
    pub pre_tokens: Option<f64>,
    /// The count after, when recorded.
    #[tsify(optional)]
    pub post_tokens: Option<f64>,
    /// Its 1-based line.
    pub line: f64,
    /// Whether its `logicalParentUuid` is in the file.
    pub logical_parent_found: bool,
    /// The summary record after it, or `null`.
    #[tsify(type = "string | null")]
    pub summary_uuid: Option<String>,
}

/// What importing a Claude Code session file found (SPEC R11).
#[derive(Debug, Clone, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ImportReport {
    /// Lines read.
    pub lines: f64,
    /// Records parsed.
    pub records: f64,
    /// Records per `type`.
    #[tsify(type = "Record<string, number>")]
    pub record_types: std::collections::BTreeMap<String, u32>,
    /// Sidechain records (subagents), not in the main chain.
    pub sidechain_records: f64,
    /// Messages (split assistant lines merged).
    pub messages: f64,
    /// `tool_use` blocks.
    pub tool_uses: f64,
    /// `tool_result` blocks.
    pub tool_results: f64,
    /// Unpaired tool uses and results.
    pub orphans: f64,
    /// Boundaries in file order.
    pub boundaries: Vec<BoundarySummary>,
    /// Client versions seen.
    pub versions: Vec<String>,
    /// Session ids seen.
    pub sessions: Vec<String>,
    /// The chain's leaf, or `null`.
    #[tsify(type = "string | null")]
    pub leaf: Option<String>,
    /// Messages in the resumed view.
    pub active_messages: f64,
    /// Every problem found, including repairs made to keep tool pairs legal.
    pub problems: Vec<Problem>,
}

/// A Claude Code session file read by `readSession` or a
/// `SessionImporter` (the `context-compaction/session` module): its report,
/// and the view a resumed session sees, for `engine.loadSession`.
#[derive(Debug, Clone, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct Session {
    /// What the file holds, problems included.
    pub report: ImportReport,
    /// The resumed view (SPEC R11.2): the last boundary's summary, the
    /// messages it preserved, then what followed.
    pub messages: Vec<SessionMessage>,
    /// The boundary the view starts after, or `null`.
    #[tsify(type = "string | null")]
    pub boundary: Option<String>,
    /// The chain's last record: records an engine writes next continue
    /// from it. `null` for an empty file.
    #[tsify(type = "string | null")]
    pub leaf: Option<String>,
    /// The file's session id (the last one seen), or `null`.
    #[tsify(type = "string | null")]
    pub session_id: Option<String>,
    /// The highest `m<n>` uuid of any record in the file (the uuids an
    /// engine gives messages that come without one), or `null`: a resumed
    /// engine makes uuids after it, so its records never repeat one the
    /// file holds, even when the view no longer shows it.
    #[tsify(type = "string | null")]
    pub last_made_uuid: Option<String>,
    /// The compactions the file holds (its `compact_boundary` records): a
    /// resumed engine numbers its own after them, so the uuids it derives
    /// for their records are new to the file too.
    pub compactions: f64,
    /// The messages of the view the file leaves pinned (its
    /// `message_pinned` records), sorted: `loadSession` pins them again.
    pub pinned: Vec<String>,
    /// What the count rested on when the file was last written (its last
    /// `count_calibrated` record), or `null`: `loadSession` takes it after
    /// loading the message `after` names, so a resumed engine counts as
    /// the live one did.
    #[tsify(type = "SessionCounting | null")]
    pub counting: Option<SessionCounting>,
}

/// The count's basis a session file states (`count_calibrated`): the last
/// reported usage the count starts from and the estimate's calibration.
#[derive(Debug, Clone, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct SessionCounting {
    /// The view's last message when it was written (`null`: none).
    #[tsify(type = "string | null")]
    pub after: Option<String>,
    /// Reported tokens between consecutive reports, and their estimate.
    pub calibration: CountCalibration,
    /// The last reported usage, or `null` when the count was an estimate.
    #[tsify(type = "CountAnchor | null")]
    pub anchor: Option<CountAnchor>,
    /// What the view predicted the server clears by context editing, or
    /// `null` before the cache-aware microcompact first fired.
    #[tsify(type = "CountServerCleared | null")]
    pub server_cleared: Option<CountServerCleared>,
}

/// The results the server is predicted to clear (context editing): the
/// oldest eligible ones up to `through`.
#[derive(Debug, Clone, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct CountServerCleared {
    /// The `tool_use_id` of the newest eligible call whose result is cleared.
    pub through: String,
    /// Eligible tool calls in the view when the microcompact last fired.
    pub fired_at: f64,
}

/// What reported usage has said of the estimator.
#[derive(Debug, Clone, Serialize, Deserialize, Tsify)]
pub struct CountCalibration {
    /// Reported tokens between consecutive reports.
    pub real: f64,
    /// Estimated tokens of the same messages.
    pub estimated: f64,
}

/// The last reported usage, placed by uuid.
#[derive(Debug, Clone, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct CountAnchor {
    /// The message at the usage's position (`null`: after the view's last).
    #[tsify(type = "string | null")]
    pub uuid: Option<String>,
    /// The tokens reported.
    pub reported: f64,
    /// The reply's counted output minus its content's estimate.
    pub reply_delta: f64,
    /// What the view freed (negative) or added before it since.
    pub prefix_delta: f64,
}

/// A message of a resumed session: as `engine.view()` gives messages, and
/// whether it is the compaction summary the view starts with.
#[derive(Debug, Clone, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct SessionMessage {
    /// Its uuid in the file.
    pub uuid: String,
    /// Who wrote it.
    #[tsify(type = "\"user\" | \"assistant\"")]
    pub role: String,
    /// A string or API content blocks.
    #[tsify(type = "string | ContentBlock[]")]
    pub content: compaction_core::message::Content,
    /// When it was written (RFC 3339), if known.
    #[tsify(optional)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<String>,
    /// The API usage of the request that produced it, if known.
    #[tsify(optional)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage: Option<super::ReportedUsage>,
    /// The summary a compaction left (the view's first message).
    pub is_compact_summary: bool,
}

/// What `engine.loadSession` loaded: the file's report, and the messages
/// now in the engine's view.
#[cfg(feature = "engine")]
#[derive(Debug, Clone, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct SessionLoad {
    /// The file's report (passed through as it came).
    #[tsify(type = "ImportReport")]
    pub report: compaction_core::message::Json,
    /// The boundary the resumed view starts after, or `null`.
    #[tsify(type = "string | null")]
    pub boundary: Option<String>,
    /// Messages appended to the engine.
    pub appended: f64,
}
