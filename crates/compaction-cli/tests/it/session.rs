//! `compaction plan`, `compact`, `parse-summary` and `presets` as a user
//! runs them: JSON on stdout, errors on stderr, exit status.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test helpers may fail loudly

use std::process::Command;

use crate::common::{compaction, err, ok, TempFile};

use serde_json::json;

fn fixture(name: &str) -> String {
    format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// A generated history, written to a temporary file.
fn generated(name: &str, turns: usize, chars: usize) -> TempFile {
    let mut messages = Vec::new();
    for t in 0..turns {
        messages.push(json!({"role": "user", "content": format!("turn {t}")}));
        messages.push(json!({"role": "assistant", "content": [
            {"type": "tool_use", "id": format!("toolu_{t}"), "name": "Read", "input": {"file_path": format!("src/{t}.rs")}}
        ]}));
        messages.push(json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": format!("toolu_{t}"), "content": "x".repeat(chars)}
        ]}));
        messages.push(json!({"role": "assistant", "content": "y".repeat(chars)}));
    }
    TempFile::new(
        &format!("{name}.json"),
        &serde_json::to_vec(&json!({"messages": messages})).unwrap(),
    )
}

#[test]
fn plan_on_a_hand_written_history() {
    let v = ok(&compaction(&[
        "plan",
        "--messages",
        &fixture("compact-analysis.json"),
    ]));
    assert_eq!(v["view"].as_array().unwrap().len(), 9);
    assert_eq!(v["status"]["kind"], "proceed");
    assert_eq!(v["count"]["basis"], "reportedPlusEstimate");
    assert!(v["breakdown"]["toolResults"].as_u64().unwrap() > 0);
    assert_eq!(v["requests"], json!([]));
    assert_eq!(v["lines"]["compact"], 167_000);
}

#[test]
fn plan_on_a_generated_history_over_the_line_reduces_clears_and_snips() {
    let path = generated("over", 60, 12_000);
    let args = ["plan", "--messages", path.to_str().unwrap(), "--window", "200000"];
    let v = ok(&compaction(&args));
    let tiers: Vec<&str> = v["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["tier"].as_str().unwrap())
        .collect();
    for tier in ["budgetReduction", "microcompact", "snip"] {
        assert!(tiers.contains(&tier), "{tier} missing from {tiers:?}");
    }
    // Snip stops just under the compact line, above the precompute line: a
    // background summary is asked for. A snip that gets under ends the
    // cascade (R3.1): no segment summaries, no compaction.
    let purposes: Vec<&str> = v["requests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["purpose"]["kind"].as_str().unwrap())
        .collect();
    assert!(purposes.contains(&"precompute"), "{purposes:?}");
    assert!(!purposes.contains(&"collapseSegment"), "{purposes:?}");
    assert!(!purposes.contains(&"compact"), "{purposes:?}");
    assert!(!tiers.contains(&"collapse"), "{tiers:?}");
    assert!(v["count"]["tokens"].as_u64().unwrap() <= 167_000);
    // The plan changed nothing on disk and is repeatable.
    assert_eq!(v, ok(&compaction(&args)));
}

#[test]
fn plan_names_the_betas_its_context_management_needs() {
    // 60 Read calls: the cache-aware path (R4.3) sends a `context_management`
    // edit, and the request needs its beta header (R13.4).
    let path = generated("betas", 60, 12_000);
    let v = ok(&compaction(&["plan", "--messages", path.to_str().unwrap()]));
    assert!(!v["contextManagement"].is_null(), "{}", v["contextManagement"]);
    let betas: Vec<&str> = v["betas"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b.as_str().unwrap())
        .collect();
    assert!(betas.contains(&"context-management-2025-06-27"), "{betas:?}");
    // A small history sends no edit and needs no beta.
    let small = ok(&compaction(&[
        "plan",
        "--messages",
        &fixture("compact-analysis.json"),
    ]));
    assert!(small["contextManagement"].is_null());
    assert_eq!(small["betas"], json!([]));
}

#[test]
fn plan_takes_now_and_presets() {
    let f = fixture("compact-analysis.json");
    let v = ok(&compaction(&[
        "plan",
        "--messages",
        &f,
        "--preset",
        "newer-client",
        "--now",
        "2026-11-29T12:00:00Z",
    ]));
    assert!(v["steps"].as_array().unwrap().iter().all(|s| s["rule"] != "R4.3"));
    assert!(err(&compaction(&["plan", "--messages", &f, "--preset", "nope"])).contains("--preset"));
    assert!(err(&compaction(&["plan", "--messages", &f, "--now", "yesterday"])).contains("--now"));
    assert!(err(&compaction(&["plan", "--messages", &f, "--window", "10000"])).contains("--window"));
    assert!(err(&compaction(&["plan", "--messages", "/nonexistent.json"])).contains("cannot read"));
}

#[test]
fn compact_runs_a_manual_compaction_offline() {
    let v = ok(&compaction(&[
        "compact",
        "--messages",
        &fixture("compact-analysis.json"),
        "--instructions",
        "keep the file list",
    ]));
    let view = v["view"].as_array().unwrap();
    assert!(view[0]["content"]
        .as_str()
        .unwrap()
        .contains("Summary:\n1. Primary Request and Intent:"));
    assert_eq!(view[1]["uuid"], "judgement");
    assert_eq!(v["boundary"]["subtype"], "compact_boundary");
    assert_eq!(v["boundary"]["compactMetadata"]["trigger"], "manual");
    assert_eq!(v["summary"]["isCompactSummary"], true);
    // The files it restores are read from disk: these do not exist here.
    assert!(v["attachments"]
        .as_array()
        .unwrap()
        .iter()
        .all(|a| a["status"] == "failed"));
    let rules: Vec<&str> = v["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["rule"].as_str().unwrap())
        .collect();
    assert_eq!(rules, ["R7.5", "R7.3", "R7.3", "R7.4", "R7.7", "R7.9"]);
}

#[test]
fn compact_answers_the_precompact_hook_from_the_flags() {
    let history = fixture("compact-analysis.json");
    // --hook-instructions reach the summary prompt (R7.2): the step says so.
    let v = ok(&compaction(&[
        "compact",
        "--messages",
        &history,
        "--hook-instructions",
        "mention the ticket",
    ]));
    assert_eq!(v["steps"][0]["rule"], "R7.2");
    assert!(v["steps"][0]["reason"]
        .as_str()
        .unwrap()
        .contains("1 instruction"));
    // --hook-block: the compaction fails, the history stays, exit non-zero.
    let e = err(&compaction(&[
        "compact",
        "--messages",
        &history,
        "--hook-block",
        "frozen",
    ]));
    assert!(e.contains("blocked by a PreCompact hook: frozen"), "{e}");
    let e = err(&compaction(&["compact", "--messages", &history, "--hook-block"]));
    assert!(e.contains("blocked by a PreCompact hook"), "{e}");
}

#[test]
fn plan_answers_the_precompact_hook_and_stops_at_the_summary_request() {
    let path = generated("plan-hook.json", 12, 60_000);
    let path = path.to_str().unwrap();
    let v = ok(&compaction(&[
        "plan",
        "--messages",
        path,
        "--preset",
        "client-2.1",
    ]));
    let kinds: Vec<&str> = v["requests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["kind"].as_str().unwrap())
        .collect();
    assert!(kinds.contains(&"summary"), "{kinds:?}");
    assert!(!kinds.contains(&"preCompact"), "the hook was answered: {kinds:?}");
    // --hook-instructions reach the summary request's prompt (R7.2).
    let v = ok(&compaction(&[
        "plan",
        "--messages",
        path,
        "--preset",
        "client-2.1",
        "--hook-instructions",
        "mention the ticket",
    ]));
    let summary = v["requests"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["kind"] == "summary")
        .unwrap();
    assert!(
        summary["prompt"].as_str().unwrap().contains("mention the ticket"),
        "{}",
        summary["prompt"]
    );
    let v = ok(&compaction(&[
        "plan",
        "--messages",
        path,
        "--preset",
        "client-2.1",
        "--hook-block",
        "no",
    ]));
    assert!(
        v["requests"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["kind"] != "summary"),
        "a blocked compaction asks for no summary"
    );
    assert!(v["steps"].as_array().unwrap().iter().any(|s| s["rule"] == "R7.2"));
}

#[test]
fn compact_from_and_up_to_are_partial_compactions() {
    let history = fixture("compact-analysis.json");
    // --from: what came before stays verbatim, the summary follows it.
    let v = ok(&compaction(&[
        "compact",
        "--messages",
        &history,
        "--from",
        "correct",
    ]));
    let view = v["view"].as_array().unwrap();
    let uuids: Vec<&str> = view.iter().map(|m| m["uuid"].as_str().unwrap()).collect();
    assert_eq!(uuids[..5], ["ask", "grep", "grep-result", "read", "read-result"]);
    assert!(view[5]["content"].as_str().unwrap().contains("Summary:"));
    assert!(!uuids.contains(&"judgement"), "{uuids:?}");
    // --up-to: the summary, then the chosen message and what follows.
    let v = ok(&compaction(&[
        "compact",
        "--messages",
        &history,
        "--up-to",
        "correct",
    ]));
    let uuids: Vec<&str> = v["view"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["uuid"].as_str().unwrap())
        .collect();
    assert_eq!(uuids[1..5], ["correct", "edit", "edit-result", "judgement"]);
    // Not at a legal cut: an error naming the reason, exit non-zero.
    let e = err(&compaction(&[
        "compact",
        "--messages",
        &history,
        "--from",
        "grep-result",
    ]));
    assert!(e.contains("legal cut"), "{e}");
    let e = err(&compaction(&[
        "compact",
        "--messages",
        &history,
        "--from",
        "ask",
        "--up-to",
        "correct",
    ]));
    assert!(e.contains("cannot be used with"), "{e}");
}

#[test]
fn transcript_path_puts_the_path_in_the_compacted_view() {
    let path = "/home/u/.claude/projects/p/s.jsonl";
    let v = ok(&compaction(&[
        "compact",
        "--messages",
        &fixture("compact-analysis.json"),
        "--transcript-path",
        path,
    ]));
    let summary = v["view"][0]["content"].as_str().unwrap();
    assert!(
        summary.ends_with(&format!("read the full transcript at: {path}")),
        "{summary}"
    );
    // Without the flag nothing is named; plan takes the flag too.
    let v = ok(&compaction(&[
        "compact",
        "--messages",
        &fixture("compact-analysis.json"),
    ]));
    assert!(!v["view"][0]["content"]
        .as_str()
        .unwrap()
        .contains("transcript at"));
    ok(&compaction(&[
        "plan",
        "--messages",
        &fixture("compact-analysis.json"),
        "--transcript-path",
        path,
    ]));
}

#[test]
fn bad_histories_are_errors_naming_the_message() {
    let path = TempFile::new(
        "bad.json",
        br#"{"messages": [{"role": "user", "content": "ok"}, {"role": "robot", "content": "?"}]}"#,
    );
    assert!(err(&compaction(&["plan", "--messages", path.to_str().unwrap()])).contains("messages[1]"));
    std::fs::write(&path, r#"{"messages": [{"uuid": "a", "role": "user", "content": "x"}, {"uuid": "a", "role": "user", "content": "y"}]}"#).unwrap();
    assert!(err(&compaction(&["plan", "--messages", path.to_str().unwrap()])).contains("duplicate"));
    std::fs::write(&path, "not json").unwrap();
    assert!(err(&compaction(&["compact", "--messages", path.to_str().unwrap()])).contains("not JSON"));
}

#[test]
fn parse_summary_applies_r7_4() {
    let v = ok(&compaction(&[
        "parse-summary",
        &fixture("reply-with-analysis.txt"),
    ]));
    assert_eq!(
        v["text"],
        "Summary:\n1. Primary Request and Intent:\n   Explain /compact in 2.1.235."
    );
    let empty = TempFile::new("empty.txt", b"<analysis>only</analysis>");
    assert!(err(&compaction(&["parse-summary", empty.to_str().unwrap()])).contains("empty"));
}

#[test]
fn presets_lists_names_and_settings() {
    let v = ok(&compaction(&["presets"]));
    let names: Vec<&str> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["seed", "client-2.0.76", "client-2.1", "newer-client"]);
    assert_eq!(v[0]["settings"]["microcompact"]["idleGapMs"], 5_400_000);
    assert_eq!(v[1]["settings"]["thresholds"]["reserveCap"], 32_000);
    assert_eq!(v[2]["settings"]["snip"], false);
    assert_eq!(v[2]["settings"]["collapse"]["enabled"], false);
    assert_eq!(
        v[3]["settings"]["microcompact"]["sentinel"],
        "[Old tool result content cleared]"
    );
    assert_eq!(v[0]["settings"]["thresholds"]["window"], 200_000);
}

#[test]
fn a_reader_that_stops_early_is_not_an_error() {
    use std::io::Read;
    use std::process::Stdio;
    // Output far bigger than a pipe's buffer: the write must hit the
    // closed pipe.
    let path = generated("pipe", 30, 12_000);
    let mut child = Command::new(env!("CARGO_BIN_EXE_compaction"))
        .args(["plan", "--messages", path.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Close the pipe without reading: the write fails with EPIPE.
    drop(child.stdout.take());
    let status = child.wait().unwrap();
    let mut stderr = String::new();
    child.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(status.success(), "{stderr}");
}

#[test]
fn plan_takes_the_budget_reduction_numbers_or_off() {
    // 12,000-character results: the seed reduces them, `off` sends them
    // whole, a higher threshold leaves them whole too.
    let path = generated("reduction", 8, 12_000);
    let p = path.to_str().unwrap();
    let count = |extra: &[&str]| -> u64 {
        let mut args = vec!["plan", "--messages", p];
        args.extend_from_slice(extra);
        ok(&compaction(&args))["count"]["tokens"].as_u64().unwrap()
    };
    let seed = count(&[]);
    let off = count(&["--reduction", "off"]);
    let high = count(&["--reduction", "20000,12000,8000"]);
    let low = count(&["--reduction", "1000,600,400"]);
    assert!(
        off > seed && high == off && low < seed,
        "{seed} {off} {high} {low}"
    );
    let e = err(&compaction(&[
        "plan",
        "--messages",
        p,
        "--reduction",
        "100,60,41",
    ]));
    assert!(e.contains("--reduction") && e.contains("head + tail"), "{e}");
    let e = err(&compaction(&["plan", "--messages", p, "--reduction", "lots"]));
    assert!(e.contains("MAX,HEAD,TAIL"), "{e}");
}

#[test]
fn plan_and_compact_speak_the_history_s_format() {
    // A Chat Completions history: the view comes back in its shape, the
    // untouched messages exactly as they came.
    let items = json!([
        {"role": "developer", "content": "You are a coding agent."},
        {"role": "user", "content": "List the files", "name": "dev"},
        {"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "Bash", "arguments": "{\"command\":\"ls\"}"}}], "reasoning_content": "think"},
        {"role": "tool", "tool_call_id": "call_1", "content": "a.rs\nb.rs"},
        {"role": "assistant", "content": "Two files.", "refusal": null}
    ]);
    let path = std::env::temp_dir().join(format!("compaction-cli-{}-chat.json", std::process::id()));
    std::fs::write(&path, serde_json::to_vec(&items).unwrap()).unwrap();
    let file = path.to_str().unwrap();
    let v = ok(&compaction(&[
        "plan",
        "--format",
        "openai-chat",
        "--messages",
        file,
    ]));
    assert_eq!(v["view"], items);
    let v = ok(&compaction(&[
        "compact",
        "--format",
        "openai-chat",
        "--messages",
        file,
    ]));
    let view = v["view"].as_array().unwrap();
    assert_eq!(view[0], items[0], "the system prompt stays first");
    assert_eq!(
        view[1]["role"], "user",
        "then the summary, as a Chat Completions user message"
    );
    assert!(view[1]["content"].as_str().unwrap().contains("Summary"));
    let err = err(&compaction(&["plan", "--format", "gemini", "--messages", file]));
    assert!(err.contains("--format"), "{err}");
    std::fs::remove_file(&path).ok();
}

#[test]
fn compact_on_a_resumed_file_derives_uuids_the_file_does_not_hold() {
    // As the package's loadSession: compactions are numbered after the
    // file's, so compacting a view an earlier compaction was made of (then
    // expanded) does not derive that compaction's uuids again (issue 15).
    let dir = std::env::temp_dir();
    let path = |name: &str| dir.join(format!("compaction-cli-{}-{name}.jsonl", std::process::id()));
    let mut lines = vec![
        json!({"type": "user", "uuid": "u1", "parentUuid": null, "sessionId": "s",
               "message": {"role": "user", "content": "hi, please read f.rs"}}),
        json!({"type": "assistant", "uuid": "a1", "parentUuid": "u1", "sessionId": "s",
               "message": {"role": "assistant", "content": [{"type": "text", "text": "hello"}]}}),
    ];
    let write = |name: &str, lines: &[serde_json::Value]| {
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        std::fs::write(path(name), text).unwrap();
        path(name).to_str().unwrap().to_owned()
    };
    let first = ok(&compaction(&["compact", "--session", &write("first", &lines)]));
    let (boundary, summary) = (&first["boundary"], &first["summary"]);
    lines.extend([boundary.clone(), summary.clone()]);
    lines.push(
        json!({"type": "system", "subtype": "compact_expanded", "uuid": "x1",
        "parentUuid": summary["uuid"], "sessionId": "s",
        "expandMetadata": {"boundaryUuid": boundary["uuid"], "removedUuids": [summary["uuid"]]}}),
    );
    let file = write("expanded", &lines);
    let resumed = ok(&compaction(&["resume", &file]));
    let view: Vec<&str> = (resumed["messages"].as_array().unwrap().iter())
        .map(|m| m["uuid"].as_str().unwrap())
        .collect();
    assert_eq!(view, ["u1", "a1"], "the expansion gives the first view back");
    let again = ok(&compaction(&["compact", "--session", &file]));
    for record in [&again["boundary"], &again["summary"]] {
        assert!(
            lines.iter().all(|l| l["uuid"] != record["uuid"]),
            "{} is in the file already",
            record["uuid"]
        );
    }
    for name in ["first", "expanded"] {
        let _ = std::fs::remove_file(path(name));
    }
}

/// The status's fields are camelCase like every other key of the output
/// (and like the JS package's `CallStatus`): `tokensLeft`, `overBy`; they
/// came out as `tokens_left` / `over_by`.
#[test]
fn plan_status_fields_are_camel_case() {
    let path = generated("status-case", 6, 6_000);
    let plan = |window: &str| {
        let file = path.to_str().unwrap();
        ok(&compaction(&[
            "plan",
            "--messages",
            file,
            "--window",
            window,
            "--max-output",
            "4000",
            "--preset",
            "client-2.1",
        ]))
    };
    let (warn, due) = (plan("40000"), plan("24000"));
    std::fs::remove_file(&path).unwrap();
    assert_eq!(warn["status"]["kind"], "warn", "{}", warn["status"]);
    assert!(
        warn["status"]["tokensLeft"].as_u64().is_some(),
        "{}",
        warn["status"]
    );
    assert!(
        ["compactionDue", "blocked"].contains(&due["status"]["kind"].as_str().unwrap()),
        "{}",
        due["status"]
    );
    assert!(due["status"]["overBy"].as_u64().is_some(), "{}", due["status"]);
}
