//! The files `compact` re-attaches after a compaction (R7.7) stay inside a
//! root (issue 27): the session's working directory for `--session`, the
//! current directory otherwise, or `--root DIR`. A history is data from a
//! model; the CLI read and printed any file a tool call named
//! (`/etc/passwd`, `/proc/self/environ`, `../..`) and read `/dev/zero`
//! forever. Only regular files under the root are read, through no link
//! out of it, each up to the attachment budget; `--no-read` reads none;
//! every refusal is listed in `refused` with its reason.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test helpers may fail loudly

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::common::{compaction_within, fifo, temp_dir};

const INSIDE: &str = "INSIDE-MARKER-7f3a";
const OUTSIDE: &str = "OUTSIDE-MARKER-91c2";
const SECRET: &str = "ENVIRON-SECRET-55d0";

/// A root holding `inside.txt`, `sub/deeper.txt`, a link to `/etc/passwd`,
/// a link to `/etc`, a link to a file beside the root, a fifo and a
/// folder; beside it, `outside.txt`.
fn root(name: &str) -> PathBuf {
    let base = temp_dir(name);
    std::fs::write(base.join("outside.txt"), OUTSIDE).unwrap();
    let root = base.join("root");
    std::fs::create_dir_all(root.join("sub")).unwrap();
    std::fs::create_dir_all(root.join("folder")).unwrap();
    std::fs::write(root.join("inside.txt"), INSIDE).unwrap();
    std::fs::write(root.join("sub/deeper.txt"), "deeper").unwrap();
    std::os::unix::fs::symlink("/etc/passwd", root.join("passwd-link")).unwrap();
    std::os::unix::fs::symlink("/etc", root.join("etc-link")).unwrap();
    std::os::unix::fs::symlink("../outside.txt", root.join("outside-link")).unwrap();
    fifo(&root.join("pipe"));
    root
}

/// What must be refused, in groups of four: with `inside.txt`, five paths,
/// as many as a compaction restores.
const REFUSED: [&str; 12] = [
    "/etc/passwd",
    "/proc/self/environ",
    "../../x",
    "/dev/zero",
    "../outside.txt",
    "passwd-link",
    "etc-link/passwd",
    "outside-link",
    "pipe",
    "folder",
    "sub/../../outside.txt",
    "/dev/stdin",
];

/// A history whose tool calls read `paths`, oldest first, then
/// `inside.txt`.
fn messages(paths: &[&str]) -> Vec<Value> {
    let mut out = vec![json!({"role": "user", "content": "look at the files"})];
    for (i, path) in paths.iter().chain(&["inside.txt"]).enumerate() {
        out.push(json!({"role": "assistant", "content": [
            {"type": "tool_use", "id": format!("t{i}"), "name": "Read", "input": {"file_path": path}}]}));
        out.push(json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": format!("t{i}"), "content": "read"}]}));
    }
    out.push(json!({"role": "assistant", "content": "done"}));
    out
}

/// `compact ARGS` in `dir`, which must finish at once and succeed.
fn compact(dir: &Path, args: &[&str]) -> (String, Value) {
    let mut all = vec!["compact"];
    all.extend(args);
    let started = Instant::now();
    let out = compaction_within(
        Some(dir),
        &[("COMPACTION_TEST_SECRET", SECRET)],
        &all,
        Duration::from_secs(20),
    );
    let took = started.elapsed();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{all:?}: {stderr}");
    assert!(took < Duration::from_secs(5), "{all:?} took {took:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    let value = serde_json::from_str(&text).unwrap();
    (text, value)
}

/// Nothing from outside the root is printed; `inside.txt` is restored
/// (unless `read` is false); each of `refused` is listed with a reason.
fn check(what: &str, text: &str, v: &Value, refused: &[&str], read: bool) {
    let passwd = std::fs::read_to_string("/etc/passwd").unwrap_or_default();
    let first = passwd.lines().next().unwrap_or("root:x:0:0");
    for leak in [first, OUTSIDE, SECRET] {
        assert!(!text.contains(leak), "{what}: printed `{leak}`");
    }
    assert_eq!(text.contains(INSIDE), read, "{what}: inside.txt restored: {read}");
    let listed: Vec<(&str, &str)> = (v["refused"].as_array().expect("a refused list").iter())
        .map(|r| (r["path"].as_str().unwrap(), r["reason"].as_str().unwrap()))
        .collect();
    for path in refused {
        let reason = listed.iter().find(|(p, _)| p == path).map(|(_, r)| *r);
        assert!(
            reason.is_some_and(|r| !r.is_empty()),
            "{what}: {path} not listed as refused: {listed:?}"
        );
        let attachment = (v["attachments"].as_array().unwrap().iter()).find(|a| a["path"] == *path);
        assert_eq!(attachment.unwrap()["status"], "failed", "{what}: {path}");
    }
}

#[test]
fn compact_with_messages_reads_only_under_the_current_directory() {
    let root = root("root-messages");
    for group in REFUSED.chunks(4) {
        std::fs::write(
            root.join("h.json"),
            json!({"messages": messages(group)}).to_string(),
        )
        .unwrap();
        let (text, v) = compact(&root, &["--messages", "h.json"]);
        check("--messages", &text, &v, group, true);
    }
    let _ = std::fs::remove_dir_all(root.parent().unwrap());
}

#[test]
fn compact_with_root_reads_only_under_it() {
    let root = root("root-flag");
    let elsewhere = root.parent().unwrap();
    for group in REFUSED.chunks(4) {
        let file = root.join("h.json");
        std::fs::write(&file, json!({"messages": messages(group)}).to_string()).unwrap();
        let (text, v) = compact(
            elsewhere,
            &[
                "--messages",
                file.to_str().unwrap(),
                "--root",
                root.to_str().unwrap(),
            ],
        );
        check("--root", &text, &v, group, true);
    }
    // A root that is not a folder is an error naming the flag.
    let out = compaction_within(
        None,
        &[],
        &[
            "compact",
            "--messages",
            root.join("h.json").to_str().unwrap(),
            "--root",
            "/no/such/dir",
        ],
        Duration::from_secs(20),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("--root") && stderr.contains("/no/such/dir"),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(elsewhere);
}

#[test]
fn compact_with_session_reads_only_under_the_session_s_cwd() {
    let root = root("root-session");
    let elsewhere = root.parent().unwrap();
    let cwd = root.to_str().unwrap();
    for group in REFUSED.chunks(4) {
        let mut lines = Vec::new();
        let mut parent = Value::Null;
        for (i, m) in messages(group).into_iter().enumerate() {
            let uuid = format!("r{i}");
            lines.push(json!({"type": m["role"], "uuid": uuid, "parentUuid": parent,
                "sessionId": "s", "cwd": cwd, "message": m}));
            parent = json!(uuid);
        }
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        let file = elsewhere.join("s.jsonl");
        std::fs::write(&file, text).unwrap();
        let (text, v) = compact(elsewhere, &["--session", file.to_str().unwrap()]);
        check("--session", &text, &v, group, true);
    }
    let _ = std::fs::remove_dir_all(elsewhere);
}

#[test]
fn compact_in_another_format_reads_only_under_the_current_directory() {
    let root = root("root-chat");
    for group in REFUSED.chunks(4) {
        let mut items = vec![json!({"role": "user", "content": "look"})];
        for (i, path) in group.iter().chain(&["inside.txt"]).enumerate() {
            let arguments = json!({ "file_path": path }).to_string();
            items.push(json!({"role": "assistant", "content": null, "tool_calls": [
                {"id": format!("c{i}"), "type": "function", "function": {"name": "Read", "arguments": arguments}}]}));
            items.push(json!({"role": "tool", "tool_call_id": format!("c{i}"), "content": "read"}));
        }
        items.push(json!({"role": "assistant", "content": "done"}));
        std::fs::write(root.join("c.json"), Value::Array(items).to_string()).unwrap();
        let (text, v) = compact(&root, &["--format", "openai-chat", "--messages", "c.json"]);
        check("--format openai-chat", &text, &v, group, true);
    }
    let _ = std::fs::remove_dir_all(root.parent().unwrap());
}

#[test]
fn no_read_reads_nothing_and_lists_every_file() {
    let root = root("root-no-read");
    std::fs::write(
        root.join("h.json"),
        json!({"messages": messages(&["sub/deeper.txt"])}).to_string(),
    )
    .unwrap();
    let (text, v) = compact(&root, &["--messages", "h.json", "--no-read"]);
    check("--no-read", &text, &v, &["sub/deeper.txt", "inside.txt"], false);
    assert!(
        v["refused"][0]["reason"].as_str().unwrap().contains("--no-read"),
        "{}",
        v["refused"]
    );
    let _ = std::fs::remove_dir_all(root.parent().unwrap());
}
