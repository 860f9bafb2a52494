//! Tool input nested deeper than serde_json's recursion limit (128), as a
//! model may write it, through every input flag: `--messages` in each
//! `--format`, and `--session`. The CLI printed the view through
//! `serde_json::Value`, whose limit made `json!` panic (exit 101 and a
//! backtrace, issue 27); the JS package takes 5,000 levels. Each run must
//! succeed and print the input as it came, inside valid JSON.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test helpers may fail loudly

use std::time::Duration;

use crate::common::{compaction_within, temp_dir};

/// `{"a":{"a":…1…}}`, `depth` objects deep.
fn nested(depth: usize) -> String {
    format!("{}1{}", r#"{"a":"#.repeat(depth), "}".repeat(depth))
}

/// A JSON string holding `text`.
fn quoted(text: &str) -> String {
    serde_json::to_string(text).unwrap()
}

/// Each input flag's history holding one tool call whose input is `deep`,
/// as (name, flags before the file, file name, file text, the input's text
/// as it must come back in `plan`'s view).
fn histories(deep: &str) -> Vec<(&'static str, Vec<&'static str>, &'static str, String, String)> {
    let args = quoted(deep);
    let unquoted = args.trim_matches('"').to_owned();
    vec![
        (
            "anthropic",
            vec!["--messages"],
            "h.json",
            format!(
                r#"{{"messages":[{{"role":"user","content":"hi"}},{{"role":"assistant","content":[{{"type":"tool_use","id":"t","name":"Read","input":{deep}}}]}},{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"t","content":"ok"}}]}}]}}"#
            ),
            deep.to_owned(),
        ),
        (
            "session",
            vec!["--session"],
            "s.jsonl",
            [
                r#"{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s","message":{"role":"user","content":"hi"}}"#.to_owned(),
                format!(
                    r#"{{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s","message":{{"role":"assistant","content":[{{"type":"tool_use","id":"t","name":"Read","input":{deep}}}]}}}}"#
                ),
                r#"{"type":"user","uuid":"u2","parentUuid":"a1","sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"ok"}]}}"#.to_owned(),
            ]
            .join("\n"),
            deep.to_owned(),
        ),
        (
            "openai-chat",
            vec!["--format", "openai-chat", "--messages"],
            "c.json",
            format!(
                r#"[{{"role":"user","content":"hi"}},{{"role":"assistant","content":null,"tool_calls":[{{"id":"t","type":"function","function":{{"name":"Read","arguments":{args}}}}}],"x_extra":{deep}}},{{"role":"tool","tool_call_id":"t","content":"ok"}}]"#
            ),
            deep.to_owned(),
        ),
        (
            "openai-responses",
            vec!["--format", "openai-responses", "--messages"],
            "r.json",
            format!(
                r#"[{{"role":"user","content":"hi"}},{{"type":"function_call","call_id":"t","name":"Read","arguments":{args}}},{{"type":"function_call_output","call_id":"t","output":"ok"}}]"#
            ),
            unquoted,
        ),
        (
            "ai-sdk",
            vec!["--format", "ai-sdk", "--messages"],
            "a.json",
            format!(
                r#"[{{"role":"user","content":"hi"}},{{"role":"assistant","content":[{{"type":"tool-call","toolCallId":"t","toolName":"Read","input":{deep}}}]}},{{"role":"tool","content":[{{"type":"tool-result","toolCallId":"t","toolName":"Read","output":{{"type":"text","value":"ok"}}}}]}}]"#
            ),
            deep.to_owned(),
        ),
        (
            "langchain",
            vec!["--format", "langchain", "--messages"],
            "l.json",
            format!(
                r#"[{{"type":"human","data":{{"content":"hi"}}}},{{"type":"ai","data":{{"content":"","tool_calls":[{{"id":"t","name":"Read","args":{deep}}}]}}}},{{"type":"tool","data":{{"content":"ok","tool_call_id":"t"}}}}]"#
            ),
            deep.to_owned(),
        ),
    ]
}

#[test]
fn deep_tool_input_comes_back_whole_through_every_input_flag() {
    let dir = temp_dir("depth");
    for depth in [200, 5_000] {
        let deep = nested(depth);
        for (name, flags, file, text, expected) in histories(&deep) {
            let path = dir.join(file);
            std::fs::write(&path, &text).unwrap();
            for command in ["plan", "compact"] {
                let mut args = vec![command];
                args.extend(&flags);
                args.push(path.to_str().unwrap());
                let out = compaction_within(Some(&dir), &[], &args, Duration::from_secs(60));
                let stderr = String::from_utf8_lossy(&out.stderr);
                assert!(
                    out.status.success(),
                    "{name} {command} at depth {depth}: exit {:?}: {}",
                    out.status.code(),
                    stderr.lines().take(3).collect::<Vec<_>>().join("\n")
                );
                let stdout = String::from_utf8(out.stdout).unwrap();
                if command == "plan" {
                    assert!(
                        stdout.contains(&expected),
                        "{name}: the input is in the plan's view as it came"
                    );
                }
                // Valid JSON around it: with the deep values taken out,
                // serde_json (limit 128) reads the rest.
                let rest = stdout.replace(&expected, "0").replace(&deep, "0");
                if let Err(e) = serde_json::from_str::<serde_json::Value>(&rest) {
                    panic!("{name} {command} at depth {depth}: not JSON: {e}");
                }
            }
        }
        let session = dir.join("s.jsonl");
        for command in ["inspect", "resume"] {
            let out = compaction_within(
                None,
                &[],
                &[command, session.to_str().unwrap()],
                Duration::from_secs(60),
            );
            assert!(
                out.status.success(),
                "{command} at depth {depth}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
