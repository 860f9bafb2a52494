//! How well the token count predicts real requests (SPEC R1.6, R1.6a): for
//! every assistant record of real Claude Code session files, the engine's
//! count just before it (the last reported usage plus the estimate of what
//! was appended since, exactly as `View::count` computes it) against the
//! prompt size the API then reported for it (`input + cache-creation +
//! cache-read`, the largest snapshot of the response's lines).
//!
//! The comparison is fair because the count and the record describe the
//! same request: both include the system prompt and tools (the count
//! through the previous report), so only the estimate of what was appended
//! between two reports is judged. Requests right after a boundary (no
//! earlier report in their era) and requests whose prompt shrank (a
//! server-side clearing, a `microcompact_boundary`) are left out.
//!
//! `cargo run --release -p compaction-core --example estimator_report [DIR]`
//! (default `../shared/fixtures/sessions`, relative to the workspace).
//! Prints the error distribution for three estimators: chars/4 (before
//! R1.6a), by script, and by script with the session's calibration.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use compaction_core::message::{Block, Content, Message, Role, ToolResultContent};
use compaction_core::tokens::{script_counts, Estimator};
use compaction_core::transcript::import;
use compaction_core::view::{Source, View};

/// One judged request.
struct Sample {
    /// The API's prompt size.
    real: u64,
    /// Real growth since the previous report.
    real_delta: u64,
    /// The count, per estimator.
    count: [u64; 3],
    /// Share of wide (non-Latin) characters in what was appended, percent.
    wide_pct: u64,
}

fn estimators() -> [(&'static str, Estimator); 3] {
    let chars4 = Estimator {
        wide_chars_per_token: 4,
        calibrate: false,
        ..Estimator::default()
    };
    let script = Estimator {
        calibrate: false,
        ..Estimator::default()
    };
    [
        ("chars/4", chars4),
        ("by script", script),
        ("by script + calibration", Estimator::default()),
    ]
}

fn text_counts(m: &Message) -> (usize, usize) {
    fn add(a: (usize, usize), b: (usize, usize)) -> (usize, usize) {
        (a.0 + b.0, a.1 + b.1)
    }
    fn block(b: &Block) -> (usize, usize) {
        match b {
            Block::Text { text, .. } => script_counts(text),
            Block::Thinking { thinking, .. } => script_counts(thinking),
            Block::ToolUse { input, .. } => script_counts(input.text()),
            Block::ToolResult { content, .. } => match content {
                ToolResultContent::Text(t) => script_counts(t),
                ToolResultContent::Blocks(bs) => bs.iter().map(block).fold((0, 0), add),
                ToolResultContent::Absent => (0, 0),
            },
            _ => (0, 0),
        }
    }
    match &m.content {
        Content::Text(t) => script_counts(t),
        Content::Blocks(bs) => bs.iter().map(block).fold((0, 0), add),
    }
}

fn session(path: &Path, samples: &mut Vec<Sample>) {
    let bytes = std::fs::read(path).unwrap();
    let transcript = import(&bytes);
    for era in transcript.eras() {
        let mut views = estimators().map(|(_, e)| View::new(e));
        let mut last_real: Option<u64> = None;
        let mut appended = (0usize, 0usize);
        for &index in &era.messages {
            let Some(imported) = transcript.messages.get(index) else {
                continue;
            };
            let message = Arc::new(imported.message.clone());
            let real = message.usage.as_ref().map_or(0, |u| u.prompt_tokens());
            if message.role == Role::Assistant && real > 0 {
                if let Some(previous) = last_real.filter(|&p| real > p) {
                    let total = appended.0 + appended.1;
                    samples.push(Sample {
                        real,
                        real_delta: real - previous,
                        count: [0, 1, 2].map(|i| views[i].count(0).tokens),
                        wide_pct: (appended.1 * 100).checked_div(total).unwrap_or(0) as u64,
                    });
                }
                last_real = Some(real);
                appended = (0, 0);
            }
            let (latin, wide) = text_counts(&message);
            appended = (appended.0 + latin, appended.1 + wide);
            for view in &mut views {
                view.push(Arc::clone(&message), Source::Stored, Vec::new());
            }
        }
    }
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let at = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[at]
}

fn report(title: &str, samples: &[&Sample]) {
    println!("\n{title}: {} requests", samples.len());
    if samples.is_empty() {
        return;
    }
    println!(
        "  {:<24} {:>9} {:>9} {:>9} {:>9} {:>11} {:>11}",
        "estimator", "median %", "p90 %", "max %", "bias %", "median tok", "p90 tok"
    );
    for (i, (name, _)) in estimators().iter().enumerate() {
        // Error of the count against the real prompt, in percent of the
        // real prompt and in tokens.
        let mut pct: Vec<f64> = samples
            .iter()
            .map(|s| (s.count[i] as f64 - s.real as f64).abs() * 100.0 / s.real as f64)
            .collect();
        let mut tokens: Vec<f64> = samples
            .iter()
            .map(|s| (s.count[i] as f64 - s.real as f64).abs())
            .collect();
        pct.sort_by(f64::total_cmp);
        tokens.sort_by(f64::total_cmp);
        // Bias of the estimate of the appended part: Σ estimated / Σ real.
        let estimated: f64 = samples
            .iter()
            .map(|s| s.count[i] as f64 - (s.real - s.real_delta) as f64)
            .sum();
        let real: f64 = samples.iter().map(|s| s.real_delta as f64).sum();
        println!(
            "  {:<24} {:>9.2} {:>9.2} {:>9.2} {:>+9.1} {:>11.0} {:>11.0}",
            name,
            percentile(&pct, 0.5),
            percentile(&pct, 0.9),
            pct.last().copied().unwrap_or(f64::NAN),
            (estimated / real - 1.0) * 100.0,
            percentile(&tokens, 0.5),
            percentile(&tokens, 0.9),
        );
    }
}

fn main() {
    let dir = std::env::args()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/fixtures/sessions"));
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    files.sort();
    let mut samples = Vec::new();
    for file in &files {
        session(file, &mut samples);
    }
    println!(
        "{} session files in {}: the count before each request vs the prompt size the API reported",
        files.len(),
        dir.display()
    );
    println!("(error = |count − real| in % of the real prompt; bias = Σ estimate of the appended part / Σ its real size − 1)");
    report("all requests", &samples.iter().collect::<Vec<_>>());
    report(
        "requests after ≥ 1,000 real tokens were appended",
        &samples
            .iter()
            .filter(|s| s.real_delta >= 1_000)
            .collect::<Vec<_>>(),
    );
    for (name, lo, hi) in [
        ("Latin script (< 2% other)", 0, 2),
        ("mixed (2–30% other)", 2, 30),
        ("non-Latin (≥ 30% other)", 30, 101),
    ] {
        let group: Vec<&Sample> = samples
            .iter()
            .filter(|s| s.wide_pct >= lo && s.wide_pct < hi)
            .collect();
        report(&format!("appended text {name}"), &group);
    }
}
