//! Built-in scenarios: sessions that exercise every tier, generated
//! deterministically, and a driver that plays one through the engine,
//! answering its requests the way a chosen host would. The sandbox draws
//! them, the golden tests snapshot them, the CLI can run them.
//!
//! Also what the sandbox and the no-JavaScript page show of them
//! ([`sandbox`]) and how they print numbers ([`figures`]): the engine
//! (`compaction-core`) knows no screen, so this crate is where a screen
//! asks.

pub mod figures;
pub mod sandbox;

use serde::Serialize;
use serde_json::json;

use compaction_core::compact::{
    CompactOptions, FileAnswer, HookOutcome, PreCompactRequest, Progress, Purpose, SummaryRequest,
};
use compaction_core::engine::{drive, Answer, CallStatus, DriveError, Engine, Host};
use compaction_core::engine::{EngineSettings, Preset};
use compaction_core::error::Error;
use compaction_core::message::{Block, Content, Json, Message, Role, ToolResultContent, Usage, Uuid};
use compaction_core::step::Step;
use compaction_core::time::Timestamp;
use compaction_core::tokens::TokenFigure;

/// One thing that happens in a scenario.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// A message enters the session.
    Append(Message),
    /// The user pins a message already appended (extension): snip never
    /// deletes its turn, a collapse or compaction keeps it verbatim.
    Pin(Uuid),
    /// The host is about to call the model at this time.
    Call(Option<Timestamp>),
    /// The user runs `/compact [instructions]`.
    Compact(Option<String>),
    /// The API answered 413.
    PromptTooLong,
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
}

/// How the host answers the engine's requests.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct HostPolicy {
    /// The primary model is unavailable (R7.10: the fallback answers).
    pub primary_unavailable: bool,
    /// The first summary request comes back as too long (R7.5).
    pub first_request_too_long: bool,
    /// Paths whose reads fail (R7.7).
    pub failing_files: Vec<String>,
    /// The PreCompact hook's output, for every compaction (R7.2).
    pub hook: HookOutcome,
    /// Every model is unavailable and no offline fallback: compactions fail.
    pub all_models_down: bool,
}

/// What one event did.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Frame {
    /// The event's index in the scenario.
    pub event: usize,
    /// What kind of event (`call`, `compact`, `413`).
    pub kind: &'static str,
    /// The steps it produced, in order.
    pub steps: Vec<Step>,
    /// The count after it.
    pub count: TokenFigure,
    /// The call's status, for calls.
    pub status: Option<CallStatus>,
    /// Messages in the view after it.
    pub view_len: usize,
}

/// Plays a scenario: appends, calls `before_call`, runs compactions, and
/// answers every request per `policy` with the offline summariser. Returns
/// a frame per event that is not an append, and the engine at the end.
pub fn play(scenario: &Scenario, policy: &HostPolicy) -> Result<(Vec<Frame>, Engine), Error> {
    play_observed(scenario, policy, &mut ())
}

/// Watches a scenario being played: the sandbox uses it to see the view
/// around each event and how each compaction ended. Both methods do
/// nothing by default.
pub trait Observer {
    /// Before a non-append event, with the engine as it stands; steps
    /// returned go first in the event's frame (a host action, such as
    /// loading a stored precompute).
    fn before(&mut self, _engine: &mut Engine, _event: &Event) -> Vec<Step> {
        Vec::new()
    }
    /// After a non-append event: its frame, and how the compaction it ran
    /// ended (`Compacted` or `Failed`), if it ran one to the end.
    fn after(&mut self, _engine: &Engine, _frame: &Frame, _end: Option<&Progress>) {}
}

impl Observer for () {}

/// The host a [`HostPolicy`] describes: every summary offline unless a
/// switch says otherwise, files generated unless listed as failing, the
/// policy's PreCompact hook output for every compaction (R7.2).
struct PolicyHost<'a> {
    policy: &'a HostPolicy,
    /// Tier 4 summary requests asked during the current event.
    asked: usize,
}

impl Host for PolicyHost<'_> {
    type Error = std::convert::Infallible;

    fn summarize(&mut self, request: &SummaryRequest) -> Result<Answer, Self::Error> {
        let policy = self.policy;
        if policy.all_models_down {
            return Ok(Answer::ModelUnavailable);
        }
        if request.purpose != Purpose::Compact {
            return Ok(Answer::Offline);
        }
        self.asked += 1;
        Ok(
            if policy.primary_unavailable && request.model != "fallback-model" {
                Answer::ModelUnavailable
            } else if policy.first_request_too_long && self.asked == 1 {
                Answer::PromptTooLong
            } else {
                Answer::Offline
            },
        )
    }

    fn pre_compact(&mut self, _: &PreCompactRequest) -> Result<HookOutcome, Self::Error> {
        Ok(self.policy.hook.clone())
    }

    fn read_files(&mut self, paths: &[String]) -> Result<Vec<FileAnswer>, Self::Error> {
        Ok(paths
            .iter()
            .map(|path| FileAnswer {
                path: path.clone(),
                content: if self.policy.failing_files.contains(path) {
                    Err("ENOENT: no such file".to_owned())
                } else {
                    Ok(file_content(path))
                },
            })
            .collect())
    }
}

/// [`play`], telling `observer` about each event.
pub fn play_observed(
    scenario: &Scenario,
    policy: &HostPolicy,
    observer: &mut dyn Observer,
) -> Result<(Vec<Frame>, Engine), Error> {
    let mut settings = scenario.settings.clone();
    if policy.primary_unavailable {
        settings.compact.fallback_models = vec!["fallback-model".to_owned()];
    }
    let mut engine = Engine::new(settings)?;
    let mut frames = Vec::new();
    for (i, event) in scenario.events.iter().enumerate() {
        match event {
            Event::Append(m) => {
                engine.append(m.clone())?;
                continue;
            }
            Event::Pin(uuid) => {
                engine.pin(uuid)?;
                continue;
            }
            _ => {}
        }
        let mut steps = observer.before(&mut engine, event);
        let (kind, status, started) = match event {
            Event::Append(_) | Event::Pin(_) => continue,
            Event::Call(now) => {
                let d = engine.before_call(now.as_ref());
                steps.extend(d.steps);
                ("call", Some(d.status), d.compaction)
            }
            Event::Compact(instructions) => {
                let out = engine.compact(CompactOptions {
                    instructions: instructions.clone(),
                });
                steps.extend(out.steps);
                ("compact", None, out.compaction)
            }
            Event::PromptTooLong => {
                let out = engine.prompt_too_long();
                steps.extend(out.steps);
                ("413", None, out.compaction)
            }
        };
        let mut host = PolicyHost { policy, asked: 0 };
        let out = match drive(&mut engine, &mut host) {
            Ok(out) => out,
            Err(DriveError::Engine(e)) => return Err(e),
            Err(DriveError::Host { cause, .. }) => match cause {},
        };
        steps.extend(out.steps);
        let end = out
            .compaction
            .or(started)
            .filter(|p| !matches!(p, Progress::Waiting));
        let frame = Frame {
            event: i,
            kind,
            steps,
            count: engine.count(),
            status,
            view_len: engine.view().len(),
        };
        observer.after(&engine, &frame, end.as_ref());
        frames.push(frame);
    }
    Ok((frames, engine))
}

fn file_content(path: &str) -> String {
    format!("// {path}\n") + &"fn example() {}\n".repeat(40)
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
const BUILT_IN: [Builtin; 7] = [
    ("compact-analysis", compact_analysis),
    ("run-through", run_through),
    ("tool-heavy", tool_heavy),
    ("long-collapse", long_collapse),
    ("chained", chained),
    ("overflow", overflow),
    ("breakers", breakers),
];

fn at(minute: i64) -> Timestamp {
    Timestamp::from_unix_ms(1_796_000_000_000 + minute * 60_000)
}

/// A session under construction.
struct Builder {
    events: Vec<Event>,
    n: usize,
    minute: i64,
}

impl Builder {
    fn new() -> Self {
        Builder {
            events: Vec::new(),
            n: 0,
            minute: 0,
        }
    }

    fn id(&mut self, kind: &str) -> String {
        self.n += 1;
        format!("{kind}-{:04}", self.n)
    }

    fn prompt(&mut self, text: &str) -> &mut Self {
        let id = self.id("user");
        self.events.push(Event::Append(Message::user(id, text)));
        self
    }

    /// Pins the message appended last (extension).
    fn pin_last(&mut self) -> &mut Self {
        if let Some(Event::Append(m)) = self.events.iter().rev().find(|e| matches!(e, Event::Append(_))) {
            let uuid = m.uuid.clone();
            self.events.push(Event::Pin(uuid));
        }
        self
    }

    fn say(&mut self, text: &str) -> &mut Self {
        let id = self.id("assistant");
        let mut m = Message::assistant(id, text);
        m.timestamp = Some(at(self.minute));
        self.events.push(Event::Append(m));
        self
    }

    /// An assistant tool call and its result of `chars` characters.
    fn tool(&mut self, name: &str, path: &str, chars: usize) -> &mut Self {
        let call_id = self.id("assistant");
        let tool_id = format!("toolu_{:04}", self.n);
        let mut call = Message::new(
            call_id,
            Role::Assistant,
            Content::Blocks(vec![Block::ToolUse {
                id: tool_id.clone(),
                name: name.to_owned(),
                input: Json::from_value(&json!({ "file_path": path })),
                extra: Default::default(),
            }]),
        );
        call.timestamp = Some(at(self.minute));
        let result_id = self.id("user");
        let body: String = format!("{name} {path}\n").repeat(chars / (name.len() + path.len() + 2) + 1);
        let result = Message::new(
            result_id,
            Role::User,
            Content::Blocks(vec![Block::ToolResult {
                tool_use_id: tool_id,
                content: ToolResultContent::Text(body.chars().take(chars).collect()),
                is_error: None,
                extra: Default::default(),
            }]),
        );
        self.events.push(Event::Append(call));
        self.events.push(Event::Append(result));
        self.minute += 1;
        self
    }

    fn usage(&mut self, prompt_tokens: u64) -> &mut Self {
        if let Some(Event::Append(m)) = self
            .events
            .iter_mut()
            .rev()
            .find(|e| matches!(e, Event::Append(m) if m.role == Role::Assistant))
        {
            m.usage = Some(Usage {
                input_tokens: prompt_tokens,
                ..Usage::default()
            });
        }
        self
    }

    fn call(&mut self) -> &mut Self {
        self.events.push(Event::Call(Some(at(self.minute))));
        self
    }

    fn idle(&mut self, minutes: i64) -> &mut Self {
        self.minute += minutes;
        self
    }

    fn event(&mut self, e: Event) -> &mut Self {
        self.events.push(e);
        self
    }

    fn done(&mut self) -> Vec<Event> {
        std::mem::take(&mut self.events)
    }
}

/// Seed 002's own session: analysing `/compact`, then a manual `/compact`
/// with instructions (precomputed miss).
pub fn compact_analysis() -> Scenario {
    compact_analysis_with(0, &[])
}

/// [`compact_analysis`] with `extra_groups` more tool-call groups (reads of
/// notes) before the `/compact` (the sandbox's "message groups"), and its
/// second request reading `reads` (3,000 characters each) instead of its
/// own two files when `reads` is not empty (the sandbox's "files the
/// session reads": the attachment candidates follow it, R7.7).
pub fn compact_analysis_with(extra_groups: usize, reads: &[String]) -> Scenario {
    let mut b = Builder::new();
    b.prompt("Find out what Claude Code 2.1.235 does on /compact. Confirm four things: how the Summary is made, whether recent messages are kept, how files are restored, how Resume continues.")
        .tool("Grep", "reverse/javascript/cli.readable.js", 1_800)
        .call()
        .tool("Read", "reverse/javascript/cli.readable.js", 6_400)
        .call()
        .prompt("Do not only analyse the prompt. Check whether manual /compact keeps tool_use/tool_result, which files it re-reads, and how compact_boundary takes part in Resume.");
    if reads.is_empty() {
        b.tool("Read", "reverse/javascript/cli.readable.js", 9_000).tool(
            "Read",
            "analysis/runtime-probes/agent-loop-tool-result-resume.json",
            3_000,
        );
    }
    for path in reads {
        b.tool("Read", path, 3_000);
    }
    b.tool(
        "Bash",
        "skill/claude-code-version-diff/scripts/validate_snapshot.py",
        600,
    );
    for k in 0..extra_groups {
        b.tool("Read", &format!("analysis/notes/note_{k:02}.md"), 1_200);
    }
    b.say("Boundary keeps pre/post tokens and the preserved uuids; next, write the article.")
        .usage(58_000)
        .call()
        .event(Event::Compact(Some(
            "keep the user's two requests, the key source locations, the probe results and the remaining writing task".to_owned(),
        )));
    Scenario {
        name: "compact-analysis",
        title: "Seed 002: a manual /compact of the session that analyses /compact (precomputed miss)",
        settings: Preset::Seed.settings(200_000),
        events: b.done(),
        policy: HostPolicy::default(),
    }
}

/// Seed 000 §5: phases 1–5 over a long session in a 200k window, at the
/// seed's default settings (snip and collapse both on, Tier 3 at its
/// default line), then a 413 (Tier 5).
pub fn run_through() -> Scenario {
    let mut b = Builder::new();
    // Phase 1: normal work, nothing fires.
    b.prompt("Refactor the Python project: start with utils.py.");
    b.tool("Grep", "src", 50_000); // a huge grep: budget reduction keeps 4,000 characters
    for i in 0..8 {
        b.tool("Read", &format!("src/module_{i}.py"), 1_600);
    }
    b.say("utils.py is fixed.").call();
    // Phase 2: over 50 tool calls, Tier 1 cache-aware clears the first 30.
    for turn in 0..5 {
        b.prompt(&format!("Next: module {turn}."));
        for i in 0..9 {
            b.tool(
                ["Read", "Grep", "Bash"][i % 3],
                &format!("src/pkg_{turn}/file_{i}.py"),
                2_000,
            );
        }
        b.say("Done with this module.").call();
    }
    // Phases 3–4: the conversation itself grows past the line: snip
    // deletes the oldest turns, and the count drops under it (Tiers 3–4
    // do not run). The user pins each design decision (extension): snip
    // may not delete those turns.
    for turn in 0..20 {
        b.prompt(&format!(
            "Design decision {turn}: FastAPI instead of Flask, PostgreSQL for the database."
        ))
        .pin_last();
        b.say(&"Long design answer. ".repeat(1_500)).call();
    }
    // Phase 5: few old turns are left that snip may delete, and one long
    // turn outgrows what it can free: Tier 3 collapses the old design
    // turns (their pinned decisions stay verbatim), and when that is not
    // enough Tier 4 compacts.
    b.prompt("Now write the whole API module, with tests.");
    for part in 0..30 {
        b.say(&format!("API part {part}: ").repeat(2_000)).call();
    }
    // Tier 5: the API refuses a call as too long anyway (its count is not
    // the estimate).
    b.prompt("Run the whole test suite and paste the output.");
    b.tool("Bash", "pytest -q", 3_000);
    b.event(Event::PromptTooLong).call();
    Scenario {
        name: "run-through",
        title: "Seed 000 §5: phases 1–5 of a long session at default settings (microcompact, snip, collapse, compact), then a 413",
        settings: Preset::Seed.settings(200_000),
        events: b.done(),
        policy: HostPolicy::default(),
    }
}

/// A long session in a configuration without snip: Tier 3 collapses old
/// segments.
pub fn long_collapse() -> Scenario {
    let mut settings = Preset::Seed.settings(200_000);
    settings.snip = false;
    let mut b = Builder::new();
    for turn in 0..40 {
        b.prompt(&format!("Chapter {turn}: draft it."));
        b.tool("Read", &format!("book/chapter_{turn}.md"), 3_000);
        b.say(&"Drafted text. ".repeat(1_200)).call();
    }
    // Then the recent turns alone outgrow the line: Tier 3 has nothing
    // old left to collapse, and Tier 4 compacts.
    for turn in 0..12 {
        b.prompt(&format!("Review pass {turn}: the whole manuscript."));
        b.say(&"Reviewed text. ".repeat(4_000)).call();
    }
    Scenario {
        name: "long-collapse",
        title: "Without snip: segments of old turns collapse into `Turns a–b` summaries as the answers arrive (Tier 3); when the recent turns alone outgrow the line, Tier 4 compacts",
        settings,
        events: b.done(),
        policy: HostPolicy::default(),
    }
}

/// A tool-heavy coding session: Tier 1 on both paths.
pub fn tool_heavy() -> Scenario {
    let mut b = Builder::new();
    b.prompt("Fix every failing test in the repository.");
    for i in 0..60 {
        b.tool(
            ["Read", "Bash", "Edit", "Grep"][i % 4],
            &format!("tests/test_{}.py", i % 17),
            1_200,
        );
        if i % 10 == 9 {
            b.call();
        }
    }
    b.say("All tests pass.").idle(95).call();
    Scenario {
        name: "tool-heavy",
        title: "Microcompact: cache-aware clearing at 50 calls, then time-based after 95 idle minutes",
        settings: Preset::Seed.settings(200_000),
        events: b.done(),
        policy: HostPolicy::default(),
    }
}

/// Chained compactions: each summary summarises the one before (R7.12).
pub fn chained() -> Scenario {
    let mut b = Builder::new();
    for round in 0..3 {
        for t in 0..4 {
            b.prompt(&format!("Round {round}, task {t}: continue the migration."));
            b.tool("Edit", &format!("migrations/{round}_{t}.sql"), 800);
            b.say("Migrated.");
        }
        b.event(Event::Compact(None));
    }
    Scenario {
        name: "chained",
        title: "Chained compactions: information decays with each pass (R7.12)",
        settings: Preset::Seed.settings(200_000),
        events: b.done(),
        policy: HostPolicy::default(),
    }
}

/// A request the API refuses as too long: Tier 5, once per turn (R8).
pub fn overflow() -> Scenario {
    let mut b = Builder::new();
    for t in 0..23 {
        b.prompt(&format!("Load dataset part {t}."));
        b.tool("Read", &format!("data/part_{t}.csv"), 3_800);
        b.say("Loaded.");
    }
    b.event(Event::PromptTooLong).call();
    b.event(Event::PromptTooLong).call();
    b.event(Event::PromptTooLong);
    Scenario {
        name: "overflow",
        title: "A 413: collapse overflow recovery, then on the next 413 an emergency compaction, then a third 413 in the same turn ends the session (R8)",
        settings: Preset::Seed.settings(200_000),
        events: b.done(),
        policy: HostPolicy::default(),
    }
}

/// Automatic compaction that keeps failing trips the breaker (R10).
pub fn breakers() -> Scenario {
    let mut settings = Preset::Seed.settings(200_000);
    settings.snip = false;
    settings.collapse.enabled = false;
    let mut b = Builder::new();
    for t in 0..16 {
        b.prompt(&format!("Step {t}."));
        b.say(&"Output. ".repeat(6_000)).call();
    }
    b.call().event(Event::Compact(None));
    Scenario {
        name: "breakers",
        title: "Every model down: three failed auto-compactions open the breaker; /compact is still allowed (R10)",
        settings,
        events: b.done(),
        policy: HostPolicy { all_models_down: true, ..HostPolicy::default() },
    }
}
