//! The newest boundaries (issue 29): a 2.1.1xx boundary with `postTokens`
//! and `durationMs` (a real excerpt: lines 517 – 537 of a 2.1.126 session,
//! `SOURCES.tsv`), and a 2.1.170-style partial compaction with
//! `preservedSegment` and `preservedMessages {anchorUuid, uuids, allUuids}`
//! (hand-made: neither calibration set holds one). Every field is typed
//! or kept, and the metadata reads back as the file wrote it.

use crate::common::{fixture, FIXTURES};
use compaction_core::message::Uuid;
use compaction_core::transcript::{import, ProblemKind, Transcript};
use serde_json::Value;

const V2_1_126: &str = "Eduardodmb__ClaudeWork__7ef88c1a-6238-45b9-8285-0c4e268276c9.lines-517-537.jsonl";
const V2_1_170: &str = "hand__preserved-segment-2.1.170.jsonl";

/// The `compactMetadata` object of the file's `line`, as written.
fn written_metadata(name: &str, line: u32) -> Value {
    let text = std::fs::read_to_string(format!("{FIXTURES}/{name}")).unwrap();
    let record: Value = serde_json::from_str(text.lines().nth(line as usize - 1).unwrap()).unwrap();
    record["compactMetadata"].clone()
}

fn uuid(n: u64) -> Uuid {
    Uuid::from(format!("00000000-0000-4000-8000-{n:012}").as_str())
}

fn one_boundary(t: &Transcript) -> &compaction_core::transcript::Boundary {
    assert_eq!(t.boundaries.len(), 1, "{:?}", t.boundaries);
    &t.boundaries[0]
}

/// The 2.1.170 file's resume: its summary, the three preserved lines (two
/// messages), then the two messages written after the compaction, with
/// every preserved uuid found.
fn resumes_to_the_summary_then_the_preserved(t: &Transcript) {
    assert!(
        !t.problems
            .iter()
            .any(|p| p.kind == ProblemKind::DanglingPreserved),
        "{:?}",
        t.problems
    );
    let uuids: Vec<Uuid> = t
        .resume()
        .messages
        .iter()
        .map(|m| m.message.uuid.clone())
        .collect();
    assert_eq!(uuids, [uuid(10), uuid(5), uuid(6), uuid(11), uuid(12)]);
}

#[test]
fn a_2_1_126_boundary_reads_post_tokens_and_duration_typed() {
    let t = import(&fixture(V2_1_126));
    let b = one_boundary(&t);
    assert_eq!(b.line, 7);
    let meta = b.metadata.as_ref().unwrap();
    assert_eq!(meta.trigger.as_deref(), Some("auto"));
    assert_eq!(meta.pre_tokens, Some(168_552));
    assert_eq!(meta.post_tokens, Some(9_636));
    assert_eq!(meta.duration_ms, Some(91_236));
    assert!(meta.extra.is_empty(), "every field typed: {:?}", meta.extra);
    // Read back, the metadata is what the file wrote.
    assert_eq!(serde_json::to_value(meta).unwrap(), written_metadata(V2_1_126, 7));
    // The resume starts with the boundary's summary, then what followed
    // (the re-attached files are attachments, not messages).
    let view = t.resume();
    assert_eq!(view.boundary.as_ref().map(|b| b.line), Some(7));
    let first = &view.messages[0];
    assert!(first.is_compact_summary);
    assert_eq!(
        first.message.uuid.as_str(),
        "df1b36d8-2158-4dcc-a882-00ab448352b9"
    );
    let rest: Vec<&str> = view.messages[1..]
        .iter()
        .map(|m| m.message.uuid.as_str())
        .collect();
    assert_eq!(
        rest,
        [
            "9cd69c9b-2627-4ba3-8ee8-f186a295e48d",
            "e57cfd06-ae46-4036-bb2e-66b0a594c61e"
        ]
    );
}

#[test]
fn a_2_1_170_partial_boundary_resumes_to_the_summary_then_exactly_the_preserved_messages() {
    let t = import(&fixture(V2_1_170));
    let b = one_boundary(&t);
    let meta = b.metadata.as_ref().unwrap();
    assert_eq!(meta.pre_tokens, Some(1_000_958));
    assert_eq!(meta.post_tokens, Some(41_227));
    assert_eq!(meta.duration_ms, Some(96_412));
    assert_eq!(
        meta.pre_compact_discovered_tools.as_deref(),
        Some(&["WebFetch".to_owned(), "NotebookEdit".to_owned()][..])
    );
    let segment = meta.preserved_segment.as_ref().unwrap();
    assert_eq!(segment.head_uuid, Some(uuid(5)));
    assert_eq!(segment.anchor_uuid, Some(uuid(10)));
    assert_eq!(segment.tail_uuid, Some(uuid(8)));
    let kept = meta.preserved_messages.as_ref().unwrap();
    assert_eq!(kept.anchor_uuid, Some(uuid(10)));
    assert_eq!(kept.uuids, [uuid(5), uuid(6), uuid(7)]);
    assert_eq!(
        kept.all_uuids.as_deref(),
        Some(&[uuid(5), uuid(6), uuid(7), uuid(8)][..])
    );
    // An unknown field is kept, and the whole reads back as written.
    assert!(meta.extra.get("messagesSummarized").is_some());
    assert_eq!(serde_json::to_value(meta).unwrap(), written_metadata(V2_1_170, 9));
    // The summary, then exactly the preserved uuids (the two lines of
    // msg_03 are one message), then what followed.
    resumes_to_the_summary_then_the_preserved(&t);
    let view = t.resume();
    assert!(view.messages[0].is_compact_summary);
    assert_eq!(view.messages[2].merged_uuids, [uuid(7)]);
    let preserved: Vec<bool> = view.messages.iter().map(|m| m.preserved).collect();
    assert_eq!(preserved, [false, true, true, false, false]);
}

#[test]
fn all_uuids_stand_in_for_uuids_when_a_file_gives_only_them() {
    // The same boundary with `uuids` empty: the wider list names the same
    // messages and a record that is none (the stop hook), which is no
    // problem.
    let text = std::fs::read_to_string(format!("{FIXTURES}/{V2_1_170}")).unwrap();
    let edited = text.replace(
        r#""uuids":["00000000-0000-4000-8000-000000000005","00000000-0000-4000-8000-000000000006","00000000-0000-4000-8000-000000000007"]"#,
        r#""uuids":[]"#,
    );
    assert_ne!(edited, text);
    resumes_to_the_summary_then_the_preserved(&import(edited.as_bytes()));
}
