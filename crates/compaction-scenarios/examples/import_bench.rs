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

use compaction_core::transcript::choice::choose;
use compaction_core::transcript::replay::{ReplayOptions, Replaying};
use compaction_core::transcript::Importer;
use compaction_scenarios::sandbox::{session_request, timeline_chart};

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

fn main() {
    let path = std::env::args().nth(1).expect("a .jsonl path");
    let mut file = std::fs::File::open(&path).unwrap();
    let mut t = Instant::now();
    let start = t;
    let mut importer = Importer::new();
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
    while !finishing.step() {}
    let transcript = finishing.finish();
    lap("finish", &mut t);
    let mut laying = transcript.lay_out();
    while !laying.step(&transcript, 2_000) {}
    let timeline = laying.finish();
    lap("timeline", &mut t);
    let choice = choose(&transcript);
    lap("choice", &mut t);
    let mut settings = choice.preset.settings(choice.window);
    settings.estimator.reported_output_as_is = choice.reported_output_as_is;
    let options = ReplayOptions {
        counts_appended: choice.counts_appended,
        ..ReplayOptions::default()
    };
    let mut replaying = Replaying::new(choice.preset, settings.clone(), options).unwrap();
    while !replaying.step(&timeline, 500).unwrap() {}
    let replay = replaying.finish(&timeline);
    lap("replay", &mut t);
    let chart = timeline_chart(&timeline, &replay);
    lap("chart", &mut t);
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
