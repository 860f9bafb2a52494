//! Helpers shared by the test modules: running the binary and reading
//! what it printed.

#![allow(clippy::expect_used, clippy::panic)] // test helpers may fail loudly

use std::process::{Command, Output};

use serde_json::Value;

/// Runs `compaction ARGS…`.
pub fn compaction(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_compaction"))
        .args(args)
        .output()
        .expect("the compaction binary runs")
}

/// Its stdout as JSON, after asserting it succeeded.
pub fn ok(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "exit {:?}, stderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("stdout is one JSON object")
}

/// Its stderr, after asserting it failed and printed nothing on stdout.
pub fn err(out: &Output) -> String {
    assert!(
        !out.status.success(),
        "expected a failure, got {}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(out.stdout.is_empty());
    stderr(out)
}

/// Its stderr.
pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Runs `compaction ARGS…` (in `dir` when given, with `env` set), and
/// panics if it has not finished within `limit` (it is killed first). The
/// output kept is at most 64 MiB per stream; the rest is read and dropped.
pub fn compaction_within(
    dir: Option<&std::path::Path>,
    env: &[(&str, &str)],
    args: &[&str],
    limit: std::time::Duration,
) -> Output {
    use std::io::Read;
    use std::process::Stdio;
    let mut command = Command::new(env!("CARGO_BIN_EXE_compaction"));
    command
        .args(args)
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(dir) = dir {
        command.current_dir(dir);
    }
    let started = std::time::Instant::now();
    let mut child = command.spawn().expect("the compaction binary runs");
    let drain = |stream: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut kept = Vec::new();
            if let Some(mut stream) = stream {
                let _ = stream.by_ref().take(64 << 20).read_to_end(&mut kept);
                let _ = std::io::copy(&mut stream, &mut std::io::sink());
            }
            kept
        })
    };
    let stdout = drain(child.stdout.take().map(|s| Box::new(s) as Box<dyn Read + Send>));
    let stderr = drain(child.stderr.take().map(|s| Box::new(s) as Box<dyn Read + Send>));
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for compaction") {
            break status;
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("`compaction {}` did not finish within {limit:?}", args.join(" "));
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    };
    Output {
        status,
        stdout: stdout.join().expect("stdout reader"),
        stderr: stderr.join().expect("stderr reader"),
    }
}

/// A file in the temp dir, unique to this test process and `name`,
/// removed when dropped (a test that fails removes it too).
pub struct TempFile(std::path::PathBuf);

impl TempFile {
    /// `bytes` written to the file for `name`.
    pub fn new(name: &str, bytes: &[u8]) -> TempFile {
        let path = std::env::temp_dir().join(format!("compaction-cli-{}-{name}", std::process::id()));
        std::fs::write(&path, bytes).expect("write a temp file");
        TempFile(path)
    }
}

impl std::ops::Deref for TempFile {
    type Target = std::path::PathBuf;
    fn deref(&self) -> &std::path::PathBuf {
        &self.0
    }
}

impl AsRef<std::path::Path> for TempFile {
    fn as_ref(&self) -> &std::path::Path {
        &self.0
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// A fresh, empty folder in the temp dir, unique to this test process and
/// `name`.
pub fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("compaction-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create a temp dir");
    dir
}

/// A named pipe at `path` (made with `mkfifo`).
pub fn fifo(path: &std::path::Path) {
    let made = Command::new("mkfifo").arg(path).status().expect("mkfifo runs");
    assert!(made.success(), "mkfifo {}", path.display());
}
