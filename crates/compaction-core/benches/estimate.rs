//! The token estimate of text (SPEC R1.6a), the engine's hottest loop:
//! a 1 MiB source-code-like ASCII text, 1 MiB of English prose with a few
//! typographic characters, and 1 MiB of Japanese/Chinese/Korean text.
//!
//! `cargo bench -p compaction-core --bench estimate`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use compaction_core::tokens::Estimator;
use divan::counter::BytesCount;
use divan::Bencher;

const SIZE: usize = 1 << 20;

fn text(kind: &str) -> String {
    let unit = match kind {
        "code" => "    let total = items.iter().map(|x| x.len()).sum::<usize>(); // count\n",
        "prose" => "The reply \u{2014} as the \u{201c}tool\u{201d} said \u{2026} was fine. ",
        _ => "日本語の文書です。한국어 텍스트입니다。中文文本内容。",
    };
    let mut s = String::with_capacity(SIZE + unit.len());
    while s.len() < SIZE {
        s.push_str(unit);
    }
    s
}

fn main() {
    let e = Estimator::default();
    for kind in ["code", "prose", "cjk"] {
        let t = text(kind);
        println!(
            "{kind}: {} bytes, {} chars, {} tokens estimated",
            t.len(),
            t.chars().count(),
            e.text(&t)
        );
    }
    divan::main();
}

#[divan::bench(args = ["code", "prose", "cjk"], sample_count = 100)]
fn estimate_text(bencher: Bencher, kind: &str) {
    let t = text(kind);
    let e = Estimator::default();
    bencher
        .counter(BytesCount::new(t.len()))
        .bench(|| e.text(divan::black_box(&t)));
}
