//! Threshold math (SPEC R1.1–R1.5): the four lines a context count is held
//! against, derived from the model's window and the reply's reserve.
//!
//! ```text
//! budget     = window − min(max_output_tokens, reserve_cap)        R1.1
//! precompute = budget − precompute_pct % of budget                  R1.2
//! compact    = budget − compact_margin  (or override % of budget,   R1.2, R1.4
//!                                        only ever lower)
//! warn       = compact − warn_margin                                R1.2
//! blocked    = ceiling − blocked_margin (ceiling = budget unless set)
//! ```
//!
//! All results are whole tokens, rounded down. Every constant is a setting
//! whose default is the source's number.
//!
//! Small windows (R1.5a, extension): the absolute margins (13k, 20k, 3k)
//! would push the warn line to zero or below once the budget is under
//! 33,000 tokens. The rule: the compact and warn margins together may take
//! at most `margin_share_pct` (default 85) percent of the budget. When they
//! would take more, all three margins (compact, warn, blocked) shrink by
//! the same factor, `margin_share_pct % × budget / (compact + warn margin)`,
//! each rounded down. Below that point nothing changes, so every window
//! whose absolute lines fit (a budget of 38,824 tokens or more at the
//! defaults, R1.3's 200k among them) keeps the numbers of R1.2 exactly,
//! and for every budget of 3 tokens or more
//! `0 < warn ≤ compact < blocked ≤ budget`. At window 8,192 with 1,024
//! output: budget 7,168, compact 4,768, warn 1,076, blocked 6,615.

use serde::Serialize;

use crate::error::{Error, Num, Setting};
use crate::tokens::wide_div_rem;

pub use crate::message::MAX_TOKENS;

/// Validated settings for the threshold math. Build one with
/// [`ThresholdSettings::for_window`] and the `with_*` methods, or convert
/// untrusted numbers with [`RawThresholdSettings`].
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ThresholdSettings {
    /// The model's context window (R1.1).
    pub window: u64,
    /// The model's maximum output tokens. `None`: the reserve is the cap.
    pub max_output_tokens: Option<u64>,
    /// The most the reply's reserve may take (R1.1; default 20,000).
    pub reserve_cap: u64,
    /// The model input ceiling (R1.2; `None`: the budget).
    pub ceiling: Option<u64>,
    /// Auto-compact override, percent of the budget, 1–100 (R1.4).
    pub override_pct: Option<f64>,
    /// Precompute sits this percent of the budget below it (R1.2; default 20).
    pub precompute_pct: u64,
    /// Compact sits this far below the budget (R1.2; default 13,000).
    pub compact_margin: u64,
    /// Warn sits this far below the compact line (R1.2; default 20,000).
    pub warn_margin: u64,
    /// Blocked sits this far below the ceiling (R1.2; default 3,000).
    pub blocked_margin: u64,
    /// The most of the budget the compact and warn margins may take
    /// together, in percent (R1.5a; default 85). Beyond it the three
    /// margins shrink in proportion (see the module documentation).
    pub margin_share_pct: u64,
}

impl ThresholdSettings {
    /// Default reserve cap (R1.1).
    pub const DEFAULT_RESERVE_CAP: u64 = 20_000;
    /// Default precompute distance, percent of the budget (R1.2).
    pub const DEFAULT_PRECOMPUTE_PCT: u64 = 20;
    /// Default compact margin (R1.2).
    pub const DEFAULT_COMPACT_MARGIN: u64 = 13_000;
    /// Default warn margin (R1.2).
    pub const DEFAULT_WARN_MARGIN: u64 = 20_000;
    /// Default blocked margin (R1.2).
    pub const DEFAULT_BLOCKED_MARGIN: u64 = 3_000;
    /// Default share of the budget the margins may take (R1.5a).
    pub const DEFAULT_MARGIN_SHARE_PCT: u64 = 85;

    /// The source's defaults for a model with this context window.
    pub fn for_window(window: u64) -> Self {
        Self {
            window,
            max_output_tokens: None,
            reserve_cap: Self::DEFAULT_RESERVE_CAP,
            ceiling: None,
            override_pct: None,
            precompute_pct: Self::DEFAULT_PRECOMPUTE_PCT,
            compact_margin: Self::DEFAULT_COMPACT_MARGIN,
            warn_margin: Self::DEFAULT_WARN_MARGIN,
            blocked_margin: Self::DEFAULT_BLOCKED_MARGIN,
            margin_share_pct: Self::DEFAULT_MARGIN_SHARE_PCT,
        }
    }

    /// Sets the model's maximum output tokens.
    pub fn with_max_output_tokens(mut self, tokens: u64) -> Self {
        self.max_output_tokens = Some(tokens);
        self
    }

    /// Sets the reserve cap.
    pub fn with_reserve_cap(mut self, tokens: u64) -> Self {
        self.reserve_cap = tokens;
        self
    }

    /// Sets the model input ceiling.
    pub fn with_ceiling(mut self, tokens: u64) -> Self {
        self.ceiling = Some(tokens);
        self
    }

    /// Sets the auto-compact override percentage.
    pub fn with_override_pct(mut self, pct: f64) -> Self {
        self.override_pct = Some(pct);
        self
    }
}

/// Settings as untrusted numbers, the way a CLI flag or a JavaScript caller
/// gives them. `None` means "the default". Converting checks every value:
/// NaN, infinities, negatives, fractions and anything above [`MAX_TOKENS`]
/// are errors naming the setting.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RawThresholdSettings {
    /// See [`ThresholdSettings::window`].
    pub window: f64,
    /// See [`ThresholdSettings::max_output_tokens`].
    pub max_output_tokens: Option<f64>,
    /// See [`ThresholdSettings::reserve_cap`].
    pub reserve_cap: Option<f64>,
    /// See [`ThresholdSettings::ceiling`].
    pub ceiling: Option<f64>,
    /// See [`ThresholdSettings::override_pct`].
    pub override_pct: Option<f64>,
}

impl TryFrom<&RawThresholdSettings> for ThresholdSettings {
    type Error = Error;

    fn try_from(raw: &RawThresholdSettings) -> Result<Self, Error> {
        let mut settings = ThresholdSettings::for_window(whole_tokens(Setting::Window, raw.window)?);
        settings.max_output_tokens = raw
            .max_output_tokens
            .map(|v| whole_tokens(Setting::MaxOutputTokens, v))
            .transpose()?;
        if let Some(v) = raw.reserve_cap {
            settings.reserve_cap = whole_tokens(Setting::ReserveCap, v)?;
        }
        settings.ceiling = raw
            .ceiling
            .map(|v| whole_tokens(Setting::Ceiling, v))
            .transpose()?;
        settings.override_pct = raw.override_pct;
        Ok(settings)
    }
}

/// Converts an untrusted number into a whole token count.
pub fn whole_tokens(setting: Setting, value: f64) -> Result<u64, Error> {
    if !value.is_finite() {
        return Err(Error::invalid(setting, Num(value), "must be a finite number"));
    }
    if value.fract() != 0.0 {
        return Err(Error::invalid(
            setting,
            Num(value),
            "must be a whole number of tokens",
        ));
    }
    if value < 0.0 {
        return Err(Error::invalid(setting, Num(value), "must not be negative"));
    }
    if value > MAX_TOKENS as f64 {
        return Err(Error::invalid(
            setting,
            Num(value),
            format!("must be at most {MAX_TOKENS}"),
        ));
    }
    // Finite, whole, and within 0..=2^53−1: the cast is exact.
    Ok(value as u64)
}

/// The lines derived from [`ThresholdSettings`] (R1.1–R1.4), in tokens.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Thresholds {
    /// The context window the lines were derived from.
    pub window: u64,
    /// Room kept for the model's reply: `min(max_output_tokens, reserve_cap)`.
    pub reserve: u64,
    /// `window − reserve` (R1.1).
    pub budget: u64,
    /// The model input ceiling the blocked line hangs from.
    pub ceiling: u64,
    /// A background summary starts here (R1.7, R9).
    pub precompute: u64,
    /// The host shows "N tokens left" from here (R1.7).
    pub warn: u64,
    /// Tiers 2–4 of the cascade run from here (R1.7, R3).
    pub compact: u64,
    /// Calls are refused from here until the host compacts (R1.7).
    pub blocked: u64,
    /// The compact line without the override (R1.2).
    pub compact_default: u64,
    /// The override percentage asked for (R1.4), if any.
    pub override_requested_pct: Option<f64>,
    /// The override percentage in force: `None` when none was asked for, or
    /// when it would have raised the line and was clamped away (R1.4).
    pub override_applied_pct: Option<f64>,
}

impl Thresholds {
    /// Derives the lines, or names the first invalid setting (R1.5).
    pub fn compute(settings: &ThresholdSettings) -> Result<Self, Error> {
        check_positive(Setting::Window, settings.window)?;
        if let Some(max_output) = settings.max_output_tokens {
            check_positive(Setting::MaxOutputTokens, max_output)?;
        }
        check_positive(Setting::ReserveCap, settings.reserve_cap)?;
        if let Some(ceiling) = settings.ceiling {
            check_positive(Setting::Ceiling, ceiling)?;
            if ceiling > settings.window {
                return Err(Error::invalid(
                    Setting::Ceiling,
                    ceiling,
                    format!(
                        "must not exceed the window ({} tokens): the model reads no more than its window",
                        settings.window
                    ),
                ));
            }
        }
        check_at_most(Setting::CompactMargin, settings.compact_margin, MAX_TOKENS)?;
        check_at_most(Setting::WarnMargin, settings.warn_margin, MAX_TOKENS)?;
        check_at_most(Setting::BlockedMargin, settings.blocked_margin, MAX_TOKENS)?;
        check_at_most(Setting::PrecomputePct, settings.precompute_pct, 100)?;
        check_positive(Setting::MarginSharePct, settings.margin_share_pct)?;
        check_at_most(Setting::MarginSharePct, settings.margin_share_pct, 99)?;
        if let Some(pct) = settings.override_pct {
            if !pct.is_finite() || !(1.0..=100.0).contains(&pct) {
                return Err(Error::invalid(
                    Setting::OverridePct,
                    Num(pct),
                    "must be a percentage from 1 to 100",
                ));
            }
        }

        let reserve = settings
            .max_output_tokens
            .map_or(settings.reserve_cap, |max_output| {
                max_output.min(settings.reserve_cap)
            });
        if settings.window <= reserve {
            return Err(Error::invalid(
                Setting::Window,
                settings.window,
                format!("must be larger than the reserve for the reply ({reserve} tokens)"),
            ));
        }
        let budget = settings.window - reserve;
        let ceiling = settings.ceiling.unwrap_or(budget);

        // Signed, wide arithmetic: a line may come out at or below zero, and
        // that is reported, not wrapped.
        let wide = |v: u64| i128::from(v);
        let margins = Margins::for_budget(settings, budget);
        let precompute = quotient(wide(budget) * (100 - wide(settings.precompute_pct)), 100);
        let compact_default = wide(budget) - margins.compact;
        let override_line = settings
            .override_pct
            // budget < window <= MAX_TOKENS (2^53 - 1) and pct <= 100: an
            // i64 holds the line exactly (`as i128` from a float is a
            // library routine in wasm).
            .map(|pct| i128::from((budget as f64 * pct / 100.0).floor() as i64));
        let (compact, override_applied_pct) = match (override_line, settings.override_pct) {
            (Some(line), Some(pct)) if line <= compact_default => (line, Some(pct)),
            _ => (compact_default, None),
        };
        let warn = compact - margins.warn;
        let blocked = wide(ceiling) - margins.blocked;

        // Shown as i64 (every real line fits; printing an i128 would bring
        // its own formatting code into the wasm module).
        let shown = |v: i128| i64::try_from(v).unwrap_or(if v < 0 { i64::MIN } else { i64::MAX });
        let window_too_small = |line: &str, value: i128| {
            let value = shown(value);
            Error::invalid(
                Setting::Window,
                settings.window,
                format!("too small: the {line} line would be {value} tokens, and every line must be above 0"),
            )
        };
        // The compact and warn lines follow an applied override: a line it
        // pushes to zero is the override's fault, not the window's.
        let compact_line_error = |line: &str, value: i128| match override_applied_pct {
            Some(pct) => Error::invalid(
                Setting::OverridePct,
                Num(pct),
                format!(
                    "too low: the {line} line would be {} tokens, and every line must be above 0",
                    shown(value)
                ),
            ),
            None => window_too_small(line, value),
        };
        if precompute <= 0 {
            return Err(if settings.precompute_pct == 100 {
                Error::invalid(Setting::PrecomputePct, 100, "would put the precompute line at 0")
            } else {
                window_too_small("precompute", precompute)
            });
        }
        if compact <= 0 {
            return Err(compact_line_error("compact", compact));
        }
        if warn <= 0 {
            return Err(compact_line_error("warn", warn));
        }
        if blocked <= 0 {
            return Err(match settings.ceiling {
                Some(c) => Error::invalid(
                    Setting::Ceiling,
                    c,
                    format!("would put the blocked line at {} tokens", shown(blocked)),
                ),
                None => window_too_small("blocked", blocked),
            });
        }
        if compact >= blocked {
            let reason = format!(
                "the compact line ({}) must sit below the blocked line ({})",
                shown(compact),
                shown(blocked)
            );
            return Err(match settings.ceiling {
                Some(c) => Error::invalid(Setting::Ceiling, c, reason),
                None => Error::invalid(Setting::CompactMargin, settings.compact_margin, reason),
            });
        }

        // Every line is now in 1..=budget or 1..=ceiling, so it fits a u64.
        let narrow = |v: i128| u64::try_from(v).unwrap_or(0);
        Ok(Thresholds {
            window: settings.window,
            reserve,
            budget,
            ceiling,
            precompute: narrow(precompute),
            warn: narrow(warn),
            compact: narrow(compact),
            blocked: narrow(blocked),
            compact_default: narrow(compact_default),
            override_requested_pct: settings.override_pct,
            override_applied_pct,
        })
    }
}

/// The three margins in force for a budget (R1.2, scaled by R1.5a).
struct Margins {
    compact: i128,
    warn: i128,
    blocked: i128,
}

impl Margins {
    fn for_budget(settings: &ThresholdSettings, budget: u64) -> Self {
        let wide = |v: u64| i128::from(v);
        let stack = wide(settings.compact_margin) + wide(settings.warn_margin);
        // The most the compact and warn margins may take, times 100.
        let room = wide(budget) * wide(settings.margin_share_pct);
        if stack * 100 <= room {
            return Margins {
                compact: wide(settings.compact_margin),
                warn: wide(settings.warn_margin),
                blocked: wide(settings.blocked_margin),
            };
        }
        // stack > 0 here (room ≥ 0); every margin × room fits an i128
        // (both factors are below 2^60).
        let scaled = |margin: u64| quotient(wide(margin) * room, stack * 100);
        Margins {
            compact: scaled(settings.compact_margin),
            warn: scaled(settings.warn_margin),
            blocked: scaled(settings.blocked_margin),
        }
    }
}

/// `n / d` for `n >= 0` and `d > 0`, as every division here is: by
/// [`wide_div_rem`], not `i128`'s `/` (a library routine in wasm).
fn quotient(n: i128, d: i128) -> i128 {
    // The quotient is at most `n`, so it fits an `i128`.
    wide_div_rem(n.unsigned_abs(), d.unsigned_abs()).0 as i128
}

fn check_positive(setting: Setting, value: u64) -> Result<(), Error> {
    if value == 0 {
        return Err(Error::invalid(setting, value, "must be greater than 0"));
    }
    check_at_most(setting, value, MAX_TOKENS)
}

fn check_at_most(setting: Setting, value: u64, max: u64) -> Result<(), Error> {
    if value > max {
        return Err(Error::invalid(setting, value, format!("must be at most {max}")));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_tokens_accepts_the_largest_safe_integer() {
        assert_eq!(
            whole_tokens(Setting::Window, 9_007_199_254_740_991.0),
            Ok(MAX_TOKENS)
        );
    }

    #[test]
    fn rejected_numbers_are_shown_as_json_shows_them() {
        let shown = |v: f64| whole_tokens(Setting::Window, v).unwrap_err().to_string();
        assert!(shown(1.5).contains("`window` = 1.5:"), "{}", shown(1.5));
        assert!(shown(-3.0).contains("`window` = -3:"), "{}", shown(-3.0));
        assert!(shown(f64::NAN).contains("`window` = NaN:"), "{}", shown(f64::NAN));
        assert!(shown(f64::NEG_INFINITY).contains("`window` = -inf:"));
        assert!(shown(1e300).contains("`window` = 1e+300:"), "{}", shown(1e300));
    }

    #[test]
    fn whole_tokens_rejects_two_to_the_53() {
        let err = whole_tokens(Setting::Window, 9_007_199_254_740_992.0).unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid setting `window` = 9007199254740992: must be at most 9007199254740991"
        );
    }

    #[test]
    fn precompute_rounds_down() {
        // budget 180,001: 80% is 144,000.8 → 144,000.
        let lines = Thresholds::compute(&ThresholdSettings::for_window(200_001)).unwrap();
        assert_eq!(lines.budget, 180_001);
        assert_eq!(lines.precompute, 144_000);
    }

    #[test]
    fn override_rounds_down() {
        // budget 180,001: 50% is 90,000.5 → 90,000.
        let lines =
            Thresholds::compute(&ThresholdSettings::for_window(200_001).with_override_pct(50.0)).unwrap();
        assert_eq!(lines.compact, 90_000);
        assert_eq!(lines.warn, 70_000);
    }
}
