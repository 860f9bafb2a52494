//! The sandbox's play of a scenario on a control change, natively: the
//! three changes whose frames are the slowest in the browser (a slider
//! dragged over its range), each change timed as the page runs it
//! (`explore_at` with the event shown last as its guess). Prints each
//! case's median and least time per change, in µs, and the changes that
//! played the scenario twice (the event shown moved earlier).
//!
//! `cargo run --release -p compaction-scenarios --example play_bench [rounds] [case]`
//! (`case`: 0, 1 or 2, only that one)

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use std::time::Instant;

use compaction_scenarios::sandbox::{explore_at, scenario, Knobs};

/// One change: the scenario's name, its extra groups, and the knobs.
struct Change {
    name: &'static str,
    extra: usize,
    preserve: Option<usize>,
    window: Option<u64>,
}

fn cases() -> Vec<(&'static str, Vec<Change>)> {
    let preserve = (2..=8)
        .map(|p| Change {
            name: "compact-analysis",
            extra: 200,
            preserve: Some(p),
            window: None,
        })
        .collect();
    let extra = [1, 2, 3, 4, 5, 6, 0]
        .into_iter()
        .map(|extra| Change {
            name: "compact-analysis",
            extra,
            preserve: None,
            window: None,
        })
        .collect();
    let window = (0..7)
        .map(|i| Change {
            name: "run-through",
            extra: 200,
            preserve: None,
            window: Some(210_000 + 10_000 * i),
        })
        .collect();
    vec![
        ("compact-analysis +200, preserve_groups 2..8", preserve),
        ("compact-analysis, extra_groups 1..6,0", extra),
        ("run-through +200, window 210k..270k", window),
    ]
}

fn main() {
    let rounds: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(60);
    let only: Option<usize> = std::env::args().nth(2).and_then(|a| a.parse().ok());
    for (i, (label, changes)) in cases().into_iter().enumerate() {
        if only.is_some_and(|o| o != i) {
            continue;
        }
        let mut times = Vec::new();
        let mut moved = Vec::new();
        let mut guess = 0usize;
        let mut built: Option<(usize, compaction_scenarios::Scenario)> = None;
        for round in 0..rounds {
            for c in &changes {
                // As the page memoises it: built again when its groups change.
                if built.as_ref().map(|(e, _)| *e) != Some(c.extra) {
                    built = Some((c.extra, scenario(c.name, c.extra).unwrap()));
                }
                let s = &built.as_ref().unwrap().1;
                let mut knobs = Knobs::of(s);
                knobs.extra_groups = c.extra;
                if let Some(p) = c.preserve {
                    knobs.preserve_groups = p;
                }
                if let Some(w) = c.window {
                    knobs.window = w;
                }
                let start = Instant::now();
                let (e, shown) = explore_at(s, &knobs, None, guess).unwrap();
                let took = start.elapsed().as_secs_f64() * 1e6;
                // The first round warms up.
                if round > 0 {
                    if shown < guess {
                        moved.push(took);
                    } else {
                        times.push(took);
                    }
                }
                guess = shown;
                std::hint::black_box(e);
            }
        }
        for (what, mut t) in [("", times), (" (event moved earlier)", moved)] {
            if t.is_empty() {
                continue;
            }
            t.sort_by(f64::total_cmp);
            println!(
                "{label}{what}: median {:.0} µs, least {:.0} µs ({} changes)",
                t[t.len() / 2],
                t[0],
                t.len()
            );
        }
    }
}
