//! The records a compaction writes (SPEC R7.9), in Claude Code's transcript
//! shape: a `compact_boundary` system record, then the summary as a user
//! record with `isCompactSummary: true`. Written only after the new view is
//! complete (R7.10).

use serde::Serialize;

use crate::message::Uuid;

/// `trigger` of a boundary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Trigger {
    /// `/compact`, by the user (R3.2).
    Manual,
    /// The cascade's Tier 4 (R7).
    Auto,
}

/// `compactMetadata` of a boundary.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CompactMetadata {
    /// Manual or automatic.
    pub trigger: Trigger,
    /// The count before the compaction.
    pub pre_tokens: u64,
    /// The count of the new view (estimated).
    pub post_tokens: u64,
    /// How long the summary call took, in milliseconds, when the host said
    /// (`Answer::Text`'s `duration_ms`; Claude Code 2.1.122 on writes it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    /// Uuids of the messages kept verbatim after the summary.
    pub preserved_messages: Vec<Uuid>,
    /// Tokens dropped by every compaction of the session so far: the sum of
    /// `preTokens − postTokens`.
    pub cumulative_dropped_tokens: u64,
    /// How a session file writes this metadata (the settings' choice); the
    /// outcome's shape is the same for both.
    #[serde(skip)]
    pub shape: RecordShape,
}

/// How a session file's `compact_boundary` writes its `compactMetadata`
/// (`transcript::export` writes it; the importer reads both).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RecordShape {
    /// SPEC R7.9: `trigger`, `preTokens`, `postTokens`, `durationMs` when
    /// known, `preservedMessages` as a list of uuids,
    /// `cumulativeDroppedTokens`.
    #[default]
    Spec,
    /// Claude Code 2.1.170's: `trigger`, `preTokens`, `postTokens`,
    /// `durationMs` when known, then, when messages are kept verbatim,
    /// `preservedSegment {headUuid, anchorUuid, tailUuid}` and
    /// `preservedMessages {anchorUuid, uuids, allUuids}` (the anchor is the
    /// summary message; `allUuids` every record between head and tail).
    #[serde(rename = "client-2.1.170")]
    Client2_1_170,
}

/// The `compact_boundary` record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BoundaryRecord {
    /// Always `system`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// Always `compact_boundary`.
    pub subtype: &'static str,
    /// This record's uuid.
    pub uuid: Uuid,
    /// Always `null`: a boundary starts a new chain.
    pub parent_uuid: Option<Uuid>,
    /// The last record before the boundary.
    pub logical_parent_uuid: Option<Uuid>,
    /// Always `Conversation compacted`.
    pub content: &'static str,
    /// Always `info`.
    pub level: &'static str,
    /// What the compaction did.
    pub compact_metadata: CompactMetadata,
}

/// The summary's user record that follows the boundary.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SummaryRecord {
    /// Always `user`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// This record's uuid (the summary message's).
    pub uuid: Uuid,
    /// The boundary's uuid.
    pub parent_uuid: Uuid,
    /// Always `true`.
    pub is_compact_summary: bool,
    /// `{role: "user", content}`.
    pub message: SummaryPayload,
}

/// The `message` of a [`SummaryRecord`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SummaryPayload {
    /// Always `user`.
    pub role: &'static str,
    /// The summary message's text.
    pub content: String,
}

/// A deterministic uuid-shaped id (RFC 9562 version 8, "custom") derived
/// from `seed`: the engine has no randomness, and the same session compacted
/// the same way gets the same ids.
pub fn derived_uuid(seed: &str) -> Uuid {
    // Two FNV-1a 64-bit hashes with different offsets make 128 bits.
    let fnv = |offset: u64| {
        seed.bytes().fold(offset, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
        })
    };
    let (a, b) = (fnv(0xcbf2_9ce4_8422_2325), fnv(0x6c62_272e_07bb_0142));
    let a = (a & 0xffff_ffff_ffff_0fff) | 0x0000_0000_0000_8000; // version 8
    let b = (b & 0x3fff_ffff_ffff_ffff) | 0x8000_0000_0000_0000; // variant 10
    Uuid(format!(
        "{:08x}-{:04x}-{:04x}-{:04x}-{:012x}",
        a >> 32,
        (a >> 16) & 0xffff,
        a & 0xffff,
        b >> 48,
        b & 0xffff_ffff_ffff
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derived_uuids_are_stable_and_uuid_shaped() {
        let a = derived_uuid("boundary after u42");
        assert_eq!(a, derived_uuid("boundary after u42"));
        assert_ne!(a, derived_uuid("boundary after u43"));
        let s = a.as_str();
        assert_eq!(s.len(), 36);
        assert_eq!(&s[14..15], "8", "version 8: {s}");
        assert!(matches!(&s[19..20], "8" | "9" | "a" | "b"), "variant: {s}");
    }
}
