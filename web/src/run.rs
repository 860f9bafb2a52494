//! The engine run a page's controls ask for: what it depends on (not the
//! cursor), and the run itself, with the event it lays out.

use std::rc::Rc;

use compaction_scenarios::sandbox::{explore_at, Exploration, PrecomputeSwitch};
use compaction_scenarios::Scenario;

use crate::state::SandboxState;

/// What the engine computed for the controls (or why it could not): every
/// event's frame, count and outcome, and the moment it laid out whole.
pub type Run = Result<(Rc<Exploration>, usize), String>;

/// The controls the engine run depends on (not the cursor).
#[derive(Debug, Clone, PartialEq)]
pub struct RunKey {
    scenario: String,
    fields: [String; 8],
    switches: [bool; 4],
    failing: Vec<String>,
    hook: String,
    instructions: String,
    reads: String,
    precompute: PrecomputeSwitch,
    thinking: compaction_core::api::ThinkingMode,
}

impl RunKey {
    /// What the run for `s` depends on.
    pub fn of(s: &SandboxState) -> Self {
        RunKey {
            scenario: s.scenario.clone(),
            fields: s.fields.clone(),
            switches: s.switches,
            failing: s.failing.clone(),
            hook: s.hook_instructions.clone(),
            instructions: s.instructions.clone(),
            reads: s.reads.clone(),
            precompute: s.precompute,
            thinking: s.thinking,
        }
    }
}

/// The scenario the controls name, built (memoised on what it depends on).
pub type Built = Result<Rc<Scenario>, String>;

/// The engine's run for the controls, laying out the event `at` (`None`:
/// the one a scenario opens on, expected to be `guess`, the last shown);
/// without `play`, only what is wrong with the controls (`None`: nothing,
/// the run is held back).
pub fn run(
    state: &SandboxState,
    scenario: &Built,
    at: Option<usize>,
    guess: usize,
    play: bool,
) -> Option<Run> {
    let scenario = match scenario {
        Ok(s) => s,
        Err(e) => return Some(Err(e.clone())),
    };
    let knobs = match state.knobs_for(scenario) {
        Ok(k) => k,
        Err(e) => return Some(Err(e)),
    };
    play.then(|| {
        explore_at(scenario, &knobs, at, guess)
            .map(|(e, shown)| (Rc::new(e), shown))
            .map_err(|e| e.to_string())
    })
}

/// The event a page asks for (`usize::MAX`: none, the default).
pub fn asked(state: &SandboxState) -> Option<usize> {
    (state.moment != usize::MAX).then_some(state.moment)
}
