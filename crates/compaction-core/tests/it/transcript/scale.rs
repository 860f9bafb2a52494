//! Reading stays linear in the file, however many boundaries it holds
//! (issue 27: 40k boundaries took 3.3 s and 80k 31.9 s). Measured as a
//! ratio to the import of the same file on the same machine, so a loaded
//! machine slows both sides alike: the evidence of what a file lacks
//! (`lacks`, which the replay and `inspect` read) once scanned every record
//! for every boundary and took 2-3× the import at 20,000 boundaries; read
//! linearly it takes a small fraction of it.

use std::time::Instant;

use serde_json::json;

use super::*;

/// A session of `n` eras: a prompt, a reply, a prompt, a reply, then a
/// boundary and its summary.
fn compacted_many_times(n: usize) -> Vec<u8> {
    let mut out = Vec::new();
    let mut parent: Option<String> = None;
    for b in 0..n {
        for i in 0..4 {
            let uuid = format!("m{b}-{i}");
            let record = if i % 2 == 0 {
                user(&uuid, parent.as_deref(), json!(format!("prompt {b} {i}")))
            } else {
                let text = json!({"type": "text", "text": format!("reply {b} {i}")});
                assistant(&uuid, parent.as_deref(), &format!("msg{b}-{i}"), text, (10, 5))
            };
            out.extend_from_slice(format!("{record}\n").as_bytes());
            parent = Some(uuid);
        }
        let last = parent.take().unwrap_or_default();
        let record = boundary(
            &format!("b{b}"),
            &last,
            json!({"trigger": "auto", "preTokens": 150_000}),
        );
        out.extend_from_slice(format!("{record}\n").as_bytes());
        let record = summary(&format!("s{b}"), &format!("b{b}"));
        out.extend_from_slice(format!("{record}\n").as_bytes());
        parent = Some(format!("s{b}"));
    }
    out
}

#[test]
fn the_evidence_of_missing_records_is_linear_in_boundaries() {
    let bytes = compacted_many_times(20_000);
    let t0 = Instant::now();
    let t = import(&bytes);
    let import_time = t0.elapsed();
    assert_eq!(t.boundaries.len(), 20_000);
    let t0 = Instant::now();
    let lacks = t.lacks();
    let lacks_time = t0.elapsed();
    assert_eq!(lacks.len(), 20_000);
    assert!(lacks.iter().all(Vec::is_empty), "a complete file lacks nothing");
    assert!(
        lacks_time < import_time,
        "lacks took {lacks_time:?}, the import {import_time:?}: not linear in the file"
    );
}
