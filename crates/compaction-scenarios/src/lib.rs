//! Built-in scenarios: sessions that exercise every tier, generated
//! deterministically, and a driver that plays one through the engine,
//! answering its requests the way a chosen host would. The sandbox draws
//! them, the golden tests snapshot them, the CLI can run them.
//!
//! Also what the sandbox and the no-JavaScript page show of them
//! ([`sandbox`]) and how they print numbers ([`figures`]): the engine
//! (`compaction-core`) knows no screen, so this crate is where a screen
//! asks.
//!
//! Modules by responsibility: `play` plays a scenario through
//! the engine as a host would; `builder` writes sessions; `sessions` holds
//! the built-in ones; this file names them.

mod builder;
mod disk;
pub mod figures;
mod play;
pub mod sandbox;
mod sessions;

use std::sync::{Arc, Mutex};

use compaction_core::engine::EngineSettings;
use compaction_core::message::{Message, Uuid};
use compaction_core::time::Timestamp;
use compaction_core::tokens::Estimate;

pub use play::{play, play_observed, Frame, HostPolicy, Observer};
pub use sessions::{
    breakers, chained, compact_analysis, compact_analysis_with, long_collapse, overflow, run_through,
    thinking, tool_heavy,
};

/// One thing that happens in a scenario.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// A message enters the session (shared: every play of a scenario
    /// appends the same messages, without a copy).
    Append(Arc<Message>),
    /// The user pins a message already appended (extension): snip never
    /// deletes its turn, a collapse or compaction keeps it verbatim.
    Pin(Uuid),
    /// The host is about to call the model at this time.
    Call(Option<Timestamp>),
    /// The user runs `/compact [instructions]`.
    Compact(Option<String>),
    /// The API answered 413 (prompt too long). `Some(n)`: its error states
    /// the prompt's real size, `n` tokens more than the engine's count (text
    /// the four-characters-a-token estimate undercounts, such as a log of
    /// numbers, hashes and paths), and the host passes that size on (R8.1);
    /// when that size fits the window the API took the call and nothing
    /// happens. `None`: the error states no size.
    PromptTooLong(Option<u64>),
}

/// A named session.
#[derive(Debug, Clone)]
pub struct Scenario {
    /// Short name (`run-through`…).
    pub name: &'static str,
    /// One line saying what it shows.
    pub title: &'static str,
    /// The engine's settings.
    pub settings: EngineSettings,
    /// What happens, in order.
    pub events: Vec<Event>,
    /// How the host answers, unless the caller chooses otherwise.
    pub policy: HostPolicy,
    /// What the host sends with every call besides the messages (system
    /// prompt, CLAUDE.md, tool definitions), in order; the engine counts
    /// them as one (`set_system`). Empty: the scenario sends none.
    pub system: Vec<SystemPart>,
    /// Files on the host's disk and their size in tokens (at the engine's
    /// default estimate): what a read after a compaction returns (R7.7). A
    /// path not listed reads as the session last read it.
    pub files: Vec<(String, u64)>,
    /// The chapters a reader walks it by (seed 000's five phases): each
    /// one's name and the index of its first event. Empty: one chapter.
    pub phases: Vec<(&'static str, usize)>,
    /// Its messages' estimates, kept from play to play (the sandbox plays
    /// it again at every change of its controls).
    pub estimates: Estimates,
}

/// The estimates of a scenario's messages, one per event, kept for its
/// next play (`Engine::append_estimated`): shared by its clones.
#[derive(Debug, Clone, Default)]
pub struct Estimates(Arc<Mutex<Vec<Option<Estimate>>>>);

/// One part of what the host sends before the messages.
#[derive(Debug, Clone, PartialEq)]
pub struct SystemPart {
    /// What it is (`system prompt`, `CLAUDE.md`, `tools`).
    pub name: &'static str,
    /// Its text.
    pub text: String,
}

/// Every built-in scenario.
pub fn all() -> Vec<Scenario> {
    BUILT_IN.iter().map(|(_, build)| build()).collect()
}

/// The built-in scenarios' names, in [`all`]'s order, without building
/// them.
pub fn names() -> impl Iterator<Item = &'static str> {
    BUILT_IN.iter().map(|(name, _)| *name)
}

/// The scenario with this name (built alone).
pub fn by_name(name: &str) -> Option<Scenario> {
    BUILT_IN
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, build)| build())
}

/// Each built-in scenario's name and builder (a test checks that each
/// builds the scenario it names).
type Builtin = (&'static str, fn() -> Scenario);
const BUILT_IN: [Builtin; 8] = [
    ("compact-analysis", compact_analysis),
    ("run-through", run_through),
    ("tool-heavy", tool_heavy),
    ("long-collapse", long_collapse),
    ("chained", chained),
    ("overflow", overflow),
    ("breakers", breakers),
    ("thinking", thinking),
];
