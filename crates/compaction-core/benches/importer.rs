//! Native benchmarks of the session importer (issue 4): the five real
//! Claude Code session files in `tests/fixtures/transcripts/` imported
//! whole and streamed in 64 KiB chunks (the way the CLI and the sandbox
//! feed it), then resumed (R11.2) and replayed (what-if) with their
//! version's preset. Throughput is reported in bytes of JSONL per second.
//!
//! `cargo bench -p compaction-core --bench importer`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use std::path::PathBuf;
use std::sync::OnceLock;

use compaction_core::transcript::replay::preset_for_version;
use compaction_core::transcript::{import, Importer};
use divan::counter::BytesCount;
use divan::Bencher;

/// The fixtures by short name, as `(name, file)`.
const FIXTURES: [(&str, &str); 5] = [
    (
        "spotter",
        "marot__spotter__4d5611e5-241a-462a-8d15-5122611a9569.jsonl",
    ),
    (
        "to_html",
        "ivh__claudecode_to_html__89196983-226d-4cce-917d-f19967122f0b.jsonl",
    ),
    ("yepanywhere", "kzahel__yepanywhere__index.jsonl"),
    (
        "status_line",
        "wpfleger96__claude-code-status-line__session_with_compact.jsonl",
    ),
    ("fasthooks", "oneryalcin__fasthooks__sample_main_transcript.jsonl"),
];

fn main() {
    for (name, bytes) in files() {
        let t = import(bytes);
        println!(
            "{name}: {} bytes, {} messages, {} boundaries, {} problems",
            bytes.len(),
            t.messages.len(),
            t.boundaries.len(),
            t.problems.len()
        );
    }
    divan::main();
}

fn files() -> &'static [(&'static str, Vec<u8>)] {
    static FILES: OnceLock<Vec<(&'static str, Vec<u8>)>> = OnceLock::new();
    FILES.get_or_init(|| {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/transcripts");
        FIXTURES
            .iter()
            .map(|(name, file)| (*name, std::fs::read(dir.join(file)).unwrap()))
            .collect()
    })
}

fn file(name: &str) -> &'static [u8] {
    &files().iter().find(|(n, _)| *n == name).unwrap().1
}

const NAMES: [&str; 5] = ["spotter", "to_html", "yepanywhere", "status_line", "fasthooks"];

/// `import(bytes)`: the whole file in one slice.
#[divan::bench(args = NAMES)]
fn import_whole(bencher: Bencher, name: &str) {
    let bytes = file(name);
    bencher
        .counter(BytesCount::new(bytes.len()))
        .bench(|| import(divan::black_box(bytes)));
}

/// `Importer::feed` in 64 KiB chunks, then `finish`.
#[divan::bench(args = NAMES)]
fn import_streamed(bencher: Bencher, name: &str) {
    let bytes = file(name);
    bencher.counter(BytesCount::new(bytes.len())).bench(|| {
        let mut importer = Importer::new();
        for chunk in divan::black_box(bytes).chunks(64 * 1024) {
            importer.feed(chunk);
        }
        importer.finish()
    });
}

/// Import, then the resumed view (R11.2).
#[divan::bench(args = NAMES)]
fn import_and_resume(bencher: Bencher, name: &str) {
    let bytes = file(name);
    bencher
        .counter(BytesCount::new(bytes.len()))
        .bench(|| import(divan::black_box(bytes)).resume());
}

/// Replay of an imported session under its version's preset (the engine's
/// decision before every request).
#[divan::bench(args = NAMES)]
fn replay(bencher: Bencher, name: &str) {
    let bytes = file(name);
    let t = import(bytes);
    let preset = preset_for_version(t.versions.last().map(String::as_str));
    bencher
        .counter(BytesCount::new(bytes.len()))
        .bench(|| t.replay(preset, preset.settings(200_000)).unwrap());
}
