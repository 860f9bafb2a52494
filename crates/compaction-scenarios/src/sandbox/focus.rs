//! The sandbox's play of a scenario for a screen that shows one event at
//! a time (a control change lays out that event, not every one).

use compaction_core::error::Error;

use super::{play_watched, Exploration, Knobs, Moment};
use crate::Scenario;

/// The event a screen shows first: the last one where a tier fired or a
/// compaction ended, else the last.
pub fn default_moment(moments: &[Moment]) -> usize {
    moments
        .iter()
        .rposition(|m| !m.tiers.is_empty() || m.outcome.is_some())
        .unwrap_or(moments.len().saturating_sub(1))
}

/// [`explore`] for a screen that shows one event at a time: every moment
/// has its frame, count, tiers and outcome, but only the one returned (the
/// `at`-th, clamped; `None`: [`default_moment`]) has the views, requests,
/// groups and lost lines of its event; the others' are empty. That is the
/// bulk of the work: a control change costs one play of the engine and the
/// layout of one event, not of every event. `guess` is the moment `at:
/// None` is expected to be (the last one shown): when it is not, the
/// scenario is played again for the right one.
pub fn explore_at(
    scenario: &Scenario,
    knobs: &Knobs,
    at: Option<usize>,
    guess: usize,
) -> Result<(Exploration, usize), Error> {
    let focus = at.unwrap_or(guess);
    let e = play_watched(scenario, knobs, Some(focus))?;
    let shown = match at {
        Some(at) => at.min(e.moments.len().saturating_sub(1)),
        None => default_moment(&e.moments),
    };
    if shown == focus || e.moments.is_empty() {
        return Ok((e, shown));
    }
    Ok((play_watched(scenario, knobs, Some(shown))?, shown))
}
