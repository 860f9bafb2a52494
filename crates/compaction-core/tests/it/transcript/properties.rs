//! Properties: chunk-size independence, no panic on any bytes, and a
//! pairing-legal resumed view for any generated record graph.

use proptest::prelude::*;
use serde_json::{json, Value};

use super::*;

fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(64);
    ProptestConfig::with_cases(cases)
}

fn import_in_chunks(bytes: &[u8], sizes: &[usize]) -> Transcript {
    let mut importer = Importer::new();
    let (mut at, mut i) = (0, 0);
    while at < bytes.len() {
        let n = sizes[i % sizes.len()].min(bytes.len() - at);
        importer.feed(&bytes[at..at + n]);
        at += n;
        i += 1;
    }
    importer.finish()
}

fn same(a: &Transcript, b: &Transcript) {
    assert_eq!(a.inspection(), b.inspection());
    assert_eq!(a.messages, b.messages);
    assert_eq!(a.resume(), b.resume());
}

#[test]
fn one_byte_chunks_read_the_largest_fixture_alike() {
    let bytes = fixture(SPOTTER);
    same(&import(&bytes), &import_in_chunks(&bytes, &[1]));
}

/// Text fed as text ([`Importer::feed_text`]: lines not checked for UTF-8
/// again) reads as the same bytes fed as bytes: every fixture, whole and
/// in chunks, and lines with a BOM, `\r\n`, lone surrogates, a record
/// whose `message` comes before its `type`, and bad lines.
#[test]
fn text_reads_like_its_bytes() {
    let mut files: Vec<Vec<u8>> = std::fs::read_dir(FIXTURES)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .map(|p| std::fs::read(p).unwrap())
        .collect();
    let mut odd = b"\xEF\xBB\xBF".to_vec();
    odd.extend_from_slice(&jsonl(&[
        user("u1", None, json!("caf\u{e9} \u{1f600}")),
        json!({"message": {"role": "user", "content": "late type"}, "type": "user", "uuid": "u2", "parentUuid": "u1"}),
        json!({"type": "user", "message": {"role": "user", "content": "two types"}, "type": "weird", "uuid": "u3"}),
        json!({"type": "user", "message": {"role": "user", "content": 5}, "uuid": "u4"}),
        json!({"type": "user", "message": {"role": "user"}, "uuid": "u5"}),
    ]));
    odd.extend_from_slice(b"{\"type\":\"user\",\"uuid\":\"u6\",\"message\":{\"role\":\"user\",\"content\":\"cut \\ud83d\"}}\r\n");
    odd.extend_from_slice(
        b"{\"type\":\"user\",\"uuid\":\"u7\",\"message\":{\"role\":\"user\",\"content\":\"no\"\n",
    );
    odd.extend_from_slice(
        b"{\"type\":\"user\",\"uuid\":\"u8\",\"message\":{\"role\":\"user\",\"content\":\"end\"}}",
    );
    files.push(odd);
    for bytes in files {
        let text = std::str::from_utf8(&bytes).unwrap();
        let mut whole = Importer::new();
        whole.feed_text(text);
        let whole = whole.finish();
        same(&import(&bytes), &whole);
        assert_eq!(import(&bytes).problems, whole.problems);
        // Chunks cut on char boundaries, some lines across two of them.
        let mut chunked = Importer::new();
        let mut at = 0;
        for n in [1, 7, 4096, 100_000].into_iter().cycle() {
            if at >= text.len() {
                break;
            }
            let mut to = (at + n).min(text.len());
            while !text.is_char_boundary(to) {
                to += 1;
            }
            chunked.feed_text(&text[at..to]);
            at = to;
        }
        same(&whole, &chunked.finish());
    }
}

/// One generated record: a kind, a parent choice, a tool id choice.
fn record(i: usize, (kind, parent, id): (u8, u8, u8)) -> Value {
    let uuid = format!("r{i}");
    let parent = match parent % 8 {
        0 => None,
        7 => Some("ghost".to_owned()),
        p => Some(format!("r{}", i.saturating_sub(usize::from(p)))),
    };
    let p = parent.as_deref();
    let tool = format!("t{}", id % 4);
    match kind % 8 {
        0 => user(&uuid, p, json!("prompt")),
        1 => assistant(
            &uuid,
            p,
            &format!("msg_{}", id % 6),
            tool_use(&tool),
            (u64::from(id), 1),
        ),
        2 => user(&uuid, p, tool_result(&tool)),
        3 => boundary(
            &uuid,
            &format!("r{}", i / 2),
            json!({"trigger": "auto", "preTokens": 10}),
        ),
        4 => summary(&uuid, &format!("r{}", i.saturating_sub(1))),
        5 => json!({"type": "progress", "uuid": uuid, "parentUuid": p}),
        6 => assistant(
            &uuid,
            p,
            &format!("msg_{i}"),
            json!({"type": "text", "text": "ok"}),
            (1, 1),
        ),
        _ => boundary(
            &uuid,
            "r0",
            json!({"trigger": "manual", "preTokens": 5,
            "preservedSegment": {"headUuid": format!("r{}", id % 8), "tailUuid": format!("r{}", i.saturating_sub(1))}}),
        ),
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn chunk_size_does_not_matter(sizes in prop::collection::vec(1usize..5000, 1..16), pick in 0usize..2) {
        let bytes = fixture([FASTHOOKS, STATUS_LINE][pick]);
        same(&import(&bytes), &import_in_chunks(&bytes, &sizes));
    }

    #[test]
    fn any_bytes_import_without_panic(bytes in prop::collection::vec(any::<u8>(), 0..2000), sizes in prop::collection::vec(1usize..64, 1..8)) {
        let t = import_in_chunks(&bytes, &sizes);
        let _ = t.inspection();
        view_is_legal(&t);
        let _ = t.eras();
    }

    #[test]
    fn a_cut_or_damaged_fixture_imports_without_panic(cut in 0usize..70_305, flip in 0usize..70_305, byte in any::<u8>()) {
        let mut bytes = fixture(FASTHOOKS);
        let flip = flip % bytes.len();
        bytes[flip] = byte;
        bytes.truncate(cut);
        let t = import(&bytes);
        view_is_legal(&t);
    }

    #[test]
    fn any_record_graph_resumes_to_a_legal_view(records in prop::collection::vec((any::<u8>(), any::<u8>(), any::<u8>()), 0..60)) {
        let lines: Vec<Value> = records.into_iter().enumerate().map(|(i, r)| record(i, r)).collect();
        let t = import(&jsonl(&lines));
        let view = t.resume();
        prop_assert_eq!(t.active_len(), view.messages.len());
        let messages: Vec<Message> = view.messages.iter().map(|m| (*m.message).clone()).collect();
        prop_assert!(pairing_is_legal(&messages).is_ok(), "{:?}", pairing_is_legal(&messages));
        let answered: Vec<Message> = t.resume_with(Unanswered::ErrorResult).messages.into_iter().map(|m| std::sync::Arc::unwrap_or_clone(m.message)).collect();
        prop_assert!(pairing_is_legal(&answered).is_ok(), "{:?}", pairing_is_legal(&answered));
        prop_assert!(every_call_answered(&answered).is_ok(), "{:?}", every_call_answered(&answered));
        prop_assert!(every_call_answered(&messages).is_ok(), "{:?}", every_call_answered(&messages));
        if let Some(first) = view.messages.first() {
            if view.boundary.as_ref().is_some_and(|b| b.summary_uuid.is_some()) {
                prop_assert!(first.is_compact_summary);
            }
        }
        let eras = t.eras();
        prop_assert!(eras.len() <= t.boundaries.len() + 1);
    }
}
