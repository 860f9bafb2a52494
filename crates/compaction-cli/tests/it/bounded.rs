//! Inputs that never end and walks that never finish (issue 27): a session
//! or history named on the command line is read only when it is a regular
//! file, and `fidelity DIR` never follows a directory link, so each command
//! finishes at once, whatever it is given.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test helpers may fail loudly

use std::time::Duration;

use crate::common::{compaction_within, fifo, temp_dir};

const LIMIT: Duration = Duration::from_secs(20);

/// `/dev/zero` (never ends), a fifo (an open blocks until a writer comes)
/// and a directory, through every flag that names a file to read: each
/// refused at once, exit 1, with the path and why on stderr.
#[test]
fn files_that_are_not_regular_are_refused_at_once() {
    let dir = temp_dir("not-regular");
    let pipe = dir.join("pipe.jsonl");
    fifo(&pipe);
    let folder = dir.join("folder.jsonl");
    std::fs::create_dir(&folder).unwrap();
    for path in ["/dev/zero", pipe.to_str().unwrap(), folder.to_str().unwrap()] {
        let runs: [&[&str]; 8] = [
            &["inspect", path],
            &["resume", path],
            &["replay", path],
            &["plan", "--session", path],
            &["compact", "--session", path],
            &["plan", "--messages", path],
            &["plan", "--format", "openai-chat", "--messages", path],
            &["parse-summary", path],
        ];
        for args in runs {
            let started = std::time::Instant::now();
            let out = compaction_within(None, &[], args, LIMIT);
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
            assert!(out.stdout.is_empty(), "{args:?}");
            assert!(
                stderr.contains(path) && stderr.contains("not a regular file"),
                "{args:?}: {stderr}"
            );
            assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
            assert!(
                started.elapsed() < Duration::from_secs(5),
                "{args:?}: {:?}",
                started.elapsed()
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A folder holding one session file and two directory links back up the
/// tree (a loop through the parent, one through itself): the walk scores
/// the file once and finishes. It scored one such file 41 times, and two
/// loops did not finish in 60 s.
#[test]
fn fidelity_never_follows_a_directory_link() {
    let dir = temp_dir("fidelity-loops");
    let fixture = format!(
        "{}/tests/fixtures/sessions/entireio__cli__198393f2-22db-477b-ac77-1825bea883ae.jsonl",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::copy(&fixture, dir.join("one.jsonl")).unwrap();
    let sub = dir.join("sub");
    std::fs::create_dir(&sub).unwrap();
    std::os::unix::fs::symlink("..", sub.join("up")).unwrap();
    std::os::unix::fs::symlink(".", sub.join("here")).unwrap();
    std::os::unix::fs::symlink(&dir, dir.join("root")).unwrap();
    let out = compaction_within(None, &[], &["fidelity", "--json", dir.to_str().unwrap()], LIMIT);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let files: Vec<&str> = (v["files"].as_array().unwrap().iter())
        .map(|f| f["file"].as_str().unwrap())
        .collect();
    assert_eq!(files, ["one.jsonl"]);
    let _ = std::fs::remove_dir_all(&dir);
}
