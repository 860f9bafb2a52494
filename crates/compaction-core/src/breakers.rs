//! Breakers (SPEC R10): when automatic compaction keeps failing, or keeps
//! refilling right after it succeeds, it stops for the session. Neither ever
//! blocks a manual `/compact` (R10.3).

use serde::Serialize;

/// R10's numbers, all settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BreakerSettings {
    /// Consecutive auto-compact failures that open the breaker (R10.1;
    /// default 3).
    pub max_failures: u32,
    /// A refill counts when the line is reached again within fewer than this
    /// many turns (model calls: R10.2's reading in the SPEC) after a
    /// compaction, whatever started it (R10.2, seed 002:
    /// "after a compact"; default 3).
    pub refill_turns: usize,
    /// Refills in a row that open the breaker (R10.2; default 3).
    pub max_refills: u32,
}

impl Default for BreakerSettings {
    fn default() -> Self {
        BreakerSettings {
            max_failures: 3,
            refill_turns: 3,
            max_refills: 3,
        }
    }
}

/// Why automatic compaction stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Open {
    /// R10.1: consecutive failures.
    Failures,
    /// R10.2: rapid refill ("thrashing").
    RapidRefill,
}

/// Breaker state for one session.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Breakers {
    settings: BreakerSettings,
    failures: u32,
    refills: u32,
    last_compact_turn: Option<usize>,
    open: Option<Open>,
}

impl Breakers {
    /// Closed breakers with these settings.
    pub fn new(settings: BreakerSettings) -> Self {
        Breakers {
            settings,
            ..Breakers::default()
        }
    }

    /// Why automatic compaction is off, if it is.
    pub fn open(&self) -> Option<Open> {
        self.open
    }

    /// An automatic compaction failed (R10.1; a manual or reactive one is
    /// not reported here).
    pub fn failed(&mut self) {
        self.failures += 1;
        if self.failures >= self.settings.max_failures {
            self.open = Some(Open::Failures);
        }
    }

    /// A compaction (automatic, reactive or manual) succeeded at `turn`:
    /// the failure run resets (R10.1), and a refill is counted from here
    /// (R10.2).
    pub fn succeeded(&mut self, turn: usize) {
        self.failures = 0;
        self.last_compact_turn = Some(turn);
    }

    /// The count reached the compact line at `turn` (R10.2).
    pub fn reached_line(&mut self, turn: usize) {
        match self.last_compact_turn {
            Some(last) if turn.saturating_sub(last) < self.settings.refill_turns => {
                self.refills += 1;
                if self.refills >= self.settings.max_refills {
                    self.open = Some(Open::RapidRefill);
                }
            }
            _ => self.refills = 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn r10_1_three_consecutive_failures_open_and_a_success_resets() {
        let mut b = Breakers::new(BreakerSettings::default());
        b.failed();
        b.failed();
        b.succeeded(1);
        b.failed();
        b.failed();
        assert_eq!(b.open(), None);
        b.failed();
        assert_eq!(b.open(), Some(Open::Failures));
    }

    #[test]
    fn r10_2_three_rapid_refills_in_a_row_open() {
        let mut b = Breakers::new(BreakerSettings::default());
        b.succeeded(10);
        b.reached_line(12); // 2 turns later: refill 1
        b.succeeded(12);
        b.reached_line(20); // 8 turns later: the run resets
        b.succeeded(20);
        for turn in [21, 22, 23] {
            assert_eq!(b.open(), None);
            b.reached_line(turn);
            b.succeeded(turn);
        }
        assert_eq!(b.open(), Some(Open::RapidRefill));
    }
}
