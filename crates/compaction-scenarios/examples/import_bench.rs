//! The sandbox's import of a session file, natively, phase by phase, as
//! the page runs it (`web/src/import.rs`, `web/src/session.rs`): the file
//! fed in 1 MiB chunks, the chain finished, the timeline laid out, the
//! settings chosen, the replay under them, the chart, and the request the
//! page shows first laid out (and, with boundaries, one in an earlier
//! era). Prints each phase's time, to find what grows faster than the file.
//!
//! `cargo run --release -p compaction-scenarios --example import_bench FILE.jsonl [read]`
//! (`read`: stop after the reading)
//! (`tests/e2e/session-gen.mjs` writes the large files).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use std::io::Read;
use std::time::Instant;

use compaction_core::transcript::choice::Tally;
use compaction_core::transcript::replay::{ReplayOptions, Replaying};
use compaction_core::transcript::Importer;
use compaction_scenarios::sandbox::{session_request, Charting};

fn lap(what: &str, since: &mut Instant) {
    // Resident memory, where the system says (Linux).
    let rss = std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().nth(1)?.parse::<u64>().ok())
        .map(|pages| format!(", {} MiB resident", (pages * 4096) >> 20))
        .unwrap_or_default();
    println!("{what}: {:.1} ms{rss}", since.elapsed().as_secs_f64() * 1e3);
    *since = Instant::now();
}

/// The longest of the slices timed, in ms (a page runs each in one task).
#[derive(Default)]
struct Longest(f64);

impl Longest {
    fn time<T>(&mut self, f: impl FnOnce() -> T) -> T {
        let start = Instant::now();
        let out = f();
        self.0 = self.0.max(start.elapsed().as_secs_f64() * 1e3);
        out
    }
}

impl std::fmt::Display for Longest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:.1} ms", self.0)
    }
}

fn main() {
    let path = std::env::args().nth(1).expect("a .jsonl path");
    let mut file = std::fs::File::open(&path).unwrap();
    let mut t = Instant::now();
    let start = t;
    let mut importer = Importer::new();
    importer.expect(file.metadata().unwrap().len());
    let mut chunk = vec![0; 1 << 20];
    loop {
        let n = file.read(&mut chunk).unwrap();
        if n == 0 {
            break;
        }
        importer.feed(&chunk[..n]);
    }
    lap("read (feed)", &mut t);
    let stop = std::env::args().nth(2).unwrap_or_default();
    if stop == "read" {
        return;
    }
    let mut finishing = importer.finishing();
    let mut longest = Longest::default();
    let mut passes = Vec::new();
    loop {
        let start = Instant::now();
        let done = longest.time(|| finishing.step());
        passes.push(format!("{:.0}", start.elapsed().as_secs_f64() * 1e3));
        if done {
            break;
        }
    }
    println!("finish passes (ms): {}", passes.join(" "));
    let transcript = finishing.finish();
    lap(&format!("finish (longest pass {longest})"), &mut t);
    let mut laying = transcript.lay_out();
    let mut longest = Longest::default();
    while !longest.time(|| laying.step(&transcript, 2_000)) {}
    let timeline = laying.finish();
    lap(&format!("timeline (longest step {longest})"), &mut t);
    let mut tally = Tally::default();
    let mut longest = Longest::default();
    while !longest.time(|| tally.step(&transcript, 2_000)) {}
    let choice = longest.time(|| tally.choose(&transcript));
    lap(&format!("choice (longest step {longest})"), &mut t);
    let mut settings = choice.preset.settings(choice.window);
    settings.estimator.reported_output_as_is = choice.reported_output_as_is;
    let options = ReplayOptions {
        counts_appended: choice.counts_appended,
        ..ReplayOptions::default()
    };
    let mut replaying = Replaying::new(choice.preset, settings.clone(), options).unwrap();
    let mut longest = Longest::default();
    while !longest.time(|| replaying.step(&timeline, 500).unwrap()) {}
    let mut last = Longest::default();
    let replay = last.time(|| replaying.finish(&timeline));
    lap(&format!("replay (longest step {longest}, finish {last})"), &mut t);
    let mut charting = Charting::new(&timeline);
    let mut longest = Longest::default();
    while !longest.time(|| charting.step(&timeline, 5_000)) {}
    let chart = charting.finish(&timeline, &replay);
    lap(&format!("chart (longest step {longest})"), &mut t);
    println!(
        "{} messages, {} boundaries, {} requests: import {:.1} ms before the first request is laid out",
        transcript.messages.len(),
        transcript.boundaries.len(),
        chart.requests.len(),
        start.elapsed().as_secs_f64() * 1e3
    );
    let last = chart.requests.len().saturating_sub(1);
    let r = session_request(&transcript, &timeline, settings.clone(), last).unwrap();
    lap(&format!("request {last} laid out"), &mut t);
    std::hint::black_box(r);
    if transcript.boundaries.len() > 1 {
        let r = session_request(&transcript, &timeline, settings, 1).unwrap();
        lap("request 1 (an earlier era) laid out", &mut t);
        std::hint::black_box(r);
    }
}
