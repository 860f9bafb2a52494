//! Threshold math against the spec's numbers (SPEC R1.1–R1.5).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test helpers may fail loudly

use compaction_core::thresholds::{RawThresholdSettings, ThresholdSettings, Thresholds};
use compaction_core::{Error, Setting};

fn lines(settings: ThresholdSettings) -> Thresholds {
    Thresholds::compute(&settings).expect("valid settings")
}

fn five(t: &Thresholds) -> [u64; 5] {
    [t.budget, t.precompute, t.warn, t.compact, t.blocked]
}

fn rejected(raw: RawThresholdSettings) -> (Setting, String, String) {
    let err = ThresholdSettings::try_from(&raw)
        .and_then(|s| Thresholds::compute(&s))
        .expect_err("invalid settings");
    match err {
        Error::InvalidSetting {
            setting,
            value,
            reason,
        } => (setting, value, reason),
        other => panic!("unexpected error {other:?}"),
    }
}

fn raw(window: f64) -> RawThresholdSettings {
    RawThresholdSettings {
        window,
        ..Default::default()
    }
}

#[test]
fn r1_3_worked_example_reproduces_exactly() {
    let t = lines(ThresholdSettings::for_window(200_000).with_max_output_tokens(20_000));
    assert_eq!(five(&t), [180_000, 144_000, 147_000, 167_000, 177_000]);
    assert_eq!(t.reserve, 20_000);
    assert_eq!(t.ceiling, 180_000);
}

#[test]
fn r1_1_reserve_is_capped_for_a_one_million_window() {
    let t = lines(ThresholdSettings::for_window(1_000_000).with_max_output_tokens(32_000));
    assert_eq!(five(&t), [980_000, 784_000, 947_000, 967_000, 977_000]);
    assert_eq!(t.reserve, 20_000);
}

#[test]
fn r1_1_small_max_output_is_the_reserve() {
    let t = lines(ThresholdSettings::for_window(200_000).with_max_output_tokens(8_000));
    assert_eq!(t.reserve, 8_000);
    assert_eq!(t.budget, 192_000);
}

#[test]
fn r1_1_reserve_cap_is_a_setting() {
    let t = lines(
        ThresholdSettings::for_window(200_000)
            .with_max_output_tokens(32_000)
            .with_reserve_cap(32_000),
    );
    assert_eq!(t.budget, 168_000);
}

#[test]
fn r1_2_a_ceiling_above_the_window_is_refused() {
    let err =
        Thresholds::compute(&ThresholdSettings::for_window(200_000).with_ceiling(1_000_000_000)).unwrap_err();
    assert!(
        matches!(
            err,
            Error::InvalidSetting {
                setting: Setting::Ceiling,
                ..
            }
        ),
        "{err}"
    );
    assert!(
        err.to_string()
            .contains("must not exceed the window (200000 tokens)"),
        "{err}"
    );
    assert!(Thresholds::compute(&ThresholdSettings::for_window(200_000).with_ceiling(200_000)).is_ok());
}

#[test]
fn r1_2_ceiling_moves_only_the_blocked_line() {
    let t = lines(ThresholdSettings::for_window(200_000).with_ceiling(190_000));
    assert_eq!(t.blocked, 187_000);
    assert_eq!(t.compact, 167_000);
}

#[test]
fn r1_2_warn_may_fall_below_precompute_on_small_windows() {
    let t = lines(ThresholdSettings::for_window(60_000));
    assert_eq!(five(&t), [40_000, 32_000, 7_000, 27_000, 37_000]);
    assert!(t.warn < t.precompute);
}

#[test]
fn r1_4_override_lowers_the_compact_line_and_warn_follows() {
    let t = lines(ThresholdSettings::for_window(200_000).with_override_pct(50.0));
    assert_eq!(t.compact, 90_000);
    assert_eq!(t.warn, 70_000);
    assert_eq!(t.compact_default, 167_000);
    assert_eq!(t.override_requested_pct, Some(50.0));
    assert_eq!(t.override_applied_pct, Some(50.0));
    // The other lines do not move.
    assert_eq!([t.budget, t.precompute, t.blocked], [180_000, 144_000, 177_000]);
}

#[test]
fn r1_4_override_is_clamped_so_it_cannot_raise_the_line() {
    let t = lines(ThresholdSettings::for_window(200_000).with_override_pct(95.0));
    assert_eq!(
        t.compact, 167_000,
        "95% of 180,000 is 171,000: above the default line"
    );
    assert_eq!(t.warn, 147_000);
    assert_eq!(t.override_requested_pct, Some(95.0));
    assert_eq!(t.override_applied_pct, None);
}

#[test]
fn r1_4_no_override_reports_none() {
    let t = lines(ThresholdSettings::for_window(200_000));
    assert_eq!((t.override_requested_pct, t.override_applied_pct), (None, None));
}

#[test]
fn r1_5_window_not_above_the_reserve_names_the_window() {
    let (setting, value, reason) = rejected(raw(10_000.0));
    assert_eq!((setting, value.as_str()), (Setting::Window, "10000"));
    assert!(reason.contains("reserve"), "{reason}");
    let (setting, ..) = rejected(raw(20_000.0));
    assert_eq!(setting, Setting::Window);
}

#[test]
fn r1_5_zero_negative_nan_infinite_and_fractional_values_are_rejected() {
    for (value, shown) in [
        (0.0, "0"),
        (-1.0, "-1"),
        (f64::NAN, "NaN"),
        (f64::INFINITY, "inf"),
        (f64::NEG_INFINITY, "-inf"),
        (200_000.5, "200000.5"),
        (9_007_199_254_740_992.0, "9007199254740992"),
    ] {
        let (setting, got, _) = rejected(raw(value));
        assert_eq!((setting, got.as_str()), (Setting::Window, shown));
        let (setting, got, _) = rejected(RawThresholdSettings {
            max_output_tokens: Some(value),
            ..raw(200_000.0)
        });
        assert_eq!((setting, got.as_str()), (Setting::MaxOutputTokens, shown));
        let (setting, _, _) = rejected(RawThresholdSettings {
            reserve_cap: Some(value),
            ..raw(200_000.0)
        });
        assert_eq!(setting, Setting::ReserveCap);
        let (setting, _, _) = rejected(RawThresholdSettings {
            ceiling: Some(value),
            ..raw(200_000.0)
        });
        assert_eq!(setting, Setting::Ceiling);
    }
}

#[test]
fn r1_5_override_outside_one_to_hundred_is_rejected() {
    for pct in [0.0, 0.5, -5.0, 100.5, 101.0, f64::NAN, f64::INFINITY] {
        let (setting, ..) = rejected(RawThresholdSettings {
            override_pct: Some(pct),
            ..raw(200_000.0)
        });
        assert_eq!(setting, Setting::OverridePct, "{pct}");
    }
    for pct in [15.0, 100.0, 37.5] {
        let settings = ThresholdSettings::for_window(200_000).with_override_pct(pct);
        assert!(Thresholds::compute(&settings).is_ok(), "{pct}");
    }
}

#[test]
fn r1_5_an_override_that_pushes_warn_below_zero_names_the_override() {
    // 5% of 180,000 is 9,000: warn would be −11,000.
    let (setting, value, reason) = rejected(RawThresholdSettings {
        override_pct: Some(5.0),
        ..raw(200_000.0)
    });
    assert_eq!((setting, value.as_str()), (Setting::OverridePct, "5"));
    assert!(reason.contains("warn line would be -11000"), "{reason}");
}

#[test]
fn r1_5_a_line_at_or_below_zero_is_rejected() {
    // 5% of a 20,000 budget is 1,000: warn would be 1,000 − 10,303 (the
    // warn margin scaled by 17,000 / 33,000) = −9,303.
    let (setting, value, reason) = rejected(RawThresholdSettings {
        override_pct: Some(5.0),
        ..raw(40_000.0)
    });
    assert_eq!((setting, value.as_str()), (Setting::OverridePct, "5"));
    assert!(reason.contains("warn line would be -9303"), "{reason}");
    // A ceiling under the blocked margin.
    let (setting, value, _) = rejected(RawThresholdSettings {
        ceiling: Some(3_000.0),
        ..raw(200_000.0)
    });
    assert_eq!((setting, value.as_str()), (Setting::Ceiling, "3000"));
}

#[test]
fn r1_5a_small_windows_scale_the_margins() {
    // 8k with 1k output: budget 7,168; the margins take 85% of it, in the
    // proportion 13 : 20 : 3.
    let t = lines(ThresholdSettings::for_window(8_192).with_max_output_tokens(1_024));
    assert_eq!(five(&t), [7_168, 5_734, 1_076, 4_768, 6_615]);
    // 16k and 32k with 4k output.
    let t = lines(ThresholdSettings::for_window(16_384).with_max_output_tokens(4_096));
    assert_eq!(five(&t), [12_288, 9_830, 1_844, 8_174, 11_339]);
    let t = lines(ThresholdSettings::for_window(32_768).with_max_output_tokens(4_096));
    assert_eq!(five(&t), [28_672, 22_937, 4_302, 19_072, 26_457]);
    // The window issue 13 could not configure (the warn line was −4,328).
    let t = lines(ThresholdSettings::for_window(32_768).with_max_output_tokens(4_000));
    assert!(0 < t.warn && t.warn <= t.compact && t.compact < t.blocked && t.blocked <= t.budget);
}

#[test]
fn r1_5a_absolute_margins_hold_wherever_they_fit() {
    // From a budget of 38,824 (33,000 is 85% of 38,823.5) the absolute
    // margins are in force; one token less and they scale (each rounded
    // down: 12,999, 19,999 and 2,999).
    let at = |budget: u64| lines(ThresholdSettings::for_window(budget + 20_000));
    let t = at(38_824);
    assert_eq!([t.compact, t.warn, t.blocked], [25_824, 5_824, 35_824]);
    let t = at(38_823);
    assert_eq!([t.compact, t.warn, t.blocked], [25_824, 5_825, 35_824]);
}

#[test]
fn r1_5a_margin_share_is_a_setting() {
    let mut settings = ThresholdSettings::for_window(28_192);
    settings.margin_share_pct = 50;
    let t = lines(settings.clone());
    // budget 8,192: the compact and warn margins take 4,096 together.
    assert_eq!(t.budget - t.warn, 4_096 - 1);
    for bad in [0, 100, 250] {
        settings.margin_share_pct = bad;
        let err = Thresholds::compute(&settings).unwrap_err();
        assert_eq!(err.setting(), Some(Setting::MarginSharePct), "{bad}");
    }
}

#[test]
fn r1_5a_every_budget_from_three_tokens_has_ordered_lines() {
    for budget in 1..=60_000_u64 {
        let result = Thresholds::compute(&ThresholdSettings::for_window(budget + 20_000));
        if budget < 3 {
            assert!(result.is_err(), "{budget}");
            continue;
        }
        let t = result.unwrap_or_else(|e| panic!("budget {budget}: {e}"));
        assert!(
            0 < t.warn && t.warn <= t.compact && t.compact < t.blocked && t.blocked <= t.budget,
            "budget {budget}: {t:?}"
        );
    }
}

#[test]
fn r1_5_compact_at_or_above_blocked_is_rejected() {
    // ceiling 170,000 → blocked 167,000 = compact.
    let (setting, value, reason) = rejected(RawThresholdSettings {
        ceiling: Some(170_000.0),
        ..raw(200_000.0)
    });
    assert_eq!((setting, value.as_str()), (Setting::Ceiling, "170000"));
    assert!(reason.contains("below the blocked line"), "{reason}");

    let mut settings = ThresholdSettings::for_window(200_000);
    settings.compact_margin = 2_000;
    let err = Thresholds::compute(&settings).unwrap_err();
    assert_eq!(err.setting(), Some(Setting::CompactMargin));
}

#[test]
fn r1_5_errors_read_as_one_lowercase_sentence_naming_setting_and_value() {
    let err = Thresholds::compute(&ThresholdSettings::for_window(10_000)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid setting `window` = 10000: must be larger than the reserve for the reply (20000 tokens)"
    );
}

#[test]
fn thresholds_serialise_in_camel_case() {
    let t = lines(ThresholdSettings::for_window(200_000).with_max_output_tokens(20_000));
    let json = serde_json::to_value(&t).unwrap();
    assert_eq!(json["compactDefault"], 167_000);
    assert_eq!(json["overrideRequestedPct"], serde_json::Value::Null);
}

proptest::proptest! {
    #![proptest_config(proptest::test_runner::Config { cases: 2_000, ..Default::default() })]

    /// R1.5a over windows 8,192..=2,000,000 and any reply reserve that
    /// leaves a budget of 3 tokens or more: the lines are ordered inside
    /// the budget, and from a budget of 38,824 the absolute margins of R1.2
    /// are in force unchanged.
    #[test]
    fn r1_5a_lines_are_ordered_for_every_window_and_reserve(
        window in 8_192_u64..=2_000_000,
        reserve_share in 0.0_f64..1.0,
        cap in proptest::option::of(1_u64..=200_000),
    ) {
        let max_output = ((window - 4) as f64 * reserve_share) as u64 + 1;
        let mut settings = ThresholdSettings::for_window(window).with_max_output_tokens(max_output);
        if let Some(cap) = cap {
            settings = settings.with_reserve_cap(cap);
        }
        let t = Thresholds::compute(&settings).unwrap();
        proptest::prop_assert!(0 < t.warn, "{t:?}");
        proptest::prop_assert!(t.warn <= t.compact, "{t:?}");
        proptest::prop_assert!(t.compact < t.blocked, "{t:?}");
        proptest::prop_assert!(t.blocked <= t.budget, "{t:?}");
        proptest::prop_assert!(0 < t.precompute && t.precompute <= t.budget, "{t:?}");
        if t.budget >= 38_824 {
            proptest::prop_assert_eq!(
                [t.compact, t.warn, t.blocked],
                [t.budget - 13_000, t.budget - 33_000, t.budget - 3_000]
            );
        }
    }
}
