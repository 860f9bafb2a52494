//! The sandbox's heaviest re-render, natively: a generated 2,000-message
//! Claude Code session (the one `tests/e2e/render-bench.test.mjs` imports)
//! replayed under the windows the benchmark sets, then charted, as the
//! page does on a window change; and the built-in scenarios the benchmark
//! changes, played with the sandbox's knobs. Prints median times.
//!
//! `cargo run --release -p compaction-scenarios --example replay_bench [messages] [rounds] [only]`
//! (`only`: `replay` or `explore`)
//! (profile with `perf record -g target/release/examples/replay_bench`).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use std::time::Instant;

use compaction_core::transcript::import;
use compaction_core::transcript::replay::preset_for_version;
use compaction_scenarios::sandbox::{explore, explore_at, scenario, timeline_chart, Knobs};
use serde_json::json;

/// The same file as `session(n)` in `tests/e2e/render-bench.test.mjs`.
fn session(n: usize) -> Vec<u8> {
    let mut out = String::new();
    let mut parent: Option<String> = None;
    let mut tokens: u64 = 3_000;
    for i in 0..n {
        let uuid = format!("m-{i}");
        let secs = i as u64 * 20;
        let timestamp = format!(
            "2026-01-{:02}T{:02}:{:02}:{:02}.000Z",
            1 + secs / 86_400,
            secs / 3600 % 24,
            secs / 60 % 60,
            secs % 60
        );
        let mut line = json!({
            "parentUuid": parent, "uuid": uuid, "sessionId": "bench", "version": "2.1.0",
            "timestamp": timestamp, "isSidechain": false,
        });
        if i % 2 == 0 {
            let content = if i % 4 == 0 {
                json!(format!(
                    "Step {i}: keep refactoring module {}. {}",
                    i % 37,
                    "context ".repeat(40)
                ))
            } else {
                json!([{ "type": "tool_result", "tool_use_id": format!("toolu_{}", i - 1),
                         "content": format!("file {i}\n{}", "line of output\n".repeat(60)) }])
            };
            line["type"] = json!("user");
            line["message"] = json!({ "role": "user", "content": content });
        } else {
            tokens += 450;
            let content = if i % 4 == 1 {
                json!([{ "type": "tool_use", "id": format!("toolu_{i}"), "name": "Read",
                         "input": { "file_path": format!("src/module_{}.rs", i % 37) } }])
            } else {
                json!([{ "type": "text", "text": "Done; next step. ".repeat(20) }])
            };
            line["type"] = json!("assistant");
            line["message"] = json!({
                "id": format!("msg_{i}"), "role": "assistant", "model": "claude-sonnet-4", "content": content,
                "usage": { "input_tokens": 10, "cache_read_input_tokens": tokens,
                           "cache_creation_input_tokens": 0, "output_tokens": 80 },
            });
        }
        out.push_str(&line.to_string());
        out.push('\n');
        parent = Some(uuid);
    }
    out.into_bytes()
}

fn median(mut times: Vec<f64>) -> (f64, f64) {
    times.sort_by(f64::total_cmp);
    (times[times.len() / 2], times[0])
}

/// `explore` as the page runs it on each change the browser benchmark makes.
fn explore_bench(rounds: usize) {
    let cases: [(&str, usize, bool); 3] = [
        ("compact-analysis", 0, true),
        ("compact-analysis", 200, false),
        ("run-through", 0, true),
    ];
    for (name, extra, window) in cases {
        let s = scenario(name, extra).unwrap();
        let mut times = Vec::new();
        let (mut at_times, mut guess, mut replayed) = (Vec::new(), 0usize, 0usize);
        for _ in 0..rounds {
            for i in 0..7u64 {
                let mut knobs = Knobs::of(&s);
                knobs.extra_groups = extra;
                if window {
                    knobs.window = 210_000 + 10_000 * i;
                } else {
                    knobs.preserve_groups = 2 + i as usize;
                }
                let start = Instant::now();
                let e = explore(&s, &knobs).unwrap();
                times.push(start.elapsed().as_secs_f64() * 1e3);
                std::hint::black_box(e);
                // As the page runs it: the event shown last is the guess.
                let start = Instant::now();
                let (e, shown) = explore_at(&s, &knobs, None, guess).unwrap();
                at_times.push(start.elapsed().as_secs_f64() * 1e3);
                replayed += usize::from(shown < guess);
                guess = shown;
                std::hint::black_box(e);
            }
        }
        let (med, min) = median(times);
        println!("explore {name} +{extra} groups: median {med:.2} ms, min {min:.2} ms");
        let (med, min) = median(at_times);
        println!(
            "explore_at {name} +{extra} groups: median {med:.2} ms, min {min:.2} ms ({replayed} of {} changes played twice)",
            rounds * 7
        );
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(2000);
    let rounds: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(5);
    let only = args.next().unwrap_or_default();
    if only != "replay" {
        explore_bench(rounds);
    }
    if only == "explore" {
        return;
    }
    let t = import(&session(n));
    assert_eq!(t.messages.len(), n, "{:?}", t.problems);
    let preset = preset_for_version(t.versions.last().map(String::as_str));
    // Laid out once, as the sandbox does on import.
    let timeline = t.timeline();
    let windows = [210_000, 220_000, 230_000, 240_000, 250_000, 260_000, 270_000];
    let mut times = Vec::new();
    let mut marks = 0;
    for _ in 0..rounds {
        for w in windows {
            let start = Instant::now();
            let replay = timeline.replay(preset, preset.settings(w)).unwrap();
            let chart = timeline_chart(&timeline, &replay);
            times.push(start.elapsed().as_secs_f64() * 1e3);
            marks += chart.marks.len() + replay.predicted.len();
        }
    }
    let runs = times.len();
    let (med, min) = median(times);
    println!(
        "replay + chart, {n} messages: median {med:.2} ms, min {min:.2} ms over {runs} runs ({marks} marks)"
    );
}
