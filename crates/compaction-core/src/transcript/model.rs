//! What an import keeps: merged messages, boundaries, the record graph, the
//! problems; and the plain data it reports (inspection, eras).

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::hash::HashMap;

use serde::Serialize;

use super::chain::Graph;
use super::Problem;
use crate::message::{Message, Uuid};
use crate::time::Timestamp;

/// A record's fields the importer does not interpret, each as its JSON
/// text, in order.
pub type Fields = crate::message::Extra;

/// One message of the session: one `user` line, or every line of one API
/// response (same `message.id`) merged.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ImportedMessage {
    /// The message in the engine's model. Its uuid is the first line's;
    /// its usage is the largest snapshot among the lines (counted once per
    /// request, as ccusage does). Shared: a timeline and the engines that
    /// replay it hold the same message, not a copy
    /// ([`Arc::make_mut`] to change it).
    #[serde(flatten)]
    pub message: Arc<Message>,
    /// The 1-based line of the first record.
    pub line: u32,
    /// The first line's `parentUuid`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent_uuid: Option<Uuid>,
    /// Uuids of the later lines merged into this message, in file order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub merged_uuids: Vec<Uuid>,
    /// The API response id (`message.id`), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message_id: Option<String>,
    /// The API request id (`requestId`), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
    /// `isMeta`: injected content hidden in the UI (caveats, hook
    /// reminders); it still reaches the model.
    #[serde(skip_serializing_if = "is_false")]
    pub is_meta: bool,
    /// `isCompactSummary`: the summary written after a boundary.
    #[serde(skip_serializing_if = "is_false")]
    pub is_compact_summary: bool,
    /// `isApiErrorMessage`: a synthetic assistant error message.
    #[serde(skip_serializing_if = "is_false")]
    pub is_api_error_message: bool,
    /// In a resumed view: a message preserved across the boundary (its
    /// usage counters are zeroed, SPEC R7.6).
    #[serde(skip_serializing_if = "is_false")]
    pub preserved: bool,
    /// The first line's other top-level fields (`cwd`, `sessionId`,
    /// `version`, `gitBranch`…; not `toolUseResult`), verbatim, for export. Not
    /// serialized.
    #[serde(skip)]
    pub extra: super::KeptFields,
    /// The first line's other `message` fields (`model`, `stop_reason`, the
    /// raw `usage`…), verbatim, for export. Not serialized.
    #[serde(skip)]
    pub message_extra: super::KeptFields,
}

impl ImportedMessage {
    /// The message to change: copied first if it is shared. One function,
    /// not inlined at each caller (the session module is built for speed,
    /// and counts its size).
    #[inline(never)]
    pub(crate) fn message_mut(&mut self) -> &mut Message {
        Arc::make_mut(&mut self.message)
    }
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// `compactMetadata` of a boundary, every variant read (SPEC R7.9).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CompactMetadata {
    /// `"auto"` or `"manual"`, as written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trigger: Option<String>,
    /// Context size just before compaction.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pre_tokens: Option<u64>,
    /// Context size just after (2.1.122 on).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub post_tokens: Option<u64>,
    /// How long the compaction took, in milliseconds (2.1.122 on).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    /// Tokens dropped by all compactions so far (SPEC R7.9).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cumulative_dropped_tokens: Option<u64>,
    /// The deferred tools the client had discovered before compacting, by
    /// name (2.1.81 on).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pre_compact_discovered_tools: Option<Vec<String>>,
    /// `preservedSegment {headUuid, anchorUuid, tailUuid}` (newer clients).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preserved_segment: Option<PreservedSegment>,
    /// `preservedMessages`: `[uuid…]` (SPEC R7.9) or `{anchorUuid, uuids,
    /// allUuids}` (2.1.170).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preserved_messages: Option<PreservedMessages>,
    /// Every other field, verbatim.
    #[serde(flatten)]
    pub extra: Fields,
}

/// A run of messages kept across a compaction, named by its ends: walk
/// `parentUuid` from the tail back to the head.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PreservedSegment {
    /// The first preserved message.
    pub head_uuid: Option<Uuid>,
    /// The record the segment attaches after (the summary, or the boundary).
    pub anchor_uuid: Option<Uuid>,
    /// The last preserved message.
    pub tail_uuid: Option<Uuid>,
}

/// Messages kept across a compaction, listed by uuid.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PreservedMessages {
    /// The record they attach after, when the file says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub anchor_uuid: Option<Uuid>,
    /// The preserved messages' uuids, in order: what a resume relinks
    /// after the summary (`uuids[0]` after the anchor, each after the one
    /// before).
    pub uuids: Vec<Uuid>,
    /// `allUuids` (2.1.170): the wider list of every kept record, when the
    /// file gives it; a resume falls back to it when `uuids` is empty.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub all_uuids: Option<Vec<Uuid>>,
}

/// A `compact_boundary` record.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Boundary {
    /// The boundary's uuid.
    pub uuid: Uuid,
    /// Its 1-based line.
    pub line: u32,
    /// When it was written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<Timestamp>,
    /// The record the boundary logically follows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub logical_parent_uuid: Option<Uuid>,
    /// Whether `logicalParentUuid` names a record in this file.
    pub logical_parent_found: bool,
    /// `compactMetadata`, if present.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<CompactMetadata>,
    /// The uuid of its `isCompactSummary` message, if found.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summary_uuid: Option<Uuid>,
    /// Other top-level fields (`content`, `level`, `cwd`…), verbatim. Not
    /// serialized.
    #[serde(skip)]
    pub extra: Fields,
}

impl Boundary {
    /// `compactMetadata.trigger`.
    pub fn trigger(&self) -> Option<&str> {
        self.metadata.as_ref()?.trigger.as_deref()
    }

    /// `compactMetadata.preTokens`.
    pub fn pre_tokens(&self) -> Option<u64> {
        self.metadata.as_ref()?.pre_tokens
    }
}

/// A `microcompact_boundary` record: the client cleared these tool
/// results (their text stays in the file; a replay clears them itself).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Microcompaction {
    /// The record's uuid.
    pub uuid: Uuid,
    /// Its 1-based line.
    pub line: u32,
    /// `microcompactMetadata.trigger`, as written.
    pub trigger: Option<String>,
    /// `microcompactMetadata.preTokens`, as written.
    pub pre_tokens: Option<u64>,
    /// `microcompactMetadata.tokensSaved`, as written.
    pub tokens_saved: Option<u64>,
    /// `microcompactMetadata.compactedToolIds`: the cleared results'
    /// `tool_use_id`s.
    pub tool_ids: Vec<String>,
}

/// A boundary as `inspect` lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BoundarySummary {
    /// The boundary's uuid.
    pub uuid: Uuid,
    /// `"auto"` or `"manual"`.
    pub trigger: Option<String>,
    /// Context size just before compaction.
    pub pre_tokens: Option<u64>,
    /// Context size just after, when the file says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub post_tokens: Option<u64>,
    /// Its 1-based line.
    pub line: u32,
    /// Whether `logicalParentUuid` names a record in this file.
    pub logical_parent_found: bool,
    /// The uuid of its summary message, if found.
    pub summary_uuid: Option<Uuid>,
}

impl From<&Boundary> for BoundarySummary {
    fn from(b: &Boundary) -> Self {
        BoundarySummary {
            uuid: b.uuid.clone(),
            trigger: b.trigger().map(str::to_owned),
            pre_tokens: b.pre_tokens(),
            post_tokens: b.metadata.as_ref().and_then(|m| m.post_tokens),
            line: b.line,
            logical_parent_found: b.logical_parent_found,
            summary_uuid: b.summary_uuid.clone(),
        }
    }
}

/// What `inspect` reports about a session file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Inspection {
    /// Lines read, blank and malformed ones included.
    pub lines: u32,
    /// Records: lines that parsed as JSON objects.
    pub records: u32,
    /// Records counted by `type` (`system/<subtype>` for system records).
    pub record_types: BTreeMap<String, u32>,
    /// Records with `isSidechain: true` (counted, content not kept, but in
    /// a subagent's own transcript).
    pub sidechain_records: u32,
    /// A subagent's own transcript (`agent-*.jsonl`): its sidechain records
    /// are read as its conversation, with its own boundaries.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub subagent: bool,
    /// Main-conversation messages, after merging split responses.
    pub messages: u32,
    /// `tool_use` blocks in those messages.
    pub tool_uses: u32,
    /// `tool_result` blocks in those messages.
    pub tool_results: u32,
    /// Unpaired `tool_use` and `tool_result` blocks, file-wide.
    pub orphans: u32,
    /// Compact boundaries, in file order.
    pub boundaries: Vec<BoundarySummary>,
    /// CLI versions seen (`version`), in order of first appearance.
    pub versions: Vec<String>,
    /// Session ids seen (`sessionId`), in order of first appearance: more
    /// than one means a resumed file that copies older records.
    pub sessions: Vec<String>,
    /// The uuid the chain is walked from.
    pub leaf: Option<Uuid>,
    /// Messages in the resumed view.
    pub active_messages: u32,
    /// Everything tolerated, in line order.
    pub problems: Vec<Problem>,
}

/// One stretch of the logical history: what the model saw between two
/// compactions. The first era has no boundary; each later one starts with
/// its boundary's summary and preserved messages.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Era {
    /// Index into [`Transcript::boundaries`] of the boundary that opens
    /// this era.
    pub boundary: Option<usize>,
    /// Indexes into [`Transcript::messages`], in view order.
    pub messages: Vec<usize>,
    /// How many of `messages`, right after the summary (and the `context`
    /// ones), are preserved ones.
    pub preserved: usize,
    /// How many re-attached context records (`isMeta`) come between the
    /// summary and the preserved messages: none, unless the preserved run
    /// ends on a `tool_use` they would otherwise separate from its result.
    #[serde(skip)]
    pub context: usize,
}

/// A session file, imported.
#[derive(Debug, Clone, Default)]
pub struct Transcript {
    /// Main-conversation messages in file order of their first line.
    pub messages: Vec<ImportedMessage>,
    /// Compact boundaries in file order.
    pub boundaries: Vec<Boundary>,
    /// `microcompact_boundary` records in file order.
    pub microcompactions: Vec<Microcompaction>,
    /// Everything tolerated, in line order.
    pub problems: Vec<Problem>,
    /// Records of unknown type (or none), verbatim, with their line.
    pub unknown_records: Vec<(u32, Fields)>,
    /// The header line of a normalized export, verbatim.
    pub header: Option<Fields>,
    /// CLI versions seen, in order of first appearance.
    pub versions: Vec<String>,
    /// Session ids seen, in order of first appearance.
    pub sessions: Vec<String>,
    /// The record uuid of the highest `m<n>` (the uuids an engine makes,
    /// [`UuidMaker`](super::log::UuidMaker)) anywhere in the file, on the
    /// resumed view or not: an engine that resumes the file follows it
    /// ([`UuidMaker::follow`](super::log::UuidMaker::follow)), so the uuids
    /// it makes are new to the file.
    pub last_made_uuid: Option<Uuid>,
    pub(crate) counts: Counts,
    pub(crate) graph: Graph,
    /// Each main-conversation `progress` record's line and
    /// `parentToolUseID`, in file order (see [`Transcript::lacks`]).
    pub(crate) progress_calls: Vec<(u32, String)>,
    /// Whether the file is a subagent's own transcript (`agent-*.jsonl`,
    /// every record `isSidechain: true` with an `agentId`): its sidechain
    /// records are read as its conversation.
    pub subagent: bool,
    /// Each `message_pinned` record's message and whether it pinned it, in
    /// file order (extension, SPEC R11.6).
    pub(crate) pins: Vec<(Uuid, bool)>,
    /// The last `count_calibrated` record's state, in file order
    /// (extension, SPEC R11.6).
    pub(crate) counted: Option<super::counted::SavedCounting>,
    /// The line of that record.
    pub(crate) counted_line: u32,
}

/// Plain counters gathered while reading.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Counts {
    pub lines: u32,
    pub records: u32,
    pub record_types: BTreeMap<String, u32>,
    pub sidechain_records: u32,
}

impl Transcript {
    /// The message with this uuid (its own or a merged line's).
    pub fn message(&self, uuid: &Uuid) -> Option<&ImportedMessage> {
        self.graph.message_index(uuid).and_then(|i| self.messages.get(i))
    }

    /// The uuid of the record the chain is walked from (see the module
    /// docs for the rule).
    pub fn leaf(&self) -> Option<&Uuid> {
        self.graph
            .leaf
            .and_then(|i| self.graph.nodes.get(i))
            .map(|n| &n.uuid)
    }

    /// `tool_use` blocks, `tool_result` blocks, and the unpaired ones among
    /// them, over the main-conversation messages.
    pub fn tool_counts(&self) -> (u32, u32, u32) {
        let mut uses: HashMap<&str, u32> = HashMap::default();
        let mut results: HashMap<&str, u32> = HashMap::default();
        for m in &self.messages {
            for id in m.message.tool_use_ids() {
                *uses.entry(id).or_default() += 1;
            }
            for id in m.message.tool_result_ids() {
                *results.entry(id).or_default() += 1;
            }
        }
        let total = |map: &HashMap<&str, u32>| map.values().sum::<u32>();
        let unpaired_uses: u32 = uses
            .iter()
            .filter(|(id, _)| !results.contains_key(*id))
            .map(|(_, n)| n)
            .sum();
        let unpaired_results: u32 = results
            .iter()
            .filter(|(id, _)| !uses.contains_key(*id))
            .map(|(_, n)| n)
            .sum();
        (total(&uses), total(&results), unpaired_uses + unpaired_results)
    }

    /// The summary `inspect` prints.
    pub fn inspection(&self) -> Inspection {
        let (tool_uses, tool_results, orphans) = self.tool_counts();
        Inspection {
            lines: self.counts.lines,
            records: self.counts.records,
            record_types: self.counts.record_types.clone(),
            sidechain_records: self.counts.sidechain_records,
            subagent: self.subagent,
            messages: count(self.messages.len()),
            tool_uses,
            tool_results,
            orphans,
            boundaries: self.boundaries.iter().map(BoundarySummary::from).collect(),
            versions: self.versions.clone(),
            sessions: self.sessions.clone(),
            leaf: self.leaf().cloned(),
            active_messages: count(self.active_len()),
            problems: self.problems.clone(),
        }
    }
}

/// A count as `u32` (saturating: counts cross to JS as numbers).
pub(crate) fn count(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}
