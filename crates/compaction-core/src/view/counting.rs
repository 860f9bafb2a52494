//! What the count rests on, as data a host can persist (R1.6, R1.6a): the
//! last reported usage the count starts from and the calibration earlier
//! reports made. Neither can be derived again from the messages a resumed
//! session sees: a refused request's stated size is on no message, the
//! calibration spans reports on messages a compaction has since replaced,
//! and a reduction after a report moves the count, not the report. A
//! session file keeps it in a `count_calibrated` record
//! ([`crate::transcript::counted`]), so a resumed engine counts as the live
//! one did.

use serde::Serialize;

use super::{Anchor, View};
use crate::message::Uuid;
use crate::tokens::{wide_div_ceil, Estimator};

/// The view's counting state, as data.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Counting {
    /// What reported usage has said of the estimator so far.
    pub calibration: Calibration,
    /// The last reported usage, when the count starts from one.
    pub anchor: Option<SavedAnchor>,
    /// What the view predicts the server clears by context editing (R4.3):
    /// the engine's, not the view's (`None` from [`View::counting`]).
    pub server_cleared: Option<ServerCleared>,
}

/// The cache-aware microcompact's prediction (R4.3), placed by tool id: the
/// server clears the oldest eligible results up to and with `through`. It
/// rests on when the path fired, which the messages cannot say again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerCleared {
    /// The `tool_use_id` of the newest eligible call whose result the
    /// server clears.
    pub through: String,
    /// Eligible tool calls in the view when the path last fired.
    pub fired_at: u64,
}

/// The last reported usage (R1.6), placed by uuid rather than position.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SavedAnchor {
    /// The entry at the usage's position: the message carrying it, or the
    /// first one appended after a refused request's stated size
    /// ([`View::recalibrate`]); `None` when nothing follows that size yet.
    pub uuid: Option<Uuid>,
    /// The tokens reported.
    pub reported: u64,
    /// The reply's counted output minus its content's estimate.
    pub reply_delta: i64,
    /// What the view has freed (negative) or added before the usage's
    /// position since it was reported.
    pub prefix_delta: i64,
}

/// What reported usage says of the estimator (R1.6a): the real tokens of
/// what was appended between two reports, against their estimate, summed
/// over the session.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Calibration {
    /// Reported tokens between consecutive reports.
    pub real: u64,
    /// Estimated tokens of the same messages.
    pub estimated: u64,
}

impl Calibration {
    /// `tokens` as the calibration corrects them: scaled by real /
    /// estimated once `min_tokens` have been estimated, the factor kept
    /// within `100 / max_pct ..= max_pct / 100`.
    pub fn apply(&self, tokens: u64, estimator: &Estimator) -> u64 {
        if !estimator.calibrate {
            return tokens;
        }
        if self.estimated == 0 || self.estimated < estimator.calibration_min_tokens {
            return self.uncalibrated(tokens, estimator);
        }
        let max_pct = u128::from(estimator.calibration_max_pct.max(100));
        let (real, est) = (u128::from(self.real), u128::from(self.estimated));
        // real / est clamped to [100 / max_pct, max_pct / 100].
        let (num, den) = if real * max_pct < est * 100 {
            (100, max_pct)
        } else if real * 100 > est * max_pct {
            (max_pct, 100)
        } else {
            (real, est)
        };
        match (u64::try_from(num), u64::try_from(den)) {
            (Ok(num), Ok(den)) => mul_div_ceil(tokens, num, den),
            _ => u64::try_from(wide_div_ceil(u128::from(tokens) * num, den)).unwrap_or(u64::MAX),
        }
    }

    /// [`Calibration::apply`], except that the margin an uncalibrated
    /// estimate keeps is kept on text only: `media` of the `tokens` are
    /// images and documents, counted as the provider bills them.
    pub fn apply_with_media(&self, tokens: u64, media: u64, estimator: &Estimator) -> u64 {
        let calibrated = self.estimated != 0 && self.estimated >= estimator.calibration_min_tokens;
        if !estimator.calibrate || calibrated {
            return self.apply(tokens, estimator);
        }
        let media = media.min(tokens);
        self.uncalibrated(tokens - media, estimator).saturating_add(media)
    }

    /// `tokens` with the margin an uncalibrated estimate keeps
    /// ([`Estimator::uncalibrated_margin_pct`]), shrinking linearly with
    /// the tokens compared so far, gone at `calibration_min_tokens`.
    pub fn uncalibrated(&self, tokens: u64, estimator: &Estimator) -> u64 {
        let min = estimator.calibration_min_tokens.max(1);
        let left = min.saturating_sub(self.estimated);
        // tokens × (1 + margin% × left / min), rounded up.
        let extra = match (
            estimator.uncalibrated_margin_pct.checked_mul(left),
            min.checked_mul(100),
        ) {
            (Some(margin), Some(scale)) => mul_div_ceil(tokens, margin, scale),
            _ => {
                let (min, margin) = (u128::from(min), u128::from(estimator.uncalibrated_margin_pct));
                let extra = wide_div_ceil(
                    u128::from(tokens).saturating_mul(margin * u128::from(left)),
                    100 * min,
                );
                u64::try_from(extra).unwrap_or(u64::MAX)
            }
        };
        tokens.saturating_add(extra)
    }
}

/// ⌈`a` × `b` / `d`⌉, saturated to `u64`: in `u64` when the product fits
/// (any real count; it is counted several times a call, and `u128`
/// arithmetic is a library call in wasm), else in `u128`.
fn mul_div_ceil(a: u64, b: u64, d: u64) -> u64 {
    match a.checked_mul(b) {
        Some(product) => product.div_ceil(d),
        None => {
            u64::try_from(wide_div_ceil(u128::from(a) * u128::from(b), u128::from(d))).unwrap_or(u64::MAX)
        }
    }
}

impl View {
    /// The counting state, to persist.
    pub fn counting(&self) -> Counting {
        Counting {
            calibration: self.calibration,
            anchor: self.anchor.map(|a| SavedAnchor {
                uuid: self.entries.get(a.position).map(|e| e.message.uuid.clone()),
                reported: a.reported,
                reply_delta: a.reply_delta,
                prefix_delta: a.prefix_delta,
            }),
            server_cleared: None,
        }
    }

    /// Whether [`View::counting`] is `counting` (its `server_cleared` not
    /// compared), allocating nothing.
    pub fn counting_is(&self, counting: &Counting) -> bool {
        self.calibration == counting.calibration
            && match (&self.anchor, &counting.anchor) {
                (None, None) => true,
                (Some(a), Some(s)) => {
                    a.reported == s.reported
                        && a.reply_delta == s.reply_delta
                        && a.prefix_delta == s.prefix_delta
                        && self.entries.get(a.position).map(|e| &e.message.uuid) == s.uuid.as_ref()
                }
                _ => false,
            }
    }

    /// Takes a persisted counting state as the view's own, as it stands
    /// now: the anchor is placed at its uuid (at the end when it names
    /// none), and dropped when the view no longer holds that message (the
    /// count is then estimated, as the live view's would be). Returns
    /// whether the anchor was placed.
    pub fn restore_counting(&mut self, counting: &Counting) -> bool {
        self.calibration = counting.calibration;
        let position = counting.anchor.as_ref().and_then(|a| match &a.uuid {
            Some(uuid) => self.position(uuid),
            None => Some(self.entries.len()),
        });
        self.anchor = match (&counting.anchor, position) {
            (Some(a), Some(position)) => Some(Anchor {
                position,
                reported: a.reported,
                reply_delta: a.reply_delta,
                prefix_estimate: self.entries.iter().take(position).map(|e| e.tokens).sum(),
                prefix_media: self.entries.iter().take(position).map(|e| e.media).sum(),
                prefix_delta: a.prefix_delta,
            }),
            _ => None,
        };
        self.anchor.is_some()
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn mul_div_ceil_is_the_u128_result_saturated() {
        let wide = |a: u64, b: u64, d: u64| {
            u64::try_from((u128::from(a) * u128::from(b)).div_ceil(u128::from(d))).unwrap_or(u64::MAX)
        };
        let values = [
            0,
            1,
            2,
            3,
            7,
            99,
            100,
            101,
            1 << 20,
            1 << 32,
            (1 << 32) + 1,
            u64::MAX / 3,
            u64::MAX - 1,
            u64::MAX,
        ];
        for a in values {
            for b in values {
                for d in values.into_iter().filter(|d| *d != 0) {
                    assert_eq!(super::mul_div_ceil(a, b, d), wide(a, b, d), "{a} {b} {d}");
                }
            }
        }
    }
}
