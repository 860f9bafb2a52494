//! `compaction inspect`, `resume`, `plan --session` and `replay` on the real session files
//! the engine's tests use, on a damaged file, and on files that are not
//! there: JSON on stdout, errors and progress on stderr, exit status.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test helpers may fail loudly

use crate::common::{compaction, err, ok as json_of};
use std::path::PathBuf;

use serde_json::{json, Value};

const FIXTURES: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../compaction-core/tests/fixtures/transcripts"
);
const SPOTTER: &str = "marot__spotter__4d5611e5-241a-462a-8d15-5122611a9569.jsonl";
const STATUS_LINE: &str = "wpfleger96__claude-code-status-line__session_with_compact.jsonl";
const FASTHOOKS: &str = "oneryalcin__fasthooks__sample_main_transcript.jsonl";
const YEPANYWHERE: &str = "kzahel__yepanywhere__index.jsonl";
const TO_HTML: &str = "ivh__claudecode_to_html__89196983-226d-4cce-917d-f19967122f0b.jsonl";

fn fixture(name: &str) -> String {
    format!("{FIXTURES}/{name}")
}

fn run(command: &str, name: &str) -> Value {
    json_of(&compaction(&[command, &fixture(name)]))
}

/// A file in the temp dir, unique to this test process.
fn temp_file(name: &str, bytes: &[u8]) -> PathBuf {
    let path = std::env::temp_dir().join(format!("compaction-cli-{}-{name}", std::process::id()));
    std::fs::write(&path, bytes).unwrap();
    path
}

#[test]
fn inspect_reports_the_numbers_of_each_fixture() {
    // (file, records, messages, tool uses = tool results, versions, boundaries)
    let cases = [
        (
            SPOTTER,
            1512,
            293,
            150,
            json!(["2.1.39"]),
            json!([["dd3cc2e6-a191-4331-a0f0-2473e6d7692d", "auto", 170_251]]),
        ),
        (
            STATUS_LINE,
            171,
            95,
            38,
            json!(["2.0.20", "2.0.19"]),
            json!([["79f1e64f-c0e4-4576-b6fb-3e17af97cc8b", "manual", 86_039]]),
        ),
        (
            FASTHOOKS,
            63,
            31,
            10,
            json!(["2.0.76"]),
            json!([["2b772f69-963e-4d05-8a4f-1ca2c3889686", "manual", 21_558]]),
        ),
        (YEPANYWHERE, 134, 69, 34, json!(["2.0.74"]), json!([])),
        (TO_HTML, 247, 139, 64, json!(["2.0.50"]), json!([])),
    ];
    for (name, records, messages, tools, versions, boundaries) in cases {
        let v = run("inspect", name);
        assert_eq!(v["records"], records, "{name}");
        assert_eq!(v["messages"], messages, "{name}");
        assert_eq!(v["toolUses"], tools, "{name}");
        assert_eq!(v["toolResults"], tools, "{name}");
        assert_eq!(v["orphans"], 0, "{name}");
        assert_eq!(v["versions"], versions, "{name}");
        let got: Vec<Value> = v["boundaries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| json!([b["uuid"], b["trigger"], b["preTokens"]]))
            .collect();
        assert_eq!(Value::from(got), boundaries, "{name}");
    }
}

#[test]
fn inspect_lists_problems_with_line_kind_and_detail() {
    let v = run("inspect", SPOTTER);
    let problems = v["problems"].as_array().unwrap();
    assert_eq!(problems.len(), 1);
    assert_eq!(problems[0]["line"], 754);
    assert_eq!(problems[0]["kind"], "dangling_logical_parent");
    assert!(problems[0]["detail"]
        .as_str()
        .unwrap()
        .contains("logicalParentUuid"));
    assert_eq!(run("inspect", TO_HTML)["problems"], json!([]));
}

#[test]
fn resume_starts_with_the_summary_of_the_last_boundary() {
    for (name, boundary, count) in [
        (FASTHOOKS, "2b772f69-963e-4d05-8a4f-1ca2c3889686", 4),
        (STATUS_LINE, "79f1e64f-c0e4-4576-b6fb-3e17af97cc8b", 95),
        (SPOTTER, "dd3cc2e6-a191-4331-a0f0-2473e6d7692d", 161),
    ] {
        let v = run("resume", name);
        assert_eq!(v["boundary"]["uuid"], boundary, "{name}");
        let messages = v["messages"].as_array().unwrap();
        assert_eq!(messages.len(), count, "{name}");
        assert_eq!(messages[0]["isCompactSummary"], true, "{name}");
        assert_eq!(messages[0]["role"], "user", "{name}");
        assert!(
            messages[1..].iter().all(|m| m.get("isCompactSummary").is_none()),
            "{name}"
        );
        for m in messages {
            assert!(m["uuid"].is_string() && m["role"].is_string(), "{name}");
            assert!(m["content"].is_string() || m["content"].is_array(), "{name}");
        }
    }
}

#[test]
fn resume_without_a_boundary_is_the_whole_chain() {
    let v = run("resume", YEPANYWHERE);
    assert!(v["boundary"].is_null());
    assert_eq!(v["messages"].as_array().unwrap().len(), 69);
    assert_eq!(v["messages"][0]["role"], "user");
    assert_eq!(v["problems"], json!([]));
}

#[test]
fn a_damaged_file_is_read_and_its_problems_reported() {
    let mut bytes = std::fs::read(fixture(FASTHOOKS)).unwrap();
    bytes.splice(0..0, b"{not json\n".iter().copied());
    bytes.truncate(bytes.len() - 40);
    let path = temp_file("damaged.jsonl", &bytes);
    let v = json_of(&compaction(&["inspect", path.to_str().unwrap()]));
    let kinds: Vec<_> = v["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["line"].clone(), p["kind"].clone()))
        .collect();
    assert_eq!(
        kinds,
        [
            (json!(1), json!("malformed_json")),
            (json!(64), json!("truncated_line"))
        ]
    );
    assert_eq!(v["records"], 62);
    let v = json_of(&compaction(&["resume", path.to_str().unwrap()]));
    assert_eq!(v["messages"][0]["isCompactSummary"], true);
    std::fs::remove_file(path).unwrap();
}

#[test]
fn missing_files_and_directories_fail_on_stderr() {
    for (args, words) in [
        (
            vec!["inspect", "/no/such/session.jsonl"],
            "cannot open `/no/such/session.jsonl`: no such file",
        ),
        (
            vec!["resume", "/no/such/session.jsonl"],
            "cannot open `/no/such/session.jsonl`: no such file",
        ),
        (vec!["inspect", FIXTURES], "not a regular file (a directory)"),
    ] {
        let out = compaction(&args);
        assert!(!out.status.success(), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.starts_with("error: ") && err.contains(words),
            "{args:?}: {err}"
        );
    }
    let out = compaction(&["inspect"]);
    assert!(!out.status.success());
    assert!(out.stdout.is_empty());
}

#[test]
fn progress_goes_to_stderr_only() {
    let quiet = compaction(&["inspect", &fixture(FASTHOOKS)]);
    assert!(
        quiet.stderr.is_empty(),
        "small file, stderr not a terminal: no progress"
    );
    let out = compaction(&["inspect", "--progress", &fixture(SPOTTER)]);
    let v = json_of(&out);
    assert_eq!(v["records"], 1512);
    let err = String::from_utf8_lossy(&out.stderr);
    let steps: Vec<&str> = err.lines().map(|l| l.rsplit(' ').next().unwrap()).collect();
    assert_eq!(steps.first(), Some(&"0%"), "{err}");
    assert_eq!(steps.last(), Some(&"100%"), "{err}");
    assert!(err.lines().all(|l| l.starts_with("reading ")), "{err}");
}

#[test]
fn resume_of_a_2_1_170_partial_boundary_is_the_summary_then_exactly_the_preserved_uuids() {
    // Hand-made (neither calibration set holds one): `preservedMessages
    // {anchorUuid, uuids, allUuids}` and `preservedSegment`, with the
    // newest fields typed in the boundary's metadata.
    let v = run("resume", "hand__preserved-segment-2.1.170.jsonl");
    let uuid = |n: u64| format!("00000000-0000-4000-8000-{n:012}");
    let uuids: Vec<&str> = v["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["uuid"].as_str().unwrap())
        .collect();
    assert_eq!(uuids, [uuid(10), uuid(5), uuid(6), uuid(11), uuid(12)]);
    assert_eq!(v["messages"][0]["isCompactSummary"], true);
    assert_eq!(v["messages"][1]["preserved"], true);
    assert_eq!(v["messages"][2]["preserved"], true);
    let meta = &v["boundary"]["metadata"];
    assert_eq!(meta["durationMs"], 96_412);
    assert_eq!(meta["postTokens"], 41_227);
    assert_eq!(
        meta["preCompactDiscoveredTools"],
        json!(["WebFetch", "NotebookEdit"])
    );
    assert_eq!(meta["preservedMessages"]["allUuids"].as_array().unwrap().len(), 4);
    assert_eq!(meta["messagesSummarized"], 4, "an unknown field is kept");
}

#[test]
fn plan_on_a_real_session_file() {
    let file = &format!("{FIXTURES}/{STATUS_LINE}");
    let v = json_of(&compaction(&["plan", "--session", file, "--window", "200000"]));
    let view = v["view"].as_array().unwrap();
    assert_eq!(view.len(), 95, "the resumed view");
    assert!(view[0]["content"][0]["text"]
        .as_str()
        .unwrap()
        .starts_with("This session is being continued"));
    assert_eq!(
        v["count"]["basis"], "reportedPlusEstimate",
        "the file's own usage is counted"
    );
    // Small window: the same session is over the line; snip deletes old
    // turns but never the summary the file was resumed from.
    let v = json_of(&compaction(&["plan", "--session", file, "--window", "60000"]));
    let rules: Vec<&str> = v["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["rule"].as_str().unwrap())
        .collect();
    assert!(rules.contains(&"R5.1"), "{rules:?}");
    assert_eq!(v["view"][0]["uuid"], view[0]["uuid"]);
    assert!(err(&compaction(&["plan"])).contains("--messages"));
}

#[test]
fn replay_on_a_real_session_file() {
    let file = &format!("{FIXTURES}/{SPOTTER}");
    let v = json_of(&compaction(&["replay", file, "--window", "200000"]));
    assert_eq!(v["preset"], "client-2.1", "a 2.1.39 file gets the 2.1 preset");
    assert_eq!(v["lines"]["compact"], 167_000);
    assert_eq!(
        v["actual"],
        json!([{
            "uuid": "dd3cc2e6-a191-4331-a0f0-2473e6d7692d",
            "line": 754,
            "trigger": "auto",
            "preTokens": 170251,
            // The last message the client compacted is not in the file.
            "lacks": [{"kind": "logicalParentAbsent", "uuid": "459e838f-d7ea-4f7d-94ad-2cb4d227dc77"}]
        }])
    );
    assert!(v["predicted"][0]["atUuid"].is_string());
    assert!(v["predicted"][0]["tokens"].as_u64().unwrap() > 167_000);
    let v = json_of(&compaction(&[
        "replay",
        file,
        "--preset",
        "newer-client",
        "--window",
        "120000",
    ]));
    assert_eq!(v["preset"], "newer-client");
    assert!(err(&compaction(&["replay", file, "--preset", "nope"])).contains("--preset"));
}
