//! `compaction replay` with no flags and `compaction fidelity` on the
//! in-repo real sessions (`tests/fixtures/sessions/`, pinned in its
//! `SOURCES.tsv`): the settings chosen from each file, and the real
//! automatic compactions each predicts.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test helpers may fail loudly

use std::process::Output;

use crate::common::compaction;

use serde_json::Value;

fn sessions() -> String {
    format!("{}/tests/fixtures/sessions", env!("CARGO_MANIFEST_DIR"))
}

const OLD: &str = "entireio__cli__198393f2-22db-477b-ac77-1825bea883ae.jsonl";
const NEW: &str = "entireio__cli__4f8c1176-7025-4530-a860-c6fc4c63a150.lines-250-362.jsonl";

fn ok_text(out: &Output) -> String {
    assert!(
        out.status.success(),
        "exit {:?}: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn ok(out: &Output) -> Value {
    serde_json::from_str(&ok_text(out)).expect("stdout is JSON")
}

#[test]
fn replay_with_no_flags_chooses_the_settings_from_the_file_and_says_why() {
    let old = ok(&compaction(&["replay", &format!("{}/{OLD}", sessions())]));
    assert_eq!(old["preset"], "client-2.0.76");
    assert_eq!(old["chosen"]["version"], "2.0.76");
    assert_eq!(old["chosen"]["model"], "claude-opus-4-5-20251101");
    assert_eq!(old["lines"]["compact"], 155_000, "a 32,000 reserve");
    let reasons = old["chosen"]["reasons"].as_array().unwrap();
    assert!(reasons[0].as_str().unwrap().contains("155,000"), "{reasons:?}");
    assert!(
        reasons
            .iter()
            .any(|r| r.as_str().unwrap().contains("window 200000")),
        "{reasons:?}"
    );
    // 2.0.76 counts the last response's usage alone, and says so.
    assert_eq!(old["chosen"]["countsAppended"], false);
    assert!(
        reasons
            .iter()
            .any(|r| r.as_str().unwrap().contains("usage alone")),
        "{reasons:?}"
    );

    let new = ok(&compaction(&["replay", &format!("{}/{NEW}", sessions())]));
    assert_eq!(new["preset"], "client-2.1");
    assert_eq!(new["lines"]["compact"], 167_000, "a 20,000 reserve");
    // The real boundary's preTokens, and the replay's count there.
    assert_eq!(new["actual"][0]["preTokens"], 167_361);
    let at_real = new["atReal"][0]["tokens"].as_u64().unwrap();
    assert!(at_real.abs_diff(167_361) < 167_361 * 15 / 1000, "{at_real}");
}

#[test]
fn flags_override_the_choice_and_are_named_in_the_reasons() {
    let v = ok(&compaction(&[
        "replay",
        &format!("{}/{NEW}", sessions()),
        "--preset",
        "client-2.0.76",
        "--window",
        "1000000",
    ]));
    assert_eq!(v["preset"], "client-2.0.76");
    assert_eq!(v["lines"]["window"], 1_000_000);
    assert_eq!(
        v["predicted"],
        Value::Array(vec![]),
        "a 1M window compacts nowhere"
    );
    let reasons: Vec<&str> = v["chosen"]["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_str().unwrap())
        .collect();
    assert!(reasons.contains(&"--preset client-2.0.76"), "{reasons:?}");
    assert!(reasons.contains(&"--window 1000000"), "{reasons:?}");
}

#[test]
fn fidelity_hits_every_real_automatic_compaction_of_the_fixtures() {
    let v = ok(&compaction(&["fidelity", &sessions(), "--json"]));
    assert_eq!(v["total"]["auto"], 2);
    assert_eq!(v["total"]["hits"], 2);
    assert_eq!(v["total"]["misses"], 0);
    assert_eq!(v["total"]["falsePositives"], 0);
    let files = v["files"].as_array().unwrap();
    assert_eq!(files.len(), 2, "every .jsonl under the folder");
    for f in files {
        let b = &f["boundaries"][0];
        assert_eq!(b["hit"], true, "{f}");
        // The prediction is at the last record before the boundary; a
        // 2.0.76 client, which counts the last response's usage alone,
        // at that response, before the tool result after it.
        let before = if f["version"] == "2.0.76" { 1 } else { 0 };
        assert_eq!(b["predicted"][1], before, "{f}");
    }
    assert!(v["definition"].as_str().unwrap().contains("12 messages"));
    // The table says the same.
    let table = ok_text(&compaction(&["fidelity", &sessions()]));
    assert!(
        table.contains("total           hits 2/2 (100.0 %), misses 0, false positives 0"),
        "{table}"
    );
    // Both files are complete: nothing is listed apart.
    assert_eq!(v["total"]["incomplete"], 0);
    assert_eq!(v["incomplete"], Value::Array(vec![]));
    assert!(
        table.contains("the file lacks records at 0 (0 hit); complete 2/2 hit"),
        "{table}"
    );
    assert!(!table.contains("* the file lacks records"), "{table}");
}

#[test]
fn fidelity_under_a_window_the_client_did_not_use_misses_and_says_so() {
    // A 1M-token window compacts nowhere: both real compactions are missed.
    let v = ok(&compaction(&[
        "fidelity",
        &sessions(),
        "--json",
        "--window",
        "1000000",
    ]));
    assert_eq!(v["total"]["hits"], 0);
    assert_eq!(v["total"]["misses"], 2);
    assert_eq!(v["total"]["falsePositives"], 0);
    // The token error is the count at the real boundary, whatever the line.
    let errors = v["total"]["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 2);
    assert!(
        errors.iter().all(|e| e.as_i64().unwrap().abs() < 2_500),
        "{errors:?}"
    );
}

#[test]
fn fidelity_says_per_miss_what_the_replay_counted_and_why_it_did_not_fire() {
    let args = ["fidelity", &sessions(), "--window", "1000000"];
    let v = ok(&compaction(&[&args[..], &["--json"]].concat()));
    for f in v["files"].as_array().unwrap() {
        let b = &f["boundaries"][0];
        // Under a 1M window the count stays under the line, and says so.
        let counted = b["counted"].as_u64().unwrap();
        assert!(counted > 150_000, "{b}");
        assert_eq!(b["missed"]["kind"], "underTheLine", "{b}");
        assert_eq!(b["missed"]["counted"], counted, "{b}");
        assert_eq!(b["missed"]["line"], f["compactLine"], "{b}");
        assert!(b["line"].as_u64().unwrap() > 1, "{b}");
    }
    let table = ok_text(&compaction(&args));
    assert!(
        table.contains("misses: what the replay counted at each and why it did not fire"),
        "{table}"
    );
    assert!(table.contains("under the compact line 967000"), "{table}");
    // Totals per client version range, oldest first.
    let ranges: Vec<&str> = v["byRange"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(ranges, ["2.0.70 – 2.0.76", "2.1.25 – 2.1.74"]);
    assert!(
        table.contains("by client version range:\n2.0.70 – 2.0.76 hits 0/1"),
        "{table}"
    );
    // And per repository (`owner__repo__session.jsonl`).
    assert_eq!(v["byRepository"][0]["name"], "entireio__cli");
    assert_eq!(v["byRepository"][0]["totals"]["misses"], 2);
    assert!(
        table.contains("by repository:\nentireio__cli   hits 0/2"),
        "{table}"
    );
}

#[test]
fn fidelity_of_a_missing_folder_is_an_error() {
    let out = compaction(&["fidelity", "/no/such/folder"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("/no/such/folder"));
}

/// A folder holding one small synthetic session (client 2.1.42): a reply
/// calls a tool whose result the file never recorded, a hook reports on a
/// call in no record, and the automatic boundary's `logicalParentUuid`
/// names a record the file lacks.
fn incomplete_session() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("compaction-fidelity-lacks-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let common = r#""sessionId":"s","version":"2.1.42","timestamp":"2026-02-15T04:49:28.205Z""#;
    let lines = [
        format!(
            r#"{{"type":"user","uuid":"u1","parentUuid":null,{common},"message":{{"role":"user","content":"go"}}}}"#
        ),
        format!(
            r#"{{"type":"assistant","uuid":"a1","parentUuid":"u1",{common},"message":{{"id":"msg_1","model":"claude-opus-4-6","role":"assistant","content":[{{"type":"tool_use","id":"toolu_A","name":"Grep","input":{{"pattern":"x"}}}}],"usage":{{"input_tokens":1,"cache_read_input_tokens":166000,"cache_creation_input_tokens":0,"output_tokens":1}}}}}}"#
        ),
        format!(
            r#"{{"type":"progress","uuid":"p1","parentUuid":"x9",{common},"data":{{"type":"hook_progress","hookEvent":"PostToolUse"}},"parentToolUseID":"toolu_B","toolUseID":"toolu_B"}}"#
        ),
        format!(
            r#"{{"type":"system","subtype":"compact_boundary","uuid":"b1","parentUuid":null,"logicalParentUuid":"x9",{common},"content":"Conversation compacted","compactMetadata":{{"trigger":"auto","preTokens":167400}}}}"#
        ),
        format!(
            r#"{{"type":"user","uuid":"s1","parentUuid":"b1","isCompactSummary":true,{common},"message":{{"role":"user","content":"summary"}}}}"#
        ),
    ];
    std::fs::write(dir.join("lacks.jsonl"), format!("{}\n", lines.join("\n"))).unwrap();
    dir
}

#[test]
fn fidelity_lists_boundaries_where_the_file_lacks_records_with_the_evidence() {
    let dir = incomplete_session();
    let path = dir.to_string_lossy().into_owned();
    let v = ok(&compaction(&["fidelity", &path, "--json"]));
    // The boundary stays in the score: one automatic compaction, missed.
    assert_eq!(v["total"]["auto"], 1);
    assert_eq!(v["total"]["misses"], 1);
    assert_eq!(v["total"]["incomplete"], 1);
    assert_eq!(v["total"]["incompleteHits"], 0);
    let lacks = &v["files"][0]["boundaries"][0]["lacks"];
    assert_eq!(
        lacks,
        &serde_json::json!([
            {"kind": "logicalParentAbsent", "uuid": "x9"},
            {"kind": "unansweredToolUse", "line": 2, "toolUseId": "toolu_A"},
            {"kind": "hookForMissingCall", "line": 3, "toolUseId": "toolu_B"},
        ])
    );
    assert_eq!(v["incomplete"][0]["file"], "lacks.jsonl");
    assert_eq!(v["incomplete"][0]["boundary"]["lacks"], *lacks);
    // The replay's own output names the same evidence at the boundary.
    let replay = ok(&compaction(&["replay", &format!("{path}/lacks.jsonl")]));
    assert_eq!(replay["actual"][0]["lacks"], *lacks);
    // The table marks the boundary and lists it apart, with the evidence.
    let table = ok_text(&compaction(&["fidelity", &path]));
    assert!(table.contains("* the file lacks records"), "{table}");
    assert!(
        table.contains("line 2 calls toolu_A, whose result is in no record"),
        "{table}"
    );
    assert!(
        table.contains("line 3 is a hook for toolu_B, a call in no record"),
        "{table}"
    );
    assert!(
        table
            .contains("the file lacks records at 1 (0 hit); complete 0/0 hit, |token error| median -, p90 -"),
        "{table}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A folder whose sessions never compacted automatically (a short session,
/// a manual `/compact`): nothing to score, so no percentage either — the
/// table said "hits 0/0 (0.0 %)", as if every boundary had been missed.
#[test]
fn fidelity_with_no_automatic_boundary_prints_no_percentage() {
    let dir = std::env::temp_dir().join(format!("compaction-fidelity-none-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let record = |uuid: &str, parent: Option<&str>, role: &str, text: &str| {
        serde_json::json!({
            "type": role, "uuid": uuid, "parentUuid": parent, "sessionId": "s1",
            "timestamp": "2026-11-30T10:00:00Z", "version": "2.1.72",
            "message": {"role": role, "content": text},
        })
        .to_string()
    };
    let file = [
        record("u1", None, "user", "hi"),
        record("a1", Some("u1"), "assistant", "hello"),
    ]
    .join("\n");
    std::fs::write(dir.join("short.jsonl"), file + "\n").unwrap();
    let table = ok_text(&compaction(&["fidelity", dir.to_str().unwrap()]));
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(!table.contains("0.0 %"), "{table}");
    assert!(
        table.contains("total           hits 0/0 (-), misses 0"),
        "{table}"
    );
}

#[test]
fn a_session_copied_into_two_files_is_counted_once() {
    // The same session under two names (a copy that keeps the records'
    // times and the boundary's logicalParentUuid).
    let dir = std::env::temp_dir().join(format!("fidelity-copies-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (from, to) in [
        (OLD, "a__one__s1.jsonl"),
        (OLD, "a__one__s2.jsonl"),
        (NEW, "b__two__s3.jsonl"),
    ] {
        std::fs::copy(format!("{}/{from}", sessions()), dir.join(to)).unwrap();
    }
    let path = dir.display().to_string();
    let v = ok(&compaction(&["fidelity", &path, "--json"]));
    let table = ok_text(&compaction(&["fidelity", &path]));
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(
        (v["total"]["auto"].as_u64(), v["total"]["hits"].as_u64()),
        (Some(2), Some(2))
    );
    let files = v["files"].as_array().unwrap();
    assert_eq!(files[0]["auto"], 1);
    assert_eq!(files[0].get("repeatedBoundaries"), None);
    assert_eq!(
        (files[1]["auto"].as_u64(), files[1]["repeatedBoundaries"].as_u64()),
        (Some(0), Some(1))
    );
    assert!(
        table.contains("a__one__s2.jsonl  1 boundaries and 0 false positives repeated"),
        "{table}"
    );
}
