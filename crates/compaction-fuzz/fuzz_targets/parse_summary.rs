//! Fuzzes `compaction_core::summary::parse_summary` with arbitrary strings: it must never panic, and an `Ok` is never blank.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|reply: &str| {
    if let Ok(text) = compaction_core::summary::parse_summary(reply) {
        assert!(!text.trim().is_empty(), "parse_summary accepted a blank summary");
    }
});
