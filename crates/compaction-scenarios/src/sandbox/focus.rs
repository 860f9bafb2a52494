//! The sandbox's play of a scenario for a screen that shows one event at
//! a time (a control change lays out that event, not every one).

use compaction_core::error::Error;

use super::{play_watched, Exploration, Focus, Knobs, Moment};
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
/// None` is expected to be (the last one shown): the play lays out that
/// one and every one after it (a control that moves the last tier later
/// still costs one play), and when the moment is earlier the scenario is
/// played again for it.
pub fn explore_at(
    scenario: &Scenario,
    knobs: &Knobs,
    at: Option<usize>,
    guess: usize,
) -> Result<(Exploration, usize), Error> {
    let focus = at.unwrap_or(guess);
    let mut e = play_watched(
        scenario,
        knobs,
        if at.is_some() {
            Focus::One(focus)
        } else {
            Focus::From(focus)
        },
    )?;
    let shown = match at {
        Some(at) => at.min(e.moments.len().saturating_sub(1)),
        None => default_moment(&e.moments),
    };
    let laid = if at.is_some() {
        shown == focus
    } else {
        shown >= focus
    };
    if laid || e.moments.is_empty() {
        for (i, m) in e.moments.iter_mut().enumerate().skip(focus) {
            if i != shown {
                bare(m);
            }
        }
        return Ok((e, shown));
    }
    Ok((play_watched(scenario, knobs, Focus::One(shown))?, shown))
}

/// `m` without what only a moment laid out holds.
fn bare(m: &mut Moment) {
    m.before = Vec::new();
    m.after = Vec::new();
    m.dropped = 0;
    m.summarised = 0;
    m.request_before = Vec::new();
    m.request_after = Vec::new();
    m.groups = None;
    m.lost = super::Lost::default();
}
