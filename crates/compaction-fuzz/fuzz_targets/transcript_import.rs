//! Fuzzes the streaming JSONL transcript importer (`transcript::Importer`): arbitrary bytes fed in arbitrary chunk sizes, then `finish`; the result must equal the one-shot `transcript::import` of the same bytes, resume/eras/inspection must not panic, and the resumed view must be pairing-legal.
#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use compaction_core::groups::pairing_is_legal;
use compaction_core::transcript::{import, Importer};
use libfuzzer_sys::fuzz_target;

#[derive(Debug)]
struct Input {
    chunks: Vec<u16>,
    bytes: Vec<u8>,
}

impl<'a> Arbitrary<'a> for Input {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        let n = u.int_in_range(0..=16u8)?;
        let mut chunks = Vec::with_capacity(usize::from(n));
        for _ in 0..n {
            chunks.push(u.arbitrary()?);
        }
        Ok(Input {
            chunks,
            bytes: u.bytes(u.len())?.to_vec(),
        })
    }
}

fuzz_target!(|input: Input| {
    let mut importer = Importer::new();
    let mut rest: &[u8] = &input.bytes;
    let mut sizes = input.chunks.iter().copied().cycle();
    while !rest.is_empty() {
        let size = match sizes.next() {
            Some(s) => usize::from(s % 97),
            None => rest.len(),
        };
        let size = size.min(rest.len());
        let (chunk, tail) = rest.split_at(size);
        importer.feed(chunk);
        rest = tail;
        if size == 0 && input.chunks.iter().all(|&c| c % 97 == 0) {
            importer.feed(rest);
            rest = &[];
        }
    }
    assert_eq!(importer.bytes_fed(), input.bytes.len() as u64);
    let streamed = importer.finish();
    let whole = import(&input.bytes);
    // The public, deterministic parts (the chain graph holds a HashMap,
    // whose Debug order differs between two runs).
    let public = |t: &compaction_core::transcript::Transcript| {
        format!(
            "{:?}",
            (&t.messages, &t.boundaries, &t.problems, &t.unknown_records, &t.header, &t.versions, &t.sessions, t.leaf())
        )
    };
    assert_eq!(public(&streamed), public(&whole), "chunked import differs from whole import");
    assert_eq!(
        serde_json::to_string(&streamed.inspection()).ok(),
        serde_json::to_string(&whole.inspection()).ok(),
        "chunked import inspects differently"
    );
    // Everything a host does with an imported file.
    let resumed = streamed.resume();
    let view: Vec<_> = resumed.messages.iter().map(|m| (*m.message).clone()).collect();
    if let Err(why) = pairing_is_legal(&view) {
        panic!("resumed view is not pairing-legal: {why}");
    }
    let _ = streamed.eras();
    let inspection = streamed.inspection();
    let _ = serde_json::to_string(&inspection);
    let _ = serde_json::to_string(&resumed);
    let _ = streamed.leaf().map(|leaf| streamed.message(leaf));
});
