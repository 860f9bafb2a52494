//! `compaction thresholds` as a user runs it: JSON on stdout, errors on
//! stderr, exit status.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test helpers may fail loudly

use crate::common::{compaction, ok as json, stderr};

/// The five lines of `compaction thresholds ARGS…`.
fn five(args: &[&str]) -> [u64; 5] {
    let v = json(&compaction(&[&["thresholds"], args].concat()));
    ["budget", "precompute", "warn", "compact", "blocked"].map(|f| v[f].as_u64().unwrap())
}

#[test]
fn thresholds_r1_3_example() {
    let args = ["--window", "200000", "--max-output", "20000"];
    assert_eq!(five(&args), [180_000, 144_000, 147_000, 167_000, 177_000]);
    let v = json(&compaction(&[&["thresholds"], &args[..]].concat()));
    assert!(v["overrideRequestedPct"].is_null());
    assert!(v["overrideAppliedPct"].is_null());
}

#[test]
fn thresholds_one_million_window() {
    let args = ["--window", "1000000", "--max-output", "32000"];
    assert_eq!(five(&args), [980_000, 784_000, 947_000, 967_000, 977_000]);
}

#[test]
fn thresholds_override_reports_requested_and_applied() {
    let v = json(&compaction(&[
        "thresholds",
        "--window",
        "200000",
        "--override-pct",
        "50",
    ]));
    assert_eq!(v["compact"], 90_000);
    assert_eq!(v["overrideRequestedPct"], 50.0);
    assert_eq!(v["overrideAppliedPct"], 50.0);
    let v = json(&compaction(&[
        "thresholds",
        "--window",
        "200000",
        "--override-pct",
        "99",
    ]));
    assert_eq!(v["compact"], 167_000);
    assert_eq!(v["overrideRequestedPct"], 99.0);
    assert!(v["overrideAppliedPct"].is_null());
}

#[test]
fn thresholds_reserve_cap_and_ceiling_flags() {
    let v = json(&compaction(&[
        "thresholds",
        "--window",
        "200000",
        "--max-output",
        "32000",
        "--reserve-cap",
        "32000",
        "--ceiling",
        "160000",
    ]));
    assert_eq!(v["budget"], 168_000);
    assert_eq!(v["blocked"], 157_000);
}

#[test]
fn small_window_exits_non_zero_naming_the_window() {
    let out = compaction(&["thresholds", "--window", "10000"]);
    assert!(!out.status.success());
    assert!(out.stdout.is_empty());
    let err = stderr(&out);
    assert!(err.contains("`--window` = 10000"), "{err}");
}

#[test]
fn bad_numbers_exit_non_zero_naming_the_flag() {
    for (flag, value) in [
        ("--window", "NaN"),
        ("--window", "-1"),
        ("--window", "1.5"),
        ("--window", "9007199254740992"),
        ("--window", "abc"),
        ("--max-output", "0"),
        ("--override-pct", "150"),
    ] {
        let mut args = vec!["thresholds", "--window", "200000"];
        if flag == "--window" {
            args = vec!["thresholds"];
        }
        args.extend([flag, value]);
        let out = compaction(&args);
        assert!(!out.status.success(), "{flag} {value} was accepted");
        let err = stderr(&out);
        assert!(err.contains(flag), "{flag} {value}: {err}");
    }
}
