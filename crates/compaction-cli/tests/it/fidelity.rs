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
        reasons[1].as_str().unwrap().contains("window 200000"),
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
        // The prediction is at the last record before the boundary.
        assert_eq!(b["predicted"][1], 0, "{f}");
    }
    assert!(v["definition"].as_str().unwrap().contains("12 messages"));
    // The table says the same.
    let table = ok_text(&compaction(&["fidelity", &sessions()]));
    assert!(
        table.contains("total           hits 2/2 (100.0 %), misses 0, false positives 0"),
        "{table}"
    );
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
fn fidelity_of_a_missing_folder_is_an_error() {
    let out = compaction(&["fidelity", "/no/such/folder"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("/no/such/folder"));
}
